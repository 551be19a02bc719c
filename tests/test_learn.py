"""plgraph.learn: lazy AdaGrad against the dense Algorithm 1, the other learners'
updates by their definitions, the feature table, label blocks, and a model trained
through the generic loop."""
from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import naive
from plgraph.learn import (AdaGrad, FeatureTable, LabelTaxonomy, MulticlassModel, PassiveAggressive, Perceptron,
                           SparseGradient, hash_strings, label_blocks, run_epoch)
from plgraph.learn import _kernels as LK


# ---------------------------------------------------------------------------------------------
# AdaGrad: lazy catch-up == dense updates (seed 000, Algorithm 1)


def _random_batches(rng, n_weights, n_batches, density):
    batches = []
    for _ in range(n_batches):
        k = rng.binomial(n_weights, density)
        idx = rng.choice(n_weights, size=k, replace=True)        # duplicates are summed
        val = rng.choice([-2.0, -1.0, 1.0, 2.0, 0.5], size=k)
        batches.append((idx, val))
    return batches


@pytest.mark.parametrize("reg,average", [("l1", False), ("l2", False), ("l1", True), ("l2", True), (None, True)])
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_weights=st.integers(1, 40), n_batches=st.integers(1, 60),
       density=st.sampled_from([0.02, 0.1, 0.3]), eta=st.sampled_from([1.0, 0.1, 0.01]),
       C=st.sampled_from([1e-1, 1e-3, 1e-6]))
def test_lazy_adagrad_equals_dense(reg, average, seed, n_weights, n_batches, density, eta, C):
    rng = np.random.default_rng(seed)
    batches = _random_batches(rng, n_weights, n_batches, density)
    dense_batches = []
    for idx, val in batches:
        g = {}
        for i, v in zip(idx.tolist(), val.tolist()):
            g[i] = g.get(i, 0.0) + v
        dense_batches.append({i: v for i, v in g.items() if v != 0.0})
    final, history, mean = naive.dense_adagrad(n_weights, dense_batches, eta, C, reg)
    lazy = AdaGrad(n_weights, eta=eta, C=C, reg=reg, average=average)
    for t, (idx, val) in enumerate(batches):
        # a decoder reads some weights before the update: they must equal the dense run's
        probe = rng.choice(n_weights, size=min(n_weights, 5), replace=False)
        np.testing.assert_allclose(lazy.read(probe), np.asarray(history[t])[probe], rtol=0, atol=1e-9)
        lazy.step(SparseGradient(idx, val))
    np.testing.assert_allclose(lazy.final_weights(np.float64), mean if average else final, rtol=0, atol=1e-9)
    np.testing.assert_allclose(lazy.w, final, rtol=0, atol=1e-9)
    assert lazy.n == n_batches


def test_adagrad_l1_drives_unused_weights_to_exact_zero():
    lrn = AdaGrad(3, eta=0.5, C=0.1, reg="l1")
    lrn.step(SparseGradient(np.array([0, 1]), np.array([1.0, -1.0])))
    assert lrn.w[0] == pytest.approx(-0.5 + 0.0, abs=0.06) and lrn.w[0] < 0 < lrn.w[1]
    for _ in range(50):
        lrn.step(SparseGradient(np.array([2]), np.array([1.0])))
    w = lrn.final_weights(np.float64)
    assert w[0] == 0.0 and w[1] == 0.0 and w[2] < 0


# ---------------------------------------------------------------------------------------------
# perceptron and passive-aggressive by their definitions


def test_averaged_perceptron_is_the_mean_of_iterates():
    rng = np.random.default_rng(3)
    lrn = Perceptron(6, average=True)
    w = np.zeros(6)
    iterates = []
    for _ in range(25):
        idx = rng.integers(0, 6, size=4)
        val = rng.choice([-1.0, 1.0], size=4)
        lrn.step(SparseGradient(idx, val))
        np.add.at(w, idx, -val)
        iterates.append(w.copy())
    np.testing.assert_allclose(lrn.w, w)
    # Daume's trick averages w_1..w_T plus the initial zero vector: c = T + 1 iterates
    expected = np.sum(iterates, axis=0) / (len(iterates) + 1)
    np.testing.assert_allclose(lrn.final_weights(np.float64), expected, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), loss=st.floats(0.5, 10.0))
