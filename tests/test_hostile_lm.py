"""Hostile input for the language models: no tracebacks, no wrong numbers.

* a missing, empty, truncated, bit-flipped or foreign model file, a bad header, another
  format version, missing or mis-shaped arrays, a header vocabulary that does not fit the
  arrays: one :class:`~plgraph.errors.ModelFileError` naming the file and what is wrong;
* a UTF-8 byte order mark is not part of the first word;
* ``lm train``: an empty corpus is a clear error, a PLRE ``--term`` above ``--order`` is
  an error (not silently dropped), an unwritable ``--model`` is reported before training;
* a one-sentence corpus gives a valid ARPA file (counts match, no empty levels);
* ``lm export-arpa`` streams into a FIFO (which stays a FIFO) and ``/dev/null``;
* fuzz: the LM text reader and the model loader raise only plgraph's errors.
"""
from __future__ import annotations

import io
import json
import os
import re
import stat
import threading
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import naive
from plgraph.cli import main
from plgraph.errors import InputError, ModelFileError, PlgraphError
from plgraph.lm import LMTextError, load_model, parse_sentences, read_sentences, train, write_arpa
from plgraph.lm.io import FORMAT_VERSION

pytestmark = pytest.mark.timeout(60)

SENTS = [s.split() for s in ("the cat sat", "the dog sat", "a cat ran", "the cat ran away")]
TEST = "the cat sat\na dog ran home\n"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """An int-mkn and a PLRE order-3 model file, and their bytes."""
    folder = tmp_path_factory.mktemp("models")
    out = {}
    for method in ("int-mkn", "plre"):
        path = folder / f"{method}.npz"
        train(SENTS, order=3, method=method, progress=False).save(path)
        out[method] = path
    return out


def rewrite(src, dst, change):
    """Copy the model archive ``src`` to ``dst`` after ``change(header, arrays)`` (in place)."""
    with np.load(src) as npz:
        arrays = {k: npz[k] for k in npz.files}
    header = json.loads(arrays["__header__"].tobytes().decode())
    change(header, arrays)
    raw = header.pop("__raw__", None)
    blob = raw if raw is not None else json.dumps(header).encode()
    arrays["__header__"] = np.frombuffer(blob, np.uint8)
    arrays = {k: v for k, v in arrays.items() if v is not None}
    np.savez(dst, **arrays)
    return dst


