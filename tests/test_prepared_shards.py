"""The parser's corpora prepared into shards on disk (plgraph.files.shards under
plgraph.parser.training): the same sentences, outputs and scores as in memory, a killed
preparation resumed where it stopped, and a training run's shards kept when asked."""
from __future__ import annotations

import os
from dataclasses import fields, is_dataclass

import numpy as np
import pytest

from plgraph.learn import make_learner, run_epoch
from plgraph.learn.learners import plain_read_args
from plgraph.parser.scoring import pass2 as P2
from plgraph.parser.scoring import pass3 as P3
from plgraph.parser.training.cascade import evaluate_pass3, pass2_outputs, prepare_corpus3
from plgraph.parser.training.corpus import evaluate_pass2, prepare_corpus
from plgraph.files.shards import ShardedRecords, StoreSpec


def _equal(a, b, where="") -> None:
    assert type(a) is type(b), where
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b), where
    elif is_dataclass(a):
        for f in fields(a):
            _equal(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            _equal(x, y, f"{where}[{k}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _equal(a[k], b[k], f"{where}[{k}]")
    else:
        assert a == b or (a != a and b != b), (where, a, b)


class _Counting:
    """The coarse models, counting (and optionally failing at) the sentences pruned."""

    def __init__(self, pr, fail_at=None):
        self.pr, self.fail_at, self.calls = pr, fail_at, 0

    def __getattr__(self, name):
        return getattr(self.pr, name)

    def prune(self, g):
        if self.calls == self.fail_at:
            raise RuntimeError("killed")
        self.calls += 1
        return self.pr.prune(g)


@pytest.fixture(scope="module")
def graphs(parser_base):
    train = [g for g in parser_base["train"] if 4 <= len(g) <= 14][:75]
    dev = [g for g in parser_base["dev"] if 4 <= len(g) <= 14][:12]
    return train, dev


def test_sentences_prepared_into_shards_equal_those_in_memory_and_a_killed_run_resumes(parser_base, graphs,
                                                                                         tmp_path):
    pr, vocab, rules = parser_base["pr"], parser_base["vocab"], parser_base["rules"]
    train, _ = graphs
    memory = prepare_corpus(train, pr, vocab, training=True, rules=rules, max_words=12)
    assert memory.skipped and len(memory.sents) > 40       # some left out as too long
    spec = StoreSpec(str(tmp_path), "pass2-train", {"test": 1}, shard_size=16)
    killed = _Counting(pr, fail_at=40)
    with pytest.raises(RuntimeError, match="killed"):
        prepare_corpus(train, killed, vocab, training=True, rules=rules, max_words=12, store=spec)
    assert spec.complete() is None
    again = _Counting(pr)
    disk = prepare_corpus(train, again, vocab, training=True, rules=rules, max_words=12, store=spec)
    assert again.calls == sum(len(g) <= 12 for g in train) - 32      # two full shards were on disk
    assert isinstance(disk.sents[0], P2.Pass2Sentence)
    assert len(disk.sents) == len(memory.sents) and disk.skipped == memory.skipped
    assert [g.id for g in disk.graphs] == [g.id for g in memory.graphs]
    for i in range(len(memory.sents)):
        _equal(disk.sents[i], memory.sents[i], f"sentence {i}")
        _equal(disk.pruned[i], memory.pruned[i], f"pruned {i}")
    reused = _Counting(pr)
    prepare_corpus(train, reused, vocab, training=True, rules=rules, max_words=12, store=spec)
    assert reused.calls == 0                                   # a complete store is read, not redone


def test_pass2_outputs_pass3_sentences_and_dev_scores_are_those_of_memory(parser_base, graphs, tmp_path):
    pr, vocab, rules = parser_base["pr"], parser_base["vocab"], parser_base["rules"]
    train, dev = graphs
    spec = lambda name: StoreSpec(str(tmp_path), name, {"test": 2}, shard_size=8)  # noqa: E731
    tr_m = prepare_corpus(train[:30], pr, vocab, training=True, rules=rules)
    tr_d = prepare_corpus(train[:30], pr, vocab, training=True, rules=rules, store=spec("tr"))
    dv_m = prepare_corpus(dev, pr, vocab, training=False)
    dv_d = prepare_corpus(dev, pr, vocab, training=False, store=spec("dv"))
    m2 = P2.Pass2Model(vocab, P2.Pass2Config(bits=18))
    lrn = make_learner("adagrad", m2.n_weights, eta=0.3, C=1e-9, reg="l1")
    run_epoch(lrn, len(tr_d.sents), lambda b: P2.batch_gradient(m2, [tr_d.sents[i] for i in b], tr_d.tokens, lrn,
                                                                 rules), batch_size=5,
              rng=np.random.default_rng(1), epoch=1, progress=False)
    read2 = plain_read_args(lrn.final_weights(np.float64))
    assert evaluate_pass2(m2, read2, dv_d, rules, threads=2) | {"sentences_per_second": 0} == \
        evaluate_pass2(m2, read2, dv_m, rules, threads=1) | {"sentences_per_second": 0}
    out_m = pass2_outputs(m2, read2, dv_m, rules, threads=1)
    out_d = pass2_outputs(m2, read2, dv_d, rules, threads=2, store=spec("out"))
    assert isinstance(out_d, ShardedRecords) and len(out_d) == len(out_m)
    for i in range(len(out_m)):
        _equal(out_d[i], out_m[i], f"output {i}")
    inv = P3.SpineInventory(pr.spine.labels.items, vocab)
    cfg = P3.Pass3Config(bits=18, ratio_s=0.5, ratio_t=0.5, trace_bias=0.0)
    c3_m = prepare_corpus3(dv_m, out_m, pr, inv, vocab, cfg, training=False)
    c3_d = prepare_corpus3(dv_d, out_d, pr, inv, vocab, cfg, training=False, store=spec("p3"))
    for i in range(len(c3_m.sents)):
        _equal(c3_d.sents[i], c3_m.sents[i], f"pass-3 sentence {i}")
        _equal(c3_d.sources[i][2], c3_m.sources[i][2], f"source {i}")
    m3 = P3.Pass3Model(vocab, inv, cfg)
    read3 = plain_read_args(np.random.default_rng(3).normal(0, 0.01, m3.n_weights))
    r_m = evaluate_pass3(m3, read3, c3_m, rules, threads=1)
    r_d = evaluate_pass3(m3, read3, c3_d, rules, threads=2)
    assert r_m["sentences"] == len(dev) and r_m["uas"] > 0
    assert r_d | {"sentences_per_second": 0} == r_m | {"sentences_per_second": 0}


def test_a_training_run_keeps_its_prepared_sentences_when_asked(small_ptb, tmp_path):
    """``keep_prepared``: the six stores stay in ``M/prepared`` (without it they are removed:
    tests/test_dist_parse_train.py checks that on both of its runs)."""
    from plgraph.parser import TrainConfig, train
    from plgraph.pruners.notebook import notebook_models, notebook_models_folder

    notebook_models(quick=True, log=None)
    lines: list = []
    train(TrainConfig(model_dir=str(tmp_path), pruners=notebook_models_folder(True), ptb=small_ptb, limit=12,
                      max_words=10, threads=1, progress=False, keep_prepared=True, pass2={"bits": 16, "epochs": 1},
                      pass3={"bits": 16, "epochs": 1, "trace_bias": 0.0}), log=lines.append, warn=lines.append)
    kept = sorted(os.listdir(tmp_path / "prepared"))
    for name in ("pass2-train", "pass2-dev", "pass2-out-train", "pass2-out-dev", "pass3-train", "pass3-dev"):
        assert f"{name}.json" in kept and f"{name}-00000.npz" in kept, name
    assert len(ShardedRecords(tmp_path / "prepared", "pass3-train")) == 12
    assert isinstance(ShardedRecords(tmp_path / "prepared", "pass3-dev")[0], P3.Pass3Sentence)