def test_passive_aggressive_meets_the_margin_exactly(seed, loss):
    rng = np.random.default_rng(seed)
    lrn = PassiveAggressive(10, average=False)
    lrn.w[:] = rng.normal(size=10)
    gold = rng.choice(10, size=4, replace=False)
    pred = rng.choice(10, size=4, replace=False)
    g = np.zeros(10)
    np.add.at(g, pred, 1.0)
    np.add.at(g, gold, -1.0)
    if not g.any():
        return
    margin_before = lrn.w @ g
    lrn.step(SparseGradient(np.r_[pred, gold], np.r_[np.ones(4), -np.ones(4)], loss))
    if margin_before + loss <= 0:      # already satisfied: passive
        return
    # score(gold) - score(pred) == loss after the update
    assert -(lrn.w @ g) == pytest.approx(loss, rel=1e-9, abs=1e-9)


def test_passive_aggressive_cap():
    lrn = PassiveAggressive(2, C=0.01, average=False)
    lrn.step(SparseGradient(np.array([0, 1]), np.array([1.0, -1.0]), 5.0))
    np.testing.assert_allclose(lrn.w, [-0.01, 0.01])


# ---------------------------------------------------------------------------------------------
# hashing and the feature table


def _fnv_splitmix(data: bytes) -> int:
    m = (1 << 64) - 1
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & m
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & m
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & m
    h ^= h >> 31
    return h or 1


@settings(deadline=None)
@given(st.lists(st.text(max_size=12), max_size=20))
def test_string_hashes_match_reference(strings):
    assert hash_strings(strings).tolist() == [_fnv_splitmix(s.encode("utf-8", "surrogateescape")) for s in strings]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=300), st.integers(1, 64))
def test_feature_table_matches_dict(keys, capacity):
    table = FeatureTable(capacity)
    ref: dict = {}
    ids = table.add(np.array(keys, np.uint64))
    for k, i in zip(keys, ids.tolist()):
        k = k or 1       # key 0 is stored as 1 (0 marks empty slots)
        ref.setdefault(k, len(ref))
        assert ref[k] == i
    assert len(table) == len(ref)
    probe = np.array(keys + [12345678901234567, 3], np.uint64)
    got = table.lookup(probe).tolist()
    assert got == [ref.get(int(k) or 1, -1) for k in probe.tolist()]
    assert [int(k) for k in table.keys()] == list(ref)
    again = FeatureTable.from_keys(table.keys())
    assert again.lookup(table.keys()).tolist() == list(range(len(ref)))


def test_feature_table_compact():
    t = FeatureTable()
    t.add(np.arange(1, 11, dtype=np.uint64))
    old_to_new = t.compact(np.arange(10) % 2 == 0)
    assert old_to_new.tolist() == [0, -1, 1, -1, 2, -1, 3, -1, 4, -1]
    assert t.lookup(np.array([1, 2, 9], np.uint64)).tolist() == [0, -1, 4]


