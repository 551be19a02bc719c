"""Language models, Kneser-Ney family: text reading, counting, discounts, probabilities,
normalisation, ARPA export, model files, against the slow twins of naive.py and the
KenLM figures of the design notes."""
from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import naive
from conftest import corpus_or_skip
from plgraph.errors import InputError
from plgraph.lm import (KN_METHODS, LMTextError, Vocabulary, count_ngrams, encode, load_model, parse_sentences,
                        train, write_arpa)
from plgraph.lm.discounts import kn_discount, mkn_discounts, plre_term_discounts
from plgraph.lm.io import ModelFileError

WORDS = ["a", "b", "c", "d", "e", "f", "<unk>"]


@st.composite
def corpora(draw, max_sentences=12, max_len=7, n_words=6):
    words = WORDS[:n_words] + (["<unk>"] if draw(st.booleans()) else [])
    n = draw(st.integers(1, max_sentences))
    return [draw(st.lists(st.sampled_from(words), min_size=1, max_size=max_len)) for _ in range(n)]


def ids_of(model, sentences):
    return [[model.vocab.id(w) for w in s] for s in sentences]


def random_contexts(model, rng, n=6):
    """Histories: sentence starts (<s> + words), full-length word histories, unseen words."""
    V = len(model.vocab)
    words = [i for i in range(V) if i not in (1, 2)]
    out = [[1]]
    for _ in range(n):
        k = int(rng.integers(0, model.order))
        hist = [int(rng.choice(words)) for _ in range(k)]
        out.append([1] + hist[: max(0, model.order - 2)] if rng.random() < 0.4 else hist)
    return out


# ----------------------------------------------------------------------------------------------
# text

def test_read_sentences_and_vocabulary(tmp_path):
    f = tmp_path / "t.txt"
    f.write_text(" the cat <unk> sat \n\n the dog\tsat\r\n")
    sents = parse_sentences(f.read_bytes(), str(f))
    assert sents == [["the", "cat", "<unk>", "sat"], ["the", "dog", "sat"]]
    vocab = Vocabulary.from_sentences(sents, min_count=2)
    assert vocab.words == ["<unk>", "<s>", "</s>", "sat", "the"]
    assert vocab.counts.tolist() == [3, 2, 2, 2, 2]  # <unk>: cat, dog and the literal <unk>
    stream = encode([["the", "bird", "sat"]], vocab)
    assert stream.tokens.tolist() == [1, 4, 0, 3, 2] and stream.oov == 1 and stream.n_predictions == 4


@pytest.mark.parametrize("text, line, what", [
    (b"a b\nc <s> d\n", 2, "reserved word <s>"),
    (b"a\n\nb </s>\n", 3, "reserved word </s>"),
    (b"ok\nalso ok\n\xff\xfe bad\n", 3, "not valid UTF-8"),
    (b"\n \n", None, "no tokens"),
])
def test_text_errors_name_file_and_line(tmp_path, text, line, what):
    f = tmp_path / "bad.txt"
    f.write_bytes(text)
    with pytest.raises(LMTextError) as err:
        train(str(f), order=2)
    assert what in str(err.value)
    assert err.value.source == str(f) and err.value.line == line
    assert str(err.value).startswith(f"{f}:{line}: " if line else f"{f}: ")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=60))
def test_reader_fuzz_bytes(data):
    """Any bytes: either sentences equal to a plain whitespace split of the lines, or an
    InputError naming the line where decoding or a reserved word fails.  A leading UTF-8
    byte-order mark is not text."""
    text_bytes = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    try:
        sents = parse_sentences(data, "fuzz")
    except LMTextError as err:
        assert err.source == "fuzz"
        if "UTF-8" in err.reason:
            with pytest.raises(UnicodeDecodeError) as u:
                data.decode("utf-8")
            assert err.line == data.count(b"\n", 0, u.value.start) + 1
        elif "reserved" in err.reason:
            bad = data.decode("utf-8").split("\n")[err.line - 1].split()
            assert "<s>" in bad or "</s>" in bad
        else:
            assert not text_bytes.decode("utf-8").split()
        return
    expected = [ln.split() for ln in text_bytes.decode("utf-8").split("\n") if ln.split()]
    assert sents == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["x", "y", "<s>", "</s>", "<unk>", "é", "z\u00a0z"]), max_size=4),
                max_size=6))