def eval_fails(capsys, tmp_path, model, *expected):
    """``lm eval`` with ``model``: exit 2, one line ``plgraph lm: error: MODEL: ...``."""
    text = tmp_path / "test.txt"
    text.write_text(TEST)
    assert main(["lm", "eval", "--model", str(model), str(text)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"plgraph lm: error: {model}: "), err
    assert "Traceback" not in err and err.count("\n") == 1
    for part in expected:
        assert part in err, err
    return err


# ---------------------------------------------------------------------------------------------
# model files

def test_missing_empty_and_foreign_files(tmp_path, capsys, models):
    eval_fails(capsys, tmp_path, tmp_path / "nope.npz", "cannot read the model file (No such file or directory)")
    (tmp_path / "empty.npz").write_bytes(b"")
    eval_fails(capsys, tmp_path, tmp_path / "empty.npz", "empty file, not a plgraph language model")
    (tmp_path / "dir.npz").mkdir()
    eval_fails(capsys, tmp_path, tmp_path / "dir.npz", "is a directory, not a model file")
    (tmp_path / "text.npz").write_text("hello\n")
    eval_fails(capsys, tmp_path, tmp_path / "text.npz", "not a plgraph language model (.npz archive)")
    np.save(tmp_path / "one.npy", np.zeros(3))
    eval_fails(capsys, tmp_path, tmp_path / "one.npy", "a single numpy array (.npy)")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    eval_fails(capsys, tmp_path, tmp_path / "other.npz", "no __header__ in the archive")
    with zipfile.ZipFile(tmp_path / "zip.npz", "w") as zf:
        zf.writestr("readme.txt", "not numpy")
    eval_fails(capsys, tmp_path, tmp_path / "zip.npz", "no __header__")


@pytest.mark.parametrize("method", ["int-mkn", "plre"])
def test_truncated_model_files(tmp_path, capsys, models, method):
    data = models[method].read_bytes()
    for cut in (1, 10, 100, len(data) // 2, len(data) - 23, len(data) - 1):
        bad = tmp_path / f"cut{cut}.npz"
        bad.write_bytes(data[:cut])
        eval_fails(capsys, tmp_path, bad, "not a plgraph language model (.npz archive), or a truncated one")


@pytest.mark.parametrize("method", ["int-mkn", "plre"])
def test_bit_flips_in_arrays_are_caught(tmp_path, capsys, models, method):
    data = models[method].read_bytes()
    with zipfile.ZipFile(models[method]) as zf:
        infos = zf.infolist()
    for info in infos:  # one flip in the data of every member (stored uncompressed)
        at = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.file_size // 2
        flipped = bytearray(data)
        flipped[at] ^= 0x08
        bad = tmp_path / "flip.npz"
        bad.write_bytes(bytes(flipped))
        name = info.filename[:-4]
        eval_fails(capsys, tmp_path, bad, f"corrupt model file: array {name!r} cannot be read", "Bad CRC-32")


def _set(key, value):
    def change(header, arrays):
        header[key] = value
    return change


def _drop(name):
    def change(header, arrays):
        arrays[name] = None
    return change


def _array(name, fn):
    def change(header, arrays):
        arrays[name] = fn(arrays[name])
    return change


def _raw_header(blob):
    def change(header, arrays):
        header["__raw__"] = blob
    return change


HEADER_CASES = [
    ("not JSON", _raw_header(b"{nope"), "unreadable model header (JSONDecodeError"),
    ("not UTF-8", _raw_header(b"\xff\xfe{}"), "unreadable model header (UnicodeDecodeError"),
    ("a list", _raw_header(b"[1, 2]"), "the model header is a JSON list, not an object"),
    ("other format", _set("format", "kenlm"), "not a plgraph language model (format 'kenlm')"),
    ("newer version", _set("format_version", FORMAT_VERSION + 1),
     f"model format version {FORMAT_VERSION + 1} was written by a newer plgraph (this one reads version "
     f"{FORMAT_VERSION}): upgrade plgraph"),
    ("older version", _set("format_version", 0), "model format version 0 is not supported"),
    ("version text", _set("format_version", "1"), "model format version '1' is not a version number"),
    ("method", _set("method", "lstm"), "inconsistent model file: unknown method 'lstm'"),
    ("order", _set("order", 9), "inconsistent model file: order 9 is not 1..5"),
    ("order type", _set("order", "3"), "order '3' is not 1..5"),
    ("vocabulary type", _set("vocabulary", "abc"), "the header's vocabulary is not a list of words"),
]

ARRAY_CASES = [
    ("missing logp", _drop("logp_2"), "inconsistent model file: array 'logp_2' is missing"),
    ("missing words", _drop("words_3"), "array 'words_3' is missing"),
    ("2-D", _array("logp_1", lambda a: a.reshape(1, -1)), "array 'logp_1' has shape (1, "),
    ("short logp", _array("logp_2", lambda a: a[:-1]), "array 'logp_2' has "),
    ("float ids", _array("words_2", lambda a: a.astype(np.float64)), "array 'words_2' holds float64, not integers"),
    ("NaN", _array("logbow_1", lambda a: np.where(np.arange(len(a)) == 3, np.nan, a)), "array 'logbow_1' holds NaN"),
    ("positive log", _array("logp_2", lambda a: a + 5.0), "logp_2 holds log-probabilities above 0"),
    ("word id", _array("words_2", lambda a: np.where(np.arange(len(a)) == 0, 10_000, a)),
     "words_2 holds word ids outside the vocabulary"),
    ("unsorted", _array("words_2", lambda a: a[::-1].copy()), "words_2 is not sorted within each context"),
    ("offsets", _array("offsets_3", lambda a: a[::-1].copy()), "array 'offsets_3' is not a pointer array"),
]


@pytest.mark.parametrize("what, change, message", HEADER_CASES + ARRAY_CASES,
                         ids=[c[0] for c in HEADER_CASES + ARRAY_CASES])
def test_bad_headers_and_arrays(tmp_path, capsys, models, what, change, message):
    bad = rewrite(models["int-mkn"], tmp_path / "bad.npz", change)
    eval_fails(capsys, tmp_path, bad, message)
    with pytest.raises(ModelFileError) as info:
        load_model(bad)
    assert info.value.source == str(bad) and isinstance(info.value, PlgraphError)


def _vocab_plus_one(header, arrays):
    header["vocabulary"] = header["vocabulary"] + ["zebra"]


def _vocab_swapped(header, arrays):
    v = header["vocabulary"]
    header["vocabulary"] = v[:3] + v[4:] + v[3:4]  # same words, other ids: would score other words


def _vocab_and_counts(header, arrays):
    header["vocabulary"] = header["vocabulary"] + ["zebra"]
    arrays["vocab_counts"] = np.r_[arrays["vocab_counts"], 1]


def test_header_vocabulary_must_fit_the_arrays(tmp_path, capsys, models):
    bad = rewrite(models["int-mkn"], tmp_path / "v1.npz", _vocab_plus_one)
    eval_fails(capsys, tmp_path, bad, "the header's vocabulary has 11 words but the arrays are for 10 (vocab_counts)")
    bad = rewrite(models["int-mkn"], tmp_path / "v2.npz", _vocab_and_counts)
    eval_fails(capsys, tmp_path, bad, "array 'words_1' has 10 entries, expected 11")
    bad = rewrite(models["plre"], tmp_path / "v3.npz", _vocab_and_counts)
    eval_fails(capsys, tmp_path, bad, "array 'words_1' has 10 entries, expected 11")
    bad = rewrite(models["int-mkn"], tmp_path / "v4.npz", _set("ngrams", [10, 3, 2]))
    eval_fails(capsys, tmp_path, bad, "the header counts n-grams [10, 3, 2] but the arrays hold [10, ")
    bad = rewrite(models["int-mkn"], tmp_path / "v5.npz", _vocab_swapped)
    eval_fails(capsys, tmp_path, bad, "the vocabulary is not in plgraph's order")
    ok = rewrite(models["int-mkn"], tmp_path / "ok.npz", lambda h, a: None)
    assert load_model(ok).evaluate(SENTS).perplexity == load_model(models["int-mkn"]).evaluate(SENTS).perplexity


PLRE_CASES = [
    ("u_ptr", _array("term0_u_ptr", lambda a: a * 2), "array 'term0_u_ptr' is not a pointer array"),
    ("w short", _array("term1_w", lambda a: a[:-1]), "array 'term1_w_ptr' is not a pointer array"),
    ("gam", _array("term0_gam", lambda a: -a), "array 'term0_gam' holds negative or infinite weights"),
    ("t0", _drop("t0_2"), "array 't0_2' is missing"),
    ("terms meta", _set("fitted_terms", [{"level": 7, "power": 0.5, "rank": 0.1, "kappa": 1}]),
     "fitted term 0 has level 7, not 2..3"),
    ("terms type", _set("fitted_terms", "x"), "fitted_terms is not a list of objects"),
    ("options", _set("plre", {"terms": [], "discount": "xx", "iterations": 1, "seed": 0}),
     "bad PLRE options in the header (ValueError: discount must be 'kn' or 'mkn')"),
]


@pytest.mark.parametrize("what, change, message", PLRE_CASES, ids=[c[0] for c in PLRE_CASES])
def test_bad_plre_arrays(tmp_path, capsys, models, what, change, message):
    bad = rewrite(models["plre"], tmp_path / "bad.npz", change)
    eval_fails(capsys, tmp_path, bad, message)


def test_plre_slice_ranks_must_agree(tmp_path, capsys, models):
    """A row of U wider than the column of W it meets would make the kernel read past W."""
    def widen(header, arrays):
        u_ptr, u = arrays["term1_u_ptr"], arrays["term1_u"]
        i = int(np.flatnonzero(np.diff(u_ptr))[0])
        arrays["term1_u"] = np.insert(u, u_ptr[i + 1], 0.5)
        arrays["term1_u_ptr"] = np.r_[u_ptr[:i + 1], u_ptr[i + 1:] + 1]
    bad = rewrite(models["plre"], tmp_path / "wide.npz", widen)
    eval_fails(capsys, tmp_path, bad, "fitted term 1: the rank of a slice differs between U and W")


@pytest.mark.timeout(120)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_corrupted_model_files(tmp_path, models, data):
    """Any truncation or byte change: the file loads with its own numbers, or ModelFileError."""
    method = data.draw(st.sampled_from(["int-mkn", "plre"]))
    raw = bytearray(models[method].read_bytes())
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    else:
        for _ in range(data.draw(st.integers(1, 4))):
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    path = tmp_path / "f.npz"
    path.write_bytes(bytes(raw))
    try:
        model = load_model(path)
    except ModelFileError as err:
        assert err.source == str(path)
        return
    reference = load_model(models[method])
    assert model.evaluate(SENTS).perplexity == reference.evaluate(SENTS).perplexity


# ---------------------------------------------------------------------------------------------
# LM text

def test_bom_is_not_part_of_the_first_word(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfthe cat sat\nthe dog\n")
    assert read_sentences(path) == [["the", "cat", "sat"], ["the", "dog"]]
    model = train(path, order=2)
    assert "\ufeffthe" not in model.vocab.index and model.vocab.counts[model.vocab.id("the")] == 2
    assert parse_sentences("\ufeffa b") == [["a", "b"]]
    path.write_bytes(b"\xef\xbb\xbf\n\n")
    with pytest.raises(LMTextError, match="no tokens in the text"):
        read_sentences(path)


def test_empty_corpus_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(InputError, match="^<sentences>: no sentences to train on$"):
        train([])
    with pytest.raises(LMTextError, match=r"<sentences>, sentence 1: reserved word </s>"):
        train([["a"], ["b", "</s>"]])
    empty = tmp_path / "empty.txt"
    empty.write_text(" \n\n")
    assert main(["lm", "train", str(empty), "--model", str(tmp_path / "m.npz")]) == 2
    assert capsys.readouterr().err == f"plgraph lm: error: {empty}: no tokens in the text\n"
    assert not (tmp_path / "m.npz").exists()


def test_plre_term_above_the_order_is_an_error(tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_text("a b c\nb c a\n")
    model = tmp_path / "m.npz"
    assert main(["lm", "train", "--method", "plre", "--order", "2", "--term", "3:0.5:0.1", str(text),
                 "--model", str(model)]) == 2
    assert capsys.readouterr().err == ("plgraph lm: error: --term 3:0.5:0.1 is a level-3 term but the model has "
                                       "--order 2: use --order 3 or drop the term\n")
    assert not model.exists()
    assert main(["lm", "train", "--method", "plre", "--order", "3", "--term", "3:0.5:0.1", "--iterations", "2",
                 "--restarts", "1", str(text), "--model", str(model), "--no-progress"]) == 0


def test_unwritable_model_is_reported_before_training(tmp_path, capsys, monkeypatch):
    import sys

    lm_train = sys.modules["plgraph.lm.train"]  # the package's `train` attribute is the function
    calls = []
    monkeypatch.setattr(lm_train, "train", lambda *a, **k: calls.append(1))
    text = tmp_path / "t.txt"
    text.write_text("a b c\n")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for model, why in ((blocker / "m.npz", "not a directory"), (tmp_path, "it is a directory")):
        assert main(["lm", "train", str(text), "--model", str(model)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"plgraph lm: error: cannot write {model}: ") and why in err.lower()
    assert calls == []


# ---------------------------------------------------------------------------------------------
# ARPA

def arpa_sections(text: str) -> tuple[dict, dict]:
    """Declared counts and the entries of each section of an ARPA text (strict layout)."""
    lines = text.split("\n")
    assert lines[0] == "\\data\\" and text.endswith("\n\\end\\\n")
    declared, i = {}, 1
    while lines[i]:
        m = re.fullmatch(r"ngram (\d+)=(\d+)", lines[i])
        assert m, lines[i]
        declared[int(m.group(1))] = int(m.group(2))
        i += 1
    entries, k = {}, None
    for line in lines[i:]:
        if re.fullmatch(r"\\\d+-grams:", line):
            k = int(line[1:line.index("-")])
            entries[k] = []
        elif line and line != "\\end\\":
            entries[k].append(line.split("\t"))
    return declared, entries


@pytest.mark.parametrize("sentence", [["a"], ["a", "b"], ["a", "a", "a"], ["<unk>", "b"]])
@pytest.mark.parametrize("method", ["int-mkn", "bo-kn"])
@pytest.mark.parametrize("order", [2, 3, 5])
def test_one_sentence_corpus_gives_a_valid_arpa_file(tmp_path, sentence, method, order):
    model = train([sentence], order=order, method=method)
    path = tmp_path / "one.arpa"
    sizes = write_arpa(model, path)
    declared, entries = arpa_sections(path.read_text())
    assert declared == sizes == {k: len(v) for k, v in entries.items()}
    assert list(declared) == list(range(1, len(declared) + 1)) and all(n > 0 for n in declared.values())
    top = len(declared)
    assert top == min(order, len(sentence) + 2)
    for k, rows in entries.items():
        for r in rows:
            assert len(r) == (3 if k < top else 2)
            assert all(np.isfinite(float(x)) for x in r[:1] + r[2:])
            words = tuple(r[1].split(" "))
            assert len(words) == k
            if k > 1:  # every n-gram's prefix and suffix are entries of the level below
                below = {tuple(x[1].split(" ")) for x in entries[k - 1]}
                assert words[:-1] in below and words[1:] in below
    tables = naive.read_arpa(path)
    words = model.vocab.words
    for ctx in (["<s>"], ["<s>", sentence[0]], sentence[-2:]):
        ps = [naive.arpa_prob(tables, w, ctx) for w in words if w != "<s>"]
        assert sum(ps) == pytest.approx(1.0, abs=1e-8)
        for w, p in zip([w for w in words if w != "<s>"], ps):
            assert p == pytest.approx(model.prob(w, ctx), rel=1e-8)


def test_export_arpa_says_when_empty_levels_are_left_out(tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_text("hello\n")
    model, arpa = tmp_path / "m.npz", tmp_path / "m.arpa"
    assert main(["lm", "train", "--order", "5", str(text), "--model", str(model)]) == 0
    capsys.readouterr()
    assert main(["lm", "export-arpa", "--model", str(model), str(arpa)]) == 0
    assert capsys.readouterr().out == (f"wrote {arpa}: 4 1-grams, 2 2-grams, 1 3-grams (order-5 model whose "
                                       "training text has no 4-grams: written as order 3, the same probabilities)\n")
    assert "ngram 4" not in arpa.read_text()


def test_export_arpa_streams_into_a_fifo_and_dev_null(tmp_path, capsys, models):
    model = tmp_path / "m.npz"
    train(SENTS, order=2, method="int-kn").save(model)
    fifo = tmp_path / "pipe.arpa"
    os.mkfifo(fifo)
    got = io.BytesIO()

    def reader():
        with open(fifo, "rb") as fh:
            got.write(fh.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    assert main(["lm", "export-arpa", "--model", str(model), str(fifo)]) == 0
    thread.join(timeout=30)
    assert not thread.is_alive()
    text = got.getvalue().decode()
    declared, entries = arpa_sections(text)
    assert declared == {1: 10, 2: len(entries[2])}
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-")] == []
    assert main(["lm", "export-arpa", "--model", str(model), os.devnull]) == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert "wrote /dev/null: 10 1-grams" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# fuzz: the LM text reader

WORDS = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8).filter(
    lambda w: w.split() == [w] and w not in ("<s>", "</s>"))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(WORDS, min_size=1, max_size=6), min_size=1, max_size=6), st.booleans(), st.booleans())
def test_fuzz_valid_text_reads_back_word_for_word(sentences, bom, crlf):
    newline = "\r\n" if crlf else "\n"
    text = ("\ufeff" if bom else "") + newline.join(" ".join(s) for s in sentences) + newline
    assert parse_sentences(text.encode("utf-8"), "t.txt") == sentences
    assert parse_sentences(text, "t.txt") == sentences


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.binary(max_size=300),
                 st.text(max_size=300).map(lambda t: t.encode("utf-8")),
                 st.lists(st.sampled_from(["a", " ", "\n", "<s>", "</s>", "\ufeff", "\u00b2", "\r", "\x85", "\u2028",
                                           "\xff", "\xc3", "\t", "<unk>"]), max_size=40)
                 .map(lambda p: "".join(p).encode("utf-8", "surrogateescape"))))
def test_fuzz_hostile_text_raises_only_lm_text_errors(raw):
    try:
        sentences = parse_sentences(raw, "h.txt")
    except LMTextError as err:
        assert err.source == "h.txt"
        return
    assert sentences and all(s and all(w and w.split() == [w] for w in s) for s in sentences)
    text = raw.decode("utf-8")
    text = text[1:] if text.startswith("\ufeff") else text  # only a leading BOM is dropped
    assert sum(len(s) for s in sentences) == len(text.split())