# ---------------------------------------------------------------------------------------------
# label blocks against the definition (naive.label_score)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_label_block_scores_match_definition(seed):
    rng = np.random.default_rng(seed)
    labels = ["nsubj", "nsubj:pass", "obj", "det", "case", "punct", "conj"]
    classes = {"nsubj": "comp", "obj": "comp", "det": "mark", "case": "mark", "punct": "punct", "conj": "coord"}
    paths = [(classes[lab.split(":")[0]], lab.split(":")[0]) + ((lab,) if ":" in lab else ()) for lab in labels]
    tax = LabelTaxonomy(labels, paths)
    n_feat = 6
    obs_f = rng.integers(0, n_feat, size=12)
    obs_l = rng.integers(0, len(labels), size=12)
    foff, fnode = label_blocks(obs_f, obs_l, n_feat, tax)
    w = rng.normal(size=int(foff[-1]))
    # the same weights as a dict keyed the naive way
    observed = {f: set() for f in range(n_feat)}
    for f, lab in zip(obs_f.tolist(), obs_l.tolist()):
        for k in range(1, len(paths[lab]) + 1):
            observed[f].add(paths[lab][:k])
    weights = {}
    for f in range(n_feat):
        o = int(foff[f])
        weights[(f, "top")] = w[o]
        for k in range(1, tax.K + 1):
            weights[(f, "other", k)] = w[o + k]
        for e in range(o + tax.K + 1, int(foff[f + 1])):
            node = tax.node_names[fnode[e]]
            weights[(f, tuple(node.split("/")))] = w[e]
        assert int(foff[f + 1]) - o == 1 + tax.K + len(observed[f])
    feats = rng.integers(0, n_feat, size=5)
    x_off = np.array([0, len(feats)])
    model = MulticlassModel.__new__(MulticlassModel)
    model.taxonomy, model.foff, model.fnode = tax, foff, fnode
    got = model.scores(w, x_off, feats)[0]
    for li in range(len(labels)):
        assert got[li] == pytest.approx(naive.label_score(feats.tolist(), li, paths, observed, weights))


# ---------------------------------------------------------------------------------------------
# a model trained through the generic loop


@pytest.mark.parametrize("learner,opts", [("adagrad", {"eta": 0.5, "C": 1e-4}), ("pa", {}),
                                          ("perceptron", {})])
def test_multiclass_model_learns_separable_data(learner, opts):
    rng = np.random.default_rng(7)
    n, n_noise, L = 400, 30, 4
    y = rng.integers(0, L, size=n)
    rows = [np.r_[rng.choice(n_noise, 3, replace=False), n_noise + y[i]] for i in range(n)]
    x_off = np.r_[0, np.cumsum([len(r) for r in rows])]
    x_fid = np.concatenate(rows)
    tax = LabelTaxonomy(["a", "b", "c", "d"], [("x", "a"), ("x", "b"), ("y", "c"), ("y", "d")])
    model = MulticlassModel(tax, n_noise + L, x_off, x_fid, y)
    lrn, stats = model.fit(x_off, x_fid, y, learner=learner, epochs=4, batch_size=4, **opts)
    pred = model.scores(lrn.final_weights(np.float64), x_off, x_fid).argmax(1)
    assert (pred == y).mean() == 1.0
    assert stats[-1].loss < stats[0].loss


def test_run_epoch_batches_cover_every_item_once():
    seen = []

    class Null:
        updates = 0

        def step(self, grad):
            pass

    def batch_gradient(b):
        seen.extend(b.tolist())
        return SparseGradient(np.zeros(0, np.int64), np.zeros(0), float(len(b)))

    stats = run_epoch(Null(), 103, batch_gradient, batch_size=10, rng=np.random.default_rng(0), progress=False)
    assert sorted(seen) == list(range(103)) and stats.batches == 11 and stats.loss == 103


def test_catchup_closed_form_is_repeated_zero_steps():
    # UPDATE-CATCHUP(t) == t applications of UPDATE-ACTIVE with g = 0
    for reg, code in (("l1", 1), ("l2", 2)):
        x, q, eta, C = 0.7, 2.5, 0.3, 0.05
        y = x
        for _ in range(9):
            y = LK.update_active(y, 0.0, q, eta, C, code)
        assert LK.catchup_value(x, q, 9, eta, C, code) == pytest.approx(y, abs=1e-12), reg
    assert math.isclose(LK.catchup_value(-0.2, 1.0, 1000, 0.1, 0.1, 1), 0.0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 2**64 - 1), min_size=1, max_size=400, unique=True), st.integers(0, 2**31 - 1),
       st.sampled_from([1, 4, 64]))