def test_reader_fuzz_tokens(lines):
    text = "\n".join(" ".join(t) for t in lines)
    bad_lines = [i + 1 for i, t in enumerate(lines) if "<s>" in " ".join(t).split() or "</s>" in " ".join(t).split()]
    if not any(" ".join(t).split() for t in lines):
        with pytest.raises(LMTextError):
            parse_sentences(text.encode())
        return
    if bad_lines:
        with pytest.raises(LMTextError) as err:
            parse_sentences(text.encode())
        assert err.value.line == bad_lines[0]
    else:
        assert parse_sentences(text.encode()) == [" ".join(t).split() for t in lines if " ".join(t).split()]


# ----------------------------------------------------------------------------------------------
# counting

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(), st.integers(1, 5))
def test_counts_match_naive(sentences, order):
    vocab = Vocabulary.from_sentences(sentences)
    ids = [[vocab.id(w) for w in s] for s in sentences]
    counts = count_ngrams(encode(sentences, vocab), order, len(vocab))
    raw = naive.raw_counts(ids, order)
    adj = naive.adjusted_counts(raw, order)
    for k in range(1, order + 1):
        grams = [tuple(g) for g in counts.all_ngrams(k).tolist()]
        if k == 1:
            got_raw = {g: int(c) for g, c in zip(grams, counts.raw[1]) if c}
        else:
            got_raw = dict(zip(grams, counts.raw[k].tolist()))
            assert grams == sorted(grams)  # sorted integer arrays: lexicographic order
        assert got_raw == dict(raw[k])
        got_adj = {g: int(c) for g, c in zip(grams, counts.adjusted[k]) if c or k > 1}
        assert got_adj == {g: c for g, c in adj[k].items() if c or k > 1}
        assert counts.count_of_counts(k)[1:].tolist() == naive.count_of_counts(adj[k])[1:]
        if k < order:  # continuation counts N-(x) and N+(h)
            nm = {g: len({v[0] for v in raw[k + 1] if v[1:] == g}) for g in raw[k]}
            np_ = {g: len({v[-1] for v in raw[k + 1] if v[:-1] == g}) for g in raw[k]}
            got_m = dict(zip(grams, counts.n_minus(k).tolist()))
            got_p = dict(zip(grams, counts.n_plus(k).tolist()))
            assert {g: got_m[g] for g in raw[k]} == nm and {g: got_p[g] for g in raw[k]} == np_
        if k >= 2:  # prefix and suffix pointers
            prev = [tuple(g) for g in counts.all_ngrams(k - 1).tolist()]
            assert all(prev[c] == g[:-1] for c, g in zip(counts.ctx[k], grams))
            assert all(prev[s] == g[1:] for s, g in zip(counts.suffix[k], grams))


def test_discount_formulas():
    n = np.array([0, 100, 40, 20, 10])
    d, ok = mkn_discounts(n)
    y = 100 / 180
    assert ok and d == pytest.approx((1 - 2 * y * 0.4, 2 - 3 * y * 0.5, 3 - 4 * y * 0.5))
    assert kn_discount(n) == (pytest.approx(y), True)
    assert mkn_discounts(np.array([0, 5, 0, 1, 1])) == ((0.5, 1.0, 1.5), False)  # KenLM's fallback
    c = np.array([1, 2, 3, 7])
    # Algorithm 1: rho_(j+1) = 0 is absolute discounting (the same d* for every count) ...
    for rho_j in (1.0, 0.7, 0.5):
        assert plre_term_discounts(c, np.full(4, 0.6), 0.0).tolist() == [0.6] * 4
    # ... rho_(j+1) = rho_j scales the counts (Jelinek-Mercer): c^rho - d* c^rho = (1 - d*) c^rho
    assert np.allclose(c ** 0.5 - plre_term_discounts(c, np.full(4, 0.3), 0.5), 0.7 * c ** 0.5)


@pytest.fixture(scope="module")
def brown():
    corpus_or_skip("brown")
    from plgraph.lm.corpora import lm_corpus

    return lm_corpus("brown")


