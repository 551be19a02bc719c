"""The dependency parsing model: scores equal a direct feature enumeration, subgradients
equal score differences, training works, files round-trip, training resumes exactly,
and the command line."""
from __future__ import annotations

import json

import numpy as np
import pytest

import naive
from plgraph.cli import main
from plgraph.dep import _kernels as KN
from plgraph.dep.conll import read_conll, write_conll
from plgraph.dep.evaluate import evaluate
from plgraph.dep.features import NONE_SIB
from plgraph.dep.model import DepConfig, DepModel, kernel_sentences
from plgraph.dep.train import _BatchDecoder, train
from plgraph.learn import make_learner
from plgraph.learn._kernels import BLOCK_MASK, BLOCK_SHIFT, label_score, table_lookup, wread_many


def _direct_arc_score(model, enc, i, h, d, label, w):
    """Score of labelled arc (h, d, label) from scratch: every feature key of the arc,
    looked up, summed with the taxonomy definition (no precomputation)."""
    st, tx = model.templates, model.taxonomy
    n = int(enc.n[i])
    r0 = int(enc.row0[i]) + 1
    PH, PD, PX = KN.part_hashes(st.tseed, st.tmpl, enc.atoms, NONE_SIB, r0, n)
    locs = KN._between_locs(enc.atoms, r0, n, st.betw_col)
    keys = np.empty(len(st.head_t) + len(st.dep_t) + len(st.pair_t) + len(st.betw_t) * (n + 1) + 1, np.uint64)
    sent = KN.SentenceParts(r0, n, enc.atoms, PH, PD, PX)
    bufs = KN.ArcKeyBuffers(locs, np.zeros(n + 2, np.int64), keys)
    c, _ = KN.arc_keys(h, d, True, sent, st, bufs, 0)
    acc = np.zeros(1 + tx.K + tx.n_nodes)
    for k in keys[:c]:
        ref = table_lookup(model.btable, k)
        if ref < 0:
            continue
        o, end = ref >> BLOCK_SHIFT, (ref >> BLOCK_SHIFT) + (ref & BLOCK_MASK)
        vals = wread_many(w, np.zeros((0, 2)), np.zeros(0, np.int32), 0, 0.0, 0.0, 0, np.arange(o, end))
        acc[0] += vals[0]
        for kk in range(1, tx.K + 1):
            acc[kk] += vals[kk]
        for e in range(o + tx.K + 1, end):
            node = model.fnode[e]
            acc[1 + tx.K + node] += vals[e - o] - vals[tx.nodelevel[node]]
    return label_score(acc, tx.anc, tx.K, label)


@pytest.fixture(scope="module")
def small_model(ewt_train_small):
    model, enc, _ = DepModel.build(ewt_train_small[:200], DepConfig(order=2, sib_bits=16))
    model.weights[:] = np.random.default_rng(0).normal(size=model.n_weights)
    return model, enc


def test_gold_features_collected_in_chunks_equal_one_pass_over_every_key(ewt_train_small):
    """The feature table and (feature, label) pairs gathered a few sentences at a time
    are those of one pass over every gold key of the corpus: ids in order of first
    occurrence, the distinct pairs observed (the model's weight layout follows)."""
    from plgraph.dep.features import compile_templates
    from plgraph.dep.model import gold_features, kernel_templates
    from plgraph.learn.features import FeatureTable
    from plgraph.learn.labels import label_blocks

    model, enc, _ = DepModel.build(ewt_train_small[:300], DepConfig(order=1))
    tpl = kernel_templates(compile_templates(model.config.templates, model.config.dd), None)
    args = (kernel_sentences(enc), tpl)
    total = KN.gold_feature_keys(*args, True, np.zeros(0, np.uint64), np.zeros(0, np.int64))
    keys, labs = np.empty(total, np.uint64), np.empty(total, np.int64)
    KN.gold_feature_keys(*args, False, keys, labs)
    order = []
    first = {}
    for k in keys.tolist():                 # ids by first occurrence, in plain Python
        if k not in first:
            first[k] = len(order)
            order.append(k)
    pairs = sorted({(first[k], lab) for k, lab in zip(keys.tolist(), labs.tolist())})
    assert len(order) > 1000 and len(pairs) > len(order)
    for chunk in (1, 7, 300, 10_000):
        table, fids, flabs = gold_features(enc, tpl, chunk=chunk)
        assert table.keys().tolist() == order
        assert list(zip(fids.tolist(), flabs.tolist())) == pairs
        np.testing.assert_array_equal(table.table, FeatureTable.from_keys(np.array(order, np.uint64)).table)
    every = label_blocks(np.array([first[k] for k in keys.tolist()]), labs, len(order), model.taxonomy)
    distinct = label_blocks(fids, flabs, len(order), model.taxonomy)
    for a, b in zip(every, distinct):       # the weight layout of every observation = of the distinct pairs
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(model.foff, every[0])
    with pytest.raises(ValueError, match="chunk"):
        gold_features(enc, tpl, chunk=0)