def test_bloom_filtered_lookup_agrees_with_table(keys, seed, n_words):
    t = FeatureTable()
    t.add(np.array(keys, np.uint64))
    bloom = LK.bloom_build(t.table, n_words)
    rng = np.random.default_rng(seed)
    probe = np.r_[np.array(keys, np.uint64), rng.integers(1, 2**63, size=500, dtype=np.uint64)]
    got = [LK.filtered_lookup(t.table, bloom, k) for k in probe]
    assert got == t.lookup(probe).tolist()
    # the filter rejects most absent keys when it is large enough
    if n_words == 64 and len(keys) <= 50:
        absent = probe[len(keys):]
        hits = sum(1 for k in absent if LK.bloom_bits(k) & bloom[(int(k) >> 16) & 63] == LK.bloom_bits(k))
        assert hits < 0.5 * len(absent)


# -- the shared training loop (plgraph.learn.loop) ------------------------------------------------
class _ToyTrainee:
    """A trainee whose gradient is the batch itself (one count per item): after an
    epoch of a plain perceptron every weight w[i] is -1 per visit of item i."""

    name = "toy"

    def __init__(self, n, folder=None):
        from plgraph.learn import SparseGradient

        self.n, self.folder, self.calls, self.SG = n, folder, [], SparseGradient

    def batch_gradient(self, batch):
        self.calls.append(("batch", tuple(int(b) for b in batch)))
        return self.SG(np.asarray(batch, np.int64), np.ones(len(batch)), float(len(batch)))

    def evaluate(self, epoch, stats):
        self.calls.append(("evaluate", epoch))
        return {"epoch": epoch, "loss": stats.loss, "items": stats.items}

    def save(self, epoch, record, history):
        self.calls.append(("save", epoch, len(history)))
        record["saved"] = True


def test_train_epochs_order_shuffles_and_history():
    from plgraph.learn import batches, make_learner
    from plgraph.learn.loop import train_epochs

    t = _ToyTrainee(7)
    lrn = make_learner("perceptron", 7, average=False)
    lines, seen = [], []
    hist = train_epochs(t, lrn, 7, epochs=3, first_epoch=2, batch_size=3, seed=5, rng_extra=(4,),
                        progress=False, log=lines.append, on_epoch=seen.append)
    # epochs 2 and 3 only, each shuffled by default_rng([seed, epoch, *rng_extra])
    want = []
    for ep in (2, 3):
        want += [("batch", tuple(int(x) for x in b)) for b in batches(7, 3, np.random.default_rng([5, ep, 4]))]
        want += [("evaluate", ep), ("save", ep, ep - 1)]
    assert t.calls == want
    assert hist == seen == [{"epoch": 2, "loss": 7.0, "items": 7, "saved": True},
                            {"epoch": 3, "loss": 7.0, "items": 7, "saved": True}]
    assert lines == ["epoch=2 loss=7.0 items=7 saved=True", "epoch=3 loss=7.0 items=7 saved=True"]
    assert np.array_equal(lrn.final_weights(np.float64), np.full(7, -2.0))   # two visits per item