def test_brown_protocol_trigram_discounts(brown):
    """The notes' lmplz figures for the Brown protocol (order 3): n-gram counts and D1/D2/D3+."""
    from plgraph.lm.text import read_sentences

    sents = read_sentences(brown.train)
    vocab = Vocabulary.from_sentences(sents)
    counts = count_ngrams(encode(sents, vocab), 3, len(vocab))
    assert [counts.n(k) for k in (1, 2, 3)] == [14117, 271047, 575007]
    d3, ok = mkn_discounts(counts.count_of_counts(3))
    assert ok and d3 == pytest.approx((0.860296, 1.23685, 1.46557), abs=1e-5)
    # lower orders: lmplz counts the last n-gram of each lower order (in its suffix-sorted order,
    # word ids by first appearance) at its raw rather than its adjusted count.  Moving exactly
    # that one n-gram reproduces its printed unigram and bigram discounts; ours use the true
    # adjusted counts.
    first_seen = {}
    for s in sents:
        for w in s:
            first_seen.setdefault(vocab.id(w), len(first_seen))
    kid = lambda w: first_seen.get(w, -1)  # noqa: E731
    expected = {1: (0.221814, 0.72885, 1.38934), 2: (0.732569, 1.13489, 1.50951)}
    for k in (1, 2):
        grams = counts.all_ngrams(k)
        last = max(range(len(grams)), key=lambda i: tuple(kid(w) for w in grams[i][::-1]))
        n = counts.count_of_counts(k).copy()
        adj, raw = int(counts.adjusted[k][last]), int(counts.raw[k][last])
        n[adj] -= 1
        if raw <= 4:
            n[raw] += 1
        assert mkn_discounts(n)[0] == pytest.approx(expected[k], abs=1.5e-5)
        assert mkn_discounts(counts.count_of_counts(k))[0] != pytest.approx(expected[k], abs=1e-5)


# ----------------------------------------------------------------------------------------------
# Kneser-Ney probabilities against the naive recursion, normalisation

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(), st.integers(1, 4), st.sampled_from(KN_METHODS), st.integers(0, 2**31))
def test_kn_matches_naive_and_sums_to_one(sentences, order, method, seed):
    model = train(sentences, order=order, method=method)
    kind = method.split("-")[1]
    ref = naive.NaiveKN(ids_of(model, sentences), order, len(model.vocab), kind, method.startswith("int"))
    rng = np.random.default_rng(seed)
    V = len(model.vocab)
    for ctx in random_contexts(model, rng):
        dist = model.distribution(ctx)
        expected = np.array([ref.prob(w, ctx) if w != 1 else 0.0 for w in range(V)])
        assert dist.sum() == pytest.approx(1.0, abs=1e-9)
        np.testing.assert_allclose(dist, expected, rtol=1e-10, atol=1e-13)
    # the stream kernel scores whole sentences like the recursion
    test = sentences[:3] + [["a", "zzz"]]
    np.testing.assert_allclose(model.logprobs(encode(test, model.vocab)),
                               naive.stream_logprobs(ref, ids_of(model, test)), rtol=1e-10)


def test_kn_orderings_and_kenlm_parity_on_brown(brown):
    """Our int-MKN equals lmplz's (notes §5: test 154.4633 / 147.7010 / 146.9905 / 146.7425);
    on valid, interpolated beats back-off and modified beats plain KN at every order."""
    kenlm_test = {2: 154.4633, 3: 147.7010, 4: 146.9905, 5: 146.7425}
    kenlm_valid = {2: 164.6104, 3: 156.9222, 4: 156.2431, 5: 155.9974}
    valid = {}
    for order in (2, 3, 4, 5):
        model = train(brown.train, order=order, method="int-mkn")
        ev, et = model.evaluate(brown.valid), model.evaluate(brown.test)
        assert et.tokens == 171297 and ev.tokens == 211711 and et.oov == 0
        assert et.perplexity == pytest.approx(kenlm_test[order], rel=1e-5)
        assert ev.perplexity == pytest.approx(kenlm_valid[order], rel=1e-5)
        valid[order, "int-mkn"] = ev.perplexity
    for order in (2, 3):
        for method in ("int-kn", "bo-kn", "bo-mkn"):
            valid[order, method] = train(brown.train, order=order, method=method).evaluate(brown.valid).perplexity
        assert valid[order, "int-mkn"] < valid[order, "int-kn"] < valid[order, "bo-kn"]
        assert valid[order, "int-mkn"] < valid[order, "bo-mkn"]


def test_normalisation_on_real_data_every_method(brown):
    from plgraph.lm.text import read_sentences

    sents = read_sentences(brown.valid)[:2000]
    rng = np.random.default_rng(5)
    for method in KN_METHODS:
        model = train(sents, order=3, method=method)
        for ctx in random_contexts(model, rng, n=8) + [["<s>", "The"], ["of", "the"], ["UNKTOK", "UNKTOK"]]:
            assert model.distribution(ctx).sum() == pytest.approx(1.0, abs=1e-9), (method, ctx)


# ----------------------------------------------------------------------------------------------
# ARPA and model files

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(corpora(), st.integers(1, 4), st.sampled_from(KN_METHODS))
def test_arpa_backoff_reproduces_the_model(tmp_path, sentences, order, method):
    model = train(sentences, order=order, method=method)
    path = tmp_path / f"m{order}{method}.arpa"
    write_arpa(model, path)
    tables = naive.read_arpa(path)
    # empty top levels are left out of the file (a one-sentence corpus must not give a corrupt ARPA file)
    assert {k: len(v) for k, v in tables.items()} == {k: model.n_entries(k) for k in range(1, order + 1)
                                                     if model.n_entries(k) > 0}
    words = model.vocab.words
    rng = np.random.default_rng(order)
    for ctx in random_contexts(model, rng):
        dist = model.distribution(ctx)
        for w in range(len(words)):
            if w == 1:
                continue
            p = naive.arpa_prob(tables, words[w], [words[c] for c in ctx])
            assert p == pytest.approx(dist[w], rel=1e-8)