def test_arc_scores_equal_direct_enumeration(small_model, ewt_train_small):
    model, enc = small_model
    w = model.weights.astype(np.float64)
    for i in (0, 3, 7):
        S, LAB, _ = model.arc_scores(ewt_train_small[i])
        n = int(enc.n[i])
        for h in range(n + 1):
            for d in range(1, n + 1):
                if h == d:
                    continue
                got = _direct_arc_score(model, enc, i, h, d, int(LAB[h, d]), w)
                assert S[h, d] == pytest.approx(got, rel=1e-5, abs=1e-4)


def test_label_scores_max_and_argmax_are_the_arc_scores(small_model, ewt_train_small):
    """Per-label scores from the encoded arrays: their max over labels is arc_scores'
    best-label score (bit for bit) and their argmax its label, on real sentences;
    labels outside the arc's candidate class, ROOT as dependent and h = d are -inf;
    a DepSentence and its row of an Encoded batch give the same table."""
    model, enc = small_model
    L = len(model.labels)
    checked = 0
    for i in range(20):
        S, LAB, _ = model.arc_scores(ewt_train_small[i])
        T = model.label_scores(enc, i)
        n = int(enc.n[i])
        assert T.shape == (n + 1, n + 1, L)
        assert np.array_equal(T, model.label_scores(ewt_train_small[i]))
        assert np.isneginf(T[:, 0, :]).all()
        assert np.isneginf(T[np.arange(n + 1), np.arange(n + 1)]).all()
        off = ~np.eye(n + 1, dtype=bool)
        off[:, 0] = False
        assert np.array_equal(T.max(-1)[off], S[off])
        assert np.array_equal(T.argmax(-1)[off], LAB[off])
        finite = np.isfinite(T[off]).sum(-1)
        counts = np.diff(model.lab_off)
        assert finite.max() <= counts.max() and finite.min() >= 1
        checked += int(off.sum())
    assert checked > 1000


def test_label_scores_equal_direct_enumeration_for_every_candidate(small_model, ewt_train_small):
    """Every finite per-label score (not just the best) equals the from-scratch sum of
    the arc's feature weights for that label."""
    model, enc = small_model
    w = model.weights.astype(np.float64)
    i = 2
    T = model.label_scores(ewt_train_small[i])
    n = int(enc.n[i])
    checked = 0
    for h in range(n + 1):
        for d in range(1, n + 1):
            for lab in np.flatnonzero(np.isfinite(T[h, d])):
                assert T[h, d, lab] == pytest.approx(_direct_arc_score(model, enc, i, h, d, int(lab), w),
                                                     rel=1e-5, abs=1e-4)
                checked += 1
    assert checked > n * n


def test_label_scores_root_last_is_a_permutation(small_model, ewt_train_small):
    """root="last": word k at k - 1 and ROOT at n (the chart convention)."""
    model, enc = small_model
    T = model.label_scores(ewt_train_small[5])
    U = model.label_scores(enc, 5, root="last")
    n = int(enc.n[5])
    assert np.array_equal(U[n, :n], T[0, 1:])          # ROOT -> word
    assert np.array_equal(U[:n, :n], T[1:, 1:])        # word -> word
    assert np.isneginf(U[:, n]).all()                  # nothing heads ROOT
    with pytest.raises(IndexError):
        model.label_scores(enc, len(enc))
    with pytest.raises(ValueError):
        model.label_scores(enc, 0, root="middle")


