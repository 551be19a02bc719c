"""The coarse passes: normalisation, classifier kernels against plain-Python
decoding, span max-marginals against brute force, pruning semantics, and a small
trained pipeline end to end (save, load, prune, stats, CLI)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import naive
from plgraph.learn import make_learner
from plgraph.pruners import _kernels as K
from plgraph.pruners._chart import span_max_marginals
from plgraph.pruners.classifiers import SpineClassifier, TraceClassifier, encode
from plgraph.pruners.data import Vocabulary, WordNormaliser, sentence_data, shape
from plgraph.pruners.model import keep_threshold, trace_keep


def test_word_normalisation():
    assert shape("1,234.5") == "0,000.0" and shape("IBM") == "ibm" and shape("Ibm") == "Ibm"
    words = ["running"] * 5 + ["jumping"] * 5 + ["the"] * 20 + ["zebra"]
    norm = WordNormaliser.fit(words, min_count=4)
    assert norm("the") == "the" and norm("walking") == "_ing" and norm("zebra") == "_UNK"
    assert WordNormaliser.from_json(norm.to_json())("walking") == "_ing"
    # the reference's 100 occurrences in 950k tokens, scaled to the data
    assert WordNormaliser.fit(["a"] * 95_002).min_count == 10


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 5), st.integers(0, 10_000))
def test_span_max_marginals_match_brute_force(n, seed):
    S = np.random.default_rng(seed).normal(size=(n + 1, n + 1)).round(2)
    arc, cell, best = span_max_marginals(S)
    a2, c2, b2 = naive.span_max_marginals(S)
    assert best == pytest.approx(b2)
    for h in range(n + 1):
        for d in range(1, n + 1):
            if h != d:
                assert arc[h, d] == pytest.approx(a2.get((h, d), -np.inf))
    for s in range(n + 1):
        for t in range(s + 1, n + 1):
            assert cell[s, t] == pytest.approx(c2.get((s, t), -np.inf))


@pytest.fixture(scope="module")
def small(sample_dir):
    import plgraph

    train = [sentence_data(s.graph) for s in plgraph.corpus("train").sentences()[:200]]
    dev = [sentence_data(s.graph) for s in plgraph.corpus("dev").sentences()[:40]]
    norm = WordNormaliser.fit([w for s in train for w in s.words])
    tags = Vocabulary([t for s in train for t in s.tags], unk="<UNK>").freeze()
    return train, dev, norm, tags


def _python_keys(enc, s, c, p, none_class):
    base, n = enc.span(s)
    out = np.empty(K.MAX_PAIR_KEYS, np.uint64)
    m = K.pair_keys(enc.wh, enc.th, base, n, c, p, none_class, out)
    return [int(k) for k in out[:m]]


def test_trace_batch_matches_plain_python_decoding(small):
    train, _, norm, tags = small
    enc = encode(train, norm, tags)
    clf = TraceClassifier.build(train, tags, bits=16)
    gold = clf.gold_arrays(train)
    rng = np.random.default_rng(1)
    lrn = make_learner("adagrad", clf.n_weights, eta=0.1, C=0.0, reg=None)
    lrn.w[:] = rng.normal(scale=0.05, size=clf.n_weights)
    batch = np.array([3, 17], np.int64)
    grad = clf.batch_gradient(lrn, enc, gold, batch)
    got = {}
    for i, v in zip(grad.idx.tolist(), grad.val.tolist()):
        got[i] = got.get(i, 0.0) + v
    expected = {}
    loss = 0
    windex = lambda k, lab: int(K.windex(np.uint64(k), lab, clf.mask))  # noqa: E731
    cand = np.empty(len(clf.labels), np.int64)
    for s in batch:
        base, n = enc.span(int(s))
        gl = {(c, p): clf.labels.get(t) for (c, p), t in train[s].traces.items()}
        for c in range(n):
            for p in range(n):
                if c == p:
                    continue
                nc = K.trace_candidates(enc.tid, base, n, c, p, clf.allowed, cand)
                g = gl.get((c, p), 0)
                if nc == 1 and g == 0:
                    continue
                keys = {lab: _python_keys(enc, s, c, p, lab == 0) for lab in list(cand[:nc]) + [g]}
                pred, gr = naive.multiclass_decode(keys, lrn.w, windex, list(cand[:nc]), g, 1.0)
                loss += pred != g
                for i, v in gr.items():
                    expected[i] = expected.get(i, 0.0) + v
    got = {i: v for i, v in got.items() if v != 0.0}
    expected = {i: v for i, v in expected.items() if v != 0.0}
    assert got == expected and grad.loss == loss


def test_spine_batch_matches_plain_python_decoding(small):
    train, _, norm, tags = small
    enc = encode(train, norm, tags)
    clf = SpineClassifier.build(train, tags, bits=16)
    gold = clf.gold_array(train)
    lrn = make_learner("adagrad", clf.n_weights, eta=0.1, C=0.0, reg=None)
    lrn.w[:] = np.random.default_rng(2).normal(scale=0.05, size=clf.n_weights)
    batch = np.array([5], np.int64)
    grad = clf.batch_gradient(lrn, enc, gold, batch)
    got = {}
    for i, v in zip(grad.idx.tolist(), grad.val.tolist()):
        got[i] = got.get(i, 0.0) + v
    base, n = enc.span(5)
    expected = {}
    windex = lambda k, lab: int(K.windex(np.uint64(k), lab, clf.mask))  # noqa: E731
    for i in range(n):
        out = np.empty(K.MAX_WORD_KEYS, np.uint64)
        m = K.word_keys(enc.wh, enc.th, base, n, i, out)
        cands = list(clf.candidates(enc, 5)[i])
        keys = {lab: [int(k) for k in out[:m]] for lab in cands + [int(gold[base + i])]}
        _, gr = naive.multiclass_decode(keys, lrn.w, windex, cands, int(gold[base + i]), 1.0)
        for k, v in gr.items():
            expected[k] = expected.get(k, 0.0) + v
    assert {i: v for i, v in got.items() if v} == {i: v for i, v in expected.items() if v}


def test_pruning_semantics():
    mm = np.array([[-np.inf, 1.0, 4.0], [-np.inf, -np.inf, 3.0], [-np.inf, 2.0, -np.inf]])
    assert keep_threshold(mm, 4.0, 0.5) == pytest.approx(2.5)     # min 1, max 4
    scores = np.full((3, 3, 3), -np.inf)
    scores[0, 1] = [0.0, 2.0, -1.0]
    scores[1, 0] = [0.0, 0.5, -np.inf]
    scores[2, 1] = [0.0, 1.0, 3.0]
    from plgraph.pruners.classifiers import softmax_rows

    probs = softmax_rows(scores)
    keep = trace_keep(probs, scores, prob=0.05, rank=0.5)
    # 5 trace candidates, the top half (3) by score: 3.0, 2.0, 1.0; all have probability > 0.05
    assert sorted(zip(*np.nonzero(keep))) == [(0, 1, 1), (2, 1, 1), (2, 1, 2)]
    assert not keep[..., 0].any()


def test_small_pipeline_end_to_end(tmp_path, small_ptb):
    import plgraph
    from plgraph.cli import main
    from plgraph.pruners import PrunerConfig, Pruners, pruning_stats, train_pruners

    train = plgraph.corpus("train", ptb=small_ptb).graphs()[:80]      # the sample's first 80 (conftest)
    dev = plgraph.corpus("dev").graphs()[:25]
    cfg = PrunerConfig(spine_epochs=2, trace_epochs=2, arc_epochs=2, trace_bits=16, spine_bits=16)
    pr = train_pruners(train, dev, tmp_path / "m", cfg)
    curves = json.loads((tmp_path / "m" / "curves.json").read_text())
    assert [(r["model"], r["epoch"]) for r in curves] == [("spine", 1), ("spine", 2), ("trace", 1), ("trace", 2),
                                                           ("arc", 1), ("arc", 2)]
    assert (tmp_path / "m" / "curves.csv").read_text().startswith("model,epoch,")
    loaded = Pruners.load(tmp_path / "m")
    assert loaded.thresholds == pr.thresholds
    # the conversion options of the corpus (its defaults) are recorded in both model folders
    conversion = {"heads": "jkk1", "null_reversal": True, "gapping_shift": False}
    assert json.loads((tmp_path / "m" / "pruners.json").read_text())["conversion"] == conversion
    assert json.loads((tmp_path / "m" / "arc" / "model.json").read_text())["info"]["conversion"] == conversion
    assert loaded.conversion == pr.conversion == conversion
    doc = pruning_stats(loaded, dev)
    assert doc["edges_gold_recall_pct"] >= 99.0          # tuned on these dev sentences
    assert doc["spines_reachable_recall_pct"] >= 99.5
    assert 0 < doc["cells_kept_pct"] <= 100 and 0 < doc["edges_kept_pct"] < doc["edge_pairs_kept_pct"]
    # the seed's definition: kept pairs x their structural EITHER labels over sum n^2 x all labels
    from plgraph.parser.scoring.labels import LabelVocab

    vocab = LabelVocab.from_graphs(train)
    seed = pruning_stats(loaded, dev, label_vocab=vocab)
    counts = [vocab.candidate_counts(g.tags, kind=0) for g in dev]
    lo = min(c[1:, :][~np.eye(len(c) - 1, len(c), 1, dtype=bool)].min() for c in counts)
    hi = max(c.max() for c in counts)
    pairs = seed["edge_pairs_kept_pct"]
    assert pairs * lo / len(vocab) - 1e-3 <= seed["edges_kept_seed_pct"] <= pairs * hi / len(vocab) + 1e-3
    assert seed["edge_labels_seed"] == len(vocab) and seed["edges_kept_pct"] == doc["edges_kept_pct"]
    p = loaded.prune(dev[0])
    n = len(dev[0].words)
    assert p.cells.shape == (n + 1, n + 1) and len(p.spines) == n
    assert set(p.arcs[:, 0]) <= set(range(1, n + 1)) and (p.traces[:, 2] > 0).all()
    # the arc pass scores from the token arrays as from the CoNLL rows it was trained on,
    # and its per-label table's max is the best-label score
    from plgraph.pruners.arcpass import dep_sentence
    from plgraph.pruners.data import sentence_data

    sds = [sentence_data(g) for g in dev[:6]]
    enc = loaded.arc.encode(sds, loaded.normaliser)
    for k, sd in enumerate(sds):
        rows = dep_sentence(sd, loaded.normaliser, with_tree=False)
        S = loaded.arc.scores(rows)
        assert np.array_equal(loaded.arc.scores(enc, k), S)
        T = loaded.arc.label_scores(enc, k)
        m = len(sd.words)
        off = ~np.eye(m + 1, dtype=bool)
        off[:, 0] = False
        assert np.array_equal(T.max(-1)[off], S[off])
        assert np.array_equal(np.isfinite(T).sum(-1)[off], loaded.arc.allowed_label_counts(rows)[0][off])
    # resuming after the last epoch trains nothing more and gives the same thresholds
    again = train_pruners(train, dev, tmp_path / "m", cfg, resume=True)
    assert again.thresholds == pr.thresholds
    # ... but not from graphs of another conversion (the first checkpoint read refuses, naming both)
    from plgraph.convert import ConversionOptions
    from plgraph.errors import InputError

    other = plgraph.corpus("train", ptb=small_ptb, options=ConversionOptions(gapping_shift=True)).graphs()[:80]
    with pytest.raises(InputError, match=r"cannot resume the spine classifier .*'gapping_shift': True\} "
                                         r"\(checkpoint: \{.*'gapping_shift': False\}\)"):
        train_pruners(other, dev, tmp_path / "m", cfg, resume=True)
    # the CLI reads the same folder
    assert main(["pruners", "stats", "--model-dir", str(tmp_path / "m"), "--split", "dev",
                 "--json", str(tmp_path / "s.json")]) == 0
    assert {"edges_kept_pct", "edges_kept_seed_pct", "edges_gold_recall_pct", "cells_kept_pct", "traces_kept_pct",
            "traces_gold_recall_pct", "spines_kept_pct", "spines_gold_recall_pct"} <= set(
        json.loads((tmp_path / "s.json").read_text()))


def test_classifier_training_is_deterministic(small):
    from plgraph.learn import run_epoch

    train, _, norm, tags = small
    enc = encode(train[:60], norm, tags)

    def fit(seed):
        clf = SpineClassifier.build(train[:60], tags, bits=15)
        gold = clf.gold_array(train[:60])
        lrn = make_learner("adagrad", clf.n_weights, eta=0.05, C=1e-5, reg="l2")
        run_epoch(lrn, 60, lambda b: clf.batch_gradient(lrn, enc, gold, b), batch_size=10,
                  rng=np.random.default_rng(seed), progress=False)
        return lrn.final_weights(np.float64)

    a, b, c = fit(0), fit(0), fit(1)
    assert np.array_equal(a, b) and np.count_nonzero(a) > 0
    assert not np.array_equal(a, c)