def test_model_files_round_trip_and_reject_garbage(tmp_path):
    sents = [["a", "b", "c"], ["b", "c", "a", "a"], ["c", "b"]]
    for method in KN_METHODS:
        model = train(sents, order=3, method=method)
        path = tmp_path / f"{method}.npz"
        model.save(path)
        again = load_model(path)
        assert type(again) is type(model) and again.method == method and again.vocab.words == model.vocab.words
        s = encode(sents, model.vocab)
        assert np.array_equal(again.logprobs(s), model.logprobs(s))
    assert sorted(os.listdir(tmp_path)) == sorted(f"{m}.npz" for m in KN_METHODS)  # no temp files left
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    with pytest.raises(ModelFileError, match="bad.npz"):
        load_model(bad)
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ModelFileError, match="__header__"):
        load_model(tmp_path / "other.npz")


def test_interrupted_save_leaves_nothing(tmp_path, monkeypatch):
    model = train([["a", "b"], ["b", "a"]], order=2)
    target = tmp_path / "m.npz"

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", boom)
    with pytest.raises(KeyboardInterrupt):
        model.save(target)
    assert os.listdir(tmp_path) == []


def test_oov_and_unk_handling():
    sents = [["a", "b", "a"], ["c", "a"], ["a", "b", "x"]]
    model = train(sents, order=2, method="int-mkn", min_count=2)  # b (2x) stays, c and x become <unk>
    assert model.vocab.words == ["<unk>", "<s>", "</s>", "a", "b"]
    ev = model.evaluate([["a", "zzz", "c"]])
    assert ev.oov == 2 and ev.tokens == 4
    p_unk = model.prob("<unk>", ["a"])
    assert model.prob("zzz", ["a"]) == p_unk > 0
    assert math.isclose(ev.logprob, model.sentence_logprob(["a", "<unk>", "<unk>"]))
    with pytest.raises(ValueError):
        train(sents, method="nope")
    assert issubclass(LMTextError, InputError)


def _kenlm_bin():
    from pathlib import Path

    env = os.environ.get("PLGRAPH_KENLM")
    from plgraph.files.cache import cache_dir

    folder = Path(env) if env else cache_dir("kenlm", "kenlm-0.3.0", "build", "bin")
    return folder if all((folder / b).exists() for b in ("lmplz", "query")) else None


@pytest.mark.slow
@pytest.mark.parametrize("order", [2, 3, 4, 5])
def test_int_mkn_equals_kenlm_on_ptb(tmp_path, order):
    """Against a KenLM built by `make bench-lm` (or PLGRAPH_KENLM=DIR); skipped without one."""
    import re
    import subprocess

    kenlm = _kenlm_bin()
    if kenlm is None:
        pytest.skip("no KenLM binaries: run `make bench-lm` (builds them) or set PLGRAPH_KENLM=DIR")
    corpus_or_skip("lm-ptb")
    from plgraph.lm.corpora import lm_corpus

    c = lm_corpus("ptb")
    files = {}
    for split in ("train", "test"):  # lmplz rejects a literal <unk>: both toolkits see UNKTOK
        files[split] = tmp_path / f"{split}.txt"
        files[split].write_text(re.sub(r"(?<!\S)<unk>(?!\S)", "UNKTOK", c.split(split).read_text()))
    arpa = tmp_path / "k.arpa"
    with open(files["train"], "rb") as fin, open(arpa, "wb") as fout:
        subprocess.run([str(kenlm / "lmplz"), "-o", str(order), "-S", "10%", "-T", str(tmp_path)], stdin=fin,
                       stdout=fout, stderr=subprocess.DEVNULL, check=True)
    with open(files["test"], "rb") as fin:
        out = subprocess.run([str(kenlm / "query"), "-v", "summary", str(arpa)], stdin=fin, capture_output=True,
                             check=True).stdout.decode()
    kenlm_ppl = float(re.search(r"Perplexity including OOVs:\s*([0-9.]+)", out).group(1))
    ours = train(files["train"], order=order, method="int-mkn").evaluate(files["test"]).perplexity
    assert ours == pytest.approx(kenlm_ppl, rel=1e-5)