def test_subgradient_is_the_score_difference(small_model):
    """w . (f(prediction) - f(gold)) computed from the kernel's subgradient equals the
    predicted minus the gold tree's score, sibling factors included (order 2)."""
    model, enc = small_model
    lrn = make_learner("perceptron", model.n_weights, average=False, read_dtype=np.float64)
    lrn.w[:] = model.weights
    dec = _BatchDecoder(model, enc, lrn, "hamming")
    checked = 0
    for i in range(12):
        g = dec(np.array([i]))
        if not len(g.idx):
            continue
        n, w0 = int(enc.n[i]), int(enc.word0[i])
        ph = np.r_[-1, dec.pred_heads[w0:w0 + n]]
        pl = dec.pred_labels[w0:w0 + n]
        gh = np.r_[-1, enc.heads[w0:w0 + n]]
        gl = enc.labels[w0:w0 + n]
        S, LAB, SIB = KN.sentence_scores(i, kernel_sentences(enc), *model.kernel_tables(), lrn.w, 2)

        def tree(heads, labels):
            arcs = sum(_direct_arc_score(model, enc, i, heads[d], d, int(labels[d - 1]), lrn.w) for d in
                       range(1, n + 1))
            return arcs + sum(SIB[h, s, d] for h, s, d in naive.siblings(list(heads)))

        assert float(lrn.w[g.idx] @ g.val) == pytest.approx(tree(ph, pl) - tree(gh, gl), rel=1e-6, abs=1e-6)
        checked += 1
    assert checked >= 5


def test_training_learns_and_files_round_trip(ewt_train_small, ewt_dev, tmp_path):
    dev = ewt_dev[:300]
    res = train(ewt_train_small, dev, tmp_path / "m", DepConfig(), epochs=2, threads=1, progress=False)
    assert [r["epoch"] for r in res.history] == [1, 2]
    best = max(res.history, key=lambda r: r["dev_las"])
    # 600 training sentences, 2 epochs: far from the full model, far above chance
    assert best["dev_uas"] > 72 and best["dev_las"] > 66
    files = sorted(p.name for p in (tmp_path / "m").iterdir())
    assert {"model.json", "model.npz", "checkpoint.json", "log.jsonl"} <= set(files)
    with np.load(tmp_path / "m" / "model.npz", allow_pickle=False) as z:   # no pickled objects inside
        assert z["arc_weights"].dtype == np.float32
    loaded = DepModel.load(tmp_path / "m")
    parsed = loaded.parse(dev)
    sc = evaluate(dev, parsed)
    # the saved model is the pruned one: within 0.1 LAS of the best epoch on dev, and smaller
    assert res.pruning["features_after"] <= res.pruning["features_before"] == res.model.n_features + (
        res.pruning["features_before"] - res.pruning["features_after"])
    assert loaded.n_features == res.pruning["features_after"]
    assert sc.las >= best["dev_las"] - 0.1
    if "dev_las" in res.pruning:
        assert sc.las == pytest.approx(res.pruning["dev_las"], abs=0.01)
    assert [p.heads.tolist() for p in res.model.parse(dev)] == [p.heads.tolist() for p in parsed]
    # every output is a single-rooted tree; comments and other columns preserved
    for s, p in zip(dev, parsed):
        assert (p.heads == 0).sum() == 1 and naive.is_tree([-1] + p.heads.tolist())
        assert p.comments == s.comments and [r[:6] for r in p.rows] == [r[:6] for r in s.rows]


def test_resume_equals_uninterrupted_training(ewt_train_small, tmp_path):
    data = ewt_train_small[:150]
    a = train(data, None, tmp_path / "a", DepConfig(), epochs=2, threads=1, progress=False)
    train(data, None, tmp_path / "b", DepConfig(), epochs=1, threads=1, progress=False)
    b = train(data, None, tmp_path / "b", DepConfig(), epochs=2, threads=1, progress=False, resume=True)
    np.testing.assert_array_equal(a.model.weights, b.model.weights)
    assert [r["loss"] for r in a.history] == [r["loss"] for r in b.history]
    assert [r["epoch"] for r in b.history] == [1, 2]


def test_multi_root_and_max_marginals(conll2007_dir):
    sents = read_conll(conll2007_dir / "eus.train")[:300]
    res = train(sents, None, None, DepConfig(), epochs=1, threads=1, progress=False, learner="perceptron")
    model = res.model
    assert model.multi_root
    s = sents[5]
    M, best = model.max_marginals(s)
    S, LAB, _ = model.arc_scores(s)
    from plgraph.dep._eisner import eisner1

    heads, score = eisner1(S, True)
    assert best == pytest.approx(score)
    n = len(s)
    for d in range(1, n + 1):
        assert M[heads[d], d] == pytest.approx(score)
        assert np.max(M[:, d]) == pytest.approx(score)
    # multi-root mode reproduces the several HEAD = 0 words of the training trees
    parsed = model.parse(sents[:100])
    assert sum((p.heads == 0).sum() > 1 for p in parsed) >= 10