def test_checkpoint_files_round_trip_and_old_npz_go(tmp_path):
    from plgraph.errors import ModelFileError
    from plgraph.learn.loop import read_checkpoint, write_checkpoint

    kw = dict(format="toy-checkpoint", version=1, crc_keys=("format", "epoch", "npz", "note"))
    (tmp_path / "ck-1.npz").write_bytes(b"old")
    (tmp_path / "ck-best.npz").write_bytes(b"not a checkpoint of ck")
    doc = write_checkpoint(tmp_path, "ck", 2, {"w": np.arange(3.0)}, {"note": "x"}, **kw)
    assert doc["npz"] == "ck-2.npz" and doc["epoch"] == 2 and doc["format_version"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck-2.npz", "ck-best.npz", "ck.json"]
    got, arrays, path, npath = read_checkpoint(tmp_path, "ck", {"epoch": int}, {"w": (1, "f")}, what="toy",
                                               version_what="toy checkpoint", **kw)
    assert got["note"] == "x" and np.array_equal(arrays["w"], [0.0, 1.0, 2.0]) and npath.endswith("ck-2.npz")
    assert read_checkpoint(tmp_path, "other", {}, None, what="toy", version_what="toy", **kw) is None
    # a JSON edit the CRC covers, and an npz outside the folder, are refused naming the file
    bad = json.loads((tmp_path / "ck.json").read_text())
    (tmp_path / "ck.json").write_text(json.dumps({**bad, "note": "y"}))
    with pytest.raises(ModelFileError, match=r"ck\.json: checksum mismatch"):
        read_checkpoint(tmp_path, "ck", {}, None, what="toy", version_what="toy", **kw)
    (tmp_path / "ck.json").write_text(json.dumps({**bad, "npz": "../ck-2.npz"}))
    with pytest.raises(ModelFileError, match="not an .npz file of the folder"):
        read_checkpoint(tmp_path, "ck", {}, None, what="toy", version_what="toy", **kw)


def test_changed_options_and_refusal():
    from plgraph.errors import InputError
    from plgraph.learn.loop import changed_options, refuse_resume

    stored = {"eta": 0.1, "reg": "l1", "shape": [1, 2]}
    assert changed_options({"eta": 0.1, "shape": (1, 2)}, stored) == []          # tuples read back as lists
    assert changed_options({"eta": 0.2, "C": 1.0}, stored) == [("eta", 0.2, 0.1)]
    assert changed_options({"C": 1.0}, stored, missing_differs=True) == [("C", 1.0, None)]
    refuse_resume([], 3, "--eta 0.1", "f.json")                                    # nothing to refuse
    with pytest.raises(InputError, match=r"cannot resume the toy with options other than the checkpoint's: "
                                         r"--eta 0.2 \(checkpoint: 0.1\)\. The checkpoint \(epoch 3\) was "
                                         r"trained with: --eta 0.1\. Resume"):
        refuse_resume(["--eta 0.2 (checkpoint: 0.1)"], 3, "--eta 0.1", "f.json", what="toy")


def test_curves_json_and_csv(tmp_path):
    from plgraph.learn.loop import write_curves, write_log

    rows = [{"model": "a", "epoch": 1, "loss": 2.5}, {"model": "b", "epoch": 1, "dev_f": 50.0}]
    write_curves(tmp_path, rows)
    assert json.loads((tmp_path / "curves.json").read_text()) == rows
    assert (tmp_path / "curves.csv").read_text().splitlines() == ["model,epoch,dev_f,loss", "a,1,,2.5", "b,1,50.0,"]
    write_log(tmp_path, rows)
    assert [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()] == rows


def test_training_folder_checks_locks_and_cleans(tmp_path):
    from plgraph.errors import OutputError
    from plgraph.learn.loop import training_folder
    from plgraph.files.lock import held_by

    (tmp_path / "sub").write_text("a file, not a folder")
    with pytest.raises(OutputError):
        with training_folder(tmp_path, subfolders=("sub",)):
            pass
    assert held_by(tmp_path) is None
    (tmp_path / "sub").unlink()
    with training_folder(tmp_path, ("model.json",), ("sub",)):
        assert held_by(tmp_path) == os.getpid()
        with training_folder(tmp_path):        # reentrant within this process
            assert held_by(tmp_path) == os.getpid()
    assert held_by(tmp_path) is None


def test_conversion_record():
    from plgraph.errors import InputError
    from plgraph.learn.loop import conversion_record

    class G:
        def __init__(self, options, id):
            self.options, self.id = options, id

    jkk = {"heads": "jkk1", "null_reversal": True, "gapping_shift": False}
    assert conversion_record([G(jkk, "a"), G(dict(jkk), "b")]) == jkk
    assert conversion_record([G({}, "a")]) is None and conversion_record([]) is None
    with pytest.raises(InputError, match="different options"):
        conversion_record([G(jkk, "a"), G({**jkk, "gapping_shift": True}, "b")])
