"""Training loops: numba warm-up outside the timed epoch, named bars, one summary line."""
from __future__ import annotations

import time

import numpy as np
import pytest

from plgraph import progress as P
from plgraph.learn import AdaGrad, SparseGradient, run_epoch
from plgraph.learn.online import WARMUP_BATCH


def _gradient_of(learner, batch):
    """A gradient that reads the weights the way the models do (AdaGrad's lazy read)."""
    idx = np.asarray(batch, np.int64) % learner.w.shape[0]
    return SparseGradient(idx, learner.read(idx) - 1.0, float(len(batch)))


def _state(learner):
    arrays, scalars = learner.state()
    return {k: v.copy() for k, v in arrays.items()}, dict(scalars)


def test_warm_up_is_not_training_time_and_runs_once(capsys):
    calls = []

    def warmup(scratch):
        calls.append(scratch)
        time.sleep(0.3)                       # stands in for numba's compiler
        return _gradient_of(scratch, WARMUP_BATCH)

    lrn = AdaGrad(16, eta=0.5, C=1e-3, reg="l2")
    first = run_epoch(lrn, 40, lambda b: _gradient_of(lrn, b), batch_size=8, rng=np.random.default_rng(0),
                      epoch=1, progress=True, name="toy model", warmup=warmup)
    assert first.compile_seconds >= 0.3 and first.seconds < 0.3
    assert first.as_dict()["compile_seconds"] == round(first.compile_seconds, 3)
    second = run_epoch(lrn, 40, lambda b: _gradient_of(lrn, b), batch_size=8, rng=np.random.default_rng(1),
                       epoch=2, progress=True, name="toy model", warmup=warmup)
    assert len(calls) == 1 and second.compile_seconds == 0.0
    assert calls[0] is not lrn and isinstance(calls[0], AdaGrad)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "toy model: compiling kernels… (numba; cached on disk after the first run)"
    assert out[1].startswith("toy model: kernels ready in ") and out[1].endswith(" s (not counted as training time)")
    assert float(out[1].split(" in ")[1].split()[0]) == pytest.approx(first.compile_seconds, abs=0.051)
    assert out[2].startswith("toy model epoch 1: 40 items in 5 batches, loss 40, ")
    assert out[3].startswith("toy model epoch 2: 40 items in 5 batches, loss 40, ")
    assert len(out) == 4


def test_warm_up_never_touches_the_learner():
    """Training with a warm-up gives bit-identical weights to training without one, even
    though the warm-up reads (lazily catching up) and steps its scratch learner."""

    def train(warmup):
        lrn = AdaGrad(32, eta=0.3, C=1e-2, reg="l2")
        for ep in (1, 2, 3):
            stats = run_epoch(lrn, 50, lambda b: _gradient_of(lrn, b), batch_size=7,
                              rng=np.random.default_rng(ep), epoch=ep, progress=False, warmup=warmup)
            assert stats.updates == 8
        return lrn

    def warmup(scratch):
        scratch.step(_gradient_of(scratch, np.arange(32)))      # mutate the scratch copy heavily
        return _gradient_of(scratch, np.arange(5))

    plain, warmed = train(None), train(warmup)
    assert plain.w.tobytes() == warmed.w.tobytes() and plain.n == warmed.n
    assert plain.u.tobytes() == warmed.u.tobytes() and plain.q.tobytes() == warmed.q.tobytes()


def test_lazy_state_untouched_by_the_warm_up_itself():
    lrn = AdaGrad(8, eta=0.5, C=0.1, reg="l2")
    lrn.step(SparseGradient(np.arange(8), np.ones(8)))
    lrn.step(SparseGradient(np.array([0]), np.ones(1)))        # weights 1..7 now owe a catch-up
    before = _state(lrn)
    from plgraph.learn.online import warm_up

    def warmup(scratch):
        return _gradient_of(scratch, np.arange(8))              # reads every weight: catch-up on scratch

    assert warm_up(lrn, warmup, "lazy", progress=False) >= 0.0
    after = _state(lrn)
    assert all(np.array_equal(before[0][k], after[0][k]) for k in before[0]) and before[1] == after[1]


def test_no_output_without_progress_and_default_desc(capsys):
    def warmup(scratch):
        return None

    class Null:
        updates = 0

        def step(self, grad):
            pass

    st = run_epoch(Null(), 10, lambda b: SparseGradient(np.zeros(0, np.int64), np.zeros(0), 1.0), batch_size=3,
                   epoch=4, progress=False, name="quiet", warmup=warmup)
    assert (st.batches, st.loss) == (4, 4.0)
    assert capsys.readouterr().out == ""
    run_epoch(Null(), 3, lambda b: SparseGradient(np.zeros(0, np.int64), np.zeros(0), 0.0), epoch=2,
              progress=True, name="loud")
    assert capsys.readouterr().out.startswith("loud epoch 2: 3 items in 3 batches, loss 0, ")


def test_warm_up_registry(capsys):
    calls = []
    key = ("test_progress", object())
    assert not P.is_warm(key)
    with pytest.raises(RuntimeError):
        P.warm_up(key, lambda: (_ for _ in ()).throw(RuntimeError("boom")), "x", progress=False)
    assert not P.is_warm(key)                                   # a failed warm-up stays cold
    assert P.warm_up(key, lambda: calls.append(1), "x", progress=False) >= 0.0
    assert P.is_warm(key) and P.warm_up(key, lambda: calls.append(2), "x", progress=False) == 0.0
    assert calls == [1] and capsys.readouterr().out == ""


def test_shown(monkeypatch):
    import io
    import sys

    assert P.shown(True) and not P.shown(False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())           # not a terminal
    assert not P.shown(None)


def test_thread_imap_keeps_input_order_and_runs_a_bounded_number_of_jobs_ahead():
    """Results come in input order, whatever order the jobs finish in, and no job starts
    more than ``AHEAD * threads`` items ahead of the last result taken (the results held
    do not grow with the items)."""
    import threading
    import time

    from plgraph.progress import AHEAD, thread_imap, thread_map

    threads, n = 2, 6 * AHEAD * 2
    started: list = []
    lock = threading.Lock()

    def job(x):
        with lock:
            started.append(x)
        time.sleep(0.0005 * (x % 3))          # later items often finish first
        return x * x

    taken = 0
    for r in thread_imap(job, range(n), threads):
        assert r == taken * taken
        taken += 1
        if taken % 7 == 0:
            time.sleep(0.002)                 # a slow consumer: the jobs must wait for it
        with lock:
            assert max(started) < taken + AHEAD * threads, (max(started), taken)
    assert sorted(started) == list(range(n))
    assert thread_map(job, range(7), 2) == [x * x for x in range(7)] == thread_map(job, range(7), 1)