def test_cli_train_parse_eval(ewt_train_small, ewt_dev, tmp_path, capsys):
    tr, dv, te = tmp_path / "tr.conllu", tmp_path / "dv.conllu", tmp_path / "te.conllu"
    write_conll(ewt_train_small[:200], tr)
    write_conll(ewt_dev[:60], dv)
    write_conll(ewt_dev[60:120], te)
    m = tmp_path / "model"
    assert main(["dep", "train", "--train", str(tr), "--dev", str(dv), "--model", str(m), "--epochs", "1",
                 "--threads", "1", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "dev_uas=" in err and "plgraph dep train: model in" in err
    out = tmp_path / "pred.conllu"
    assert main(["dep", "parse", "--model", str(m), str(te), "--out", str(out)]) == 0
    assert main(["dep", "eval", str(te), str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(doc) == {"uas", "las", "uas_nopunct", "las_nopunct", "sentences"} and doc["sentences"] == 60
    expected = evaluate(read_conll(te), read_conll(out)).as_dict()
    assert doc == expected and 30 < doc["uas"] < 100
    # parse to standard output gives the same text
    assert main(["dep", "parse", "--model", str(m), str(te)]) == 0
    assert capsys.readouterr().out == out.read_text()


def test_cli_reports_bad_input_with_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tA\ta\tX\tX\t_\t0\troot\t_\t_\n\n1\tB\tb\tX\tX\t_\t7\troot\t_\t_\n\n")
    good = tmp_path / "good.conllu"
    good.write_text("1\tA\ta\tX\tX\t_\t0\troot\t_\t_\n\n1\tB\tb\tX\tX\t_\t0\troot\t_\t_\n\n")
    assert main(["dep", "eval", str(good), str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:3" in err and "outside the sentence" in err
    assert main(["dep", "parse", "--model", str(tmp_path / "nowhere"), str(good)]) == 2
    assert "not a plgraph dependency model" in capsys.readouterr().err


def _loss_augmented_decode(model, enc, i, w):
    """What train_batch decodes for sentence i, computed with plain reads of ``w``."""
    from plgraph.dep._eisner import eisner2

    st = model.templates
    n, w0, r0 = int(enc.n[i]), int(enc.word0[i]), int(enc.row0[i]) + 1
    PH, PD, PX = KN.part_hashes(st.tseed, st.tmpl, enc.atoms, NONE_SIB, r0, n)
    sent = KN.SentenceParts(r0, n, enc.atoms, PH, PD, PX)
    cost = KN.ArcCost(enc.heads[w0:w0 + n], enc.labels[w0:w0 + n], 1.0, 1.0)
    tpl, feat = model.kernel_tables()
    wts = KN.WeightArrays(w, np.zeros((0, 2)), np.zeros(0, np.int32))
    S, LAB = KN.score_arcs(sent, cost, True, tpl, feat, wts, 0, 0.0, 0.0, 0)
    SIB = KN.score_siblings(sent, tpl, feat, wts, 0, 0.0, 0.0, 0)
    heads, _ = eisner2(S, SIB, model.multi_root)
    return list(heads[1:]), [int(LAB[heads[d], d]) for d in range(1, n + 1)]


@pytest.mark.parametrize("reg", ["l1", "l2"])
def test_adagrad_decodes_with_caught_up_weights(small_model, reg):
    """The kernel catches up (seed 000 Algorithm 1, SCORE) every weight it reads: its
    loss-augmented predictions equal a decode with a densely caught-up copy of the
    weights, and differ from a decode with the stale (not caught-up) weights."""
    import copy

    model, enc = small_model
    lrn = make_learner("adagrad", model.n_weights, eta=0.5, C=0.2, reg=reg)
    dec = _BatchDecoder(model, enc, lrn, "hamming")
    rng = np.random.default_rng(1)
    for _ in range(8):                        # a few updates, so many weights are stale
        lrn.step(dec(rng.choice(len(enc), 4, replace=False)))
    batch = np.arange(20, 32)
    dense = copy.deepcopy(lrn)
    dense.catch_up()
    expected = {i: _loss_augmented_decode(model, enc, i, dense.w) for i in batch.tolist()}
    stale = {i: _loss_augmented_decode(model, enc, i, lrn.w.copy()) for i in batch.tolist()}
    assert any(expected[i] != stale[i] for i in expected)     # the catch-up matters here
    dec(batch)
    for i, (heads, labels) in expected.items():
        n, w0 = int(enc.n[i]), int(enc.word0[i])
        assert dec.pred_heads[w0:w0 + n].tolist() == heads
        assert dec.pred_labels[w0:w0 + n].tolist() == labels
