"""The generic online training loop, and a sparse multiclass model that uses it.

:func:`run_epoch` knows nothing about the model: it shuffles item indices, cuts
mini-batches and, for each, asks a ``batch_gradient(batch) -> SparseGradient``
callable (the model's loss-augmented decode of every item in the batch, possibly in
parallel, summed) and hands the result to the learner.  The dependency parser, the
graph parser's arc pass and the trace and spine classifiers all plug in here.

Numba compiles a kernel at its first call.  So that this does not happen inside the
first batch (a bar stuck at 0 for minutes, and epoch 1's time counting the compiler),
a model passes ``warmup``: a decode of its first item with a scratch copy of the
learner, run once per process before the timer and the bar (:func:`warm_up`).  Bars
name the model (``name`` / ``desc``) and leave one summary line per pass
(:mod:`plgraph.progress`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import _kernels as K
from ..signals import check_interrupt
from .labels import LabelTaxonomy, label_blocks
from .learners import Learner, SparseGradient, make_learner


@dataclass
class EpochStats:
    """What one pass over the data did.  ``seconds`` is the training time of the pass
    only; ``compile_seconds`` the warm-up (numba compilation) run before it, if any."""

    epoch: int
    items: int
    batches: int
    loss: float
    seconds: float
    updates: int = 0
    extra: dict = field(default_factory=dict)
    compile_seconds: float = 0.0

    def as_dict(self) -> dict:
        d = {"epoch": self.epoch, "items": self.items, "batches": self.batches, "loss": self.loss,
             "seconds": round(self.seconds, 3), "updates": self.updates,
             "compile_seconds": round(self.compile_seconds, 3)}
        d.update(self.extra)
        return d


def batches(n_items: int, batch_size: int, rng: np.random.Generator | None = None) -> list[np.ndarray]:
    """Item indices cut into batches (shuffled when ``rng`` is given)."""
    order = rng.permutation(n_items) if rng is not None else np.arange(n_items)
    return [order[i:i + batch_size].astype(np.int64) for i in range(0, n_items, max(1, int(batch_size)))]


#: the batch a warm-up decodes: the first item alone
WARMUP_BATCH = np.zeros(1, np.int64)


def warm_up(learner: Learner, warmup: Callable[[Learner], SparseGradient], name: str,
            progress: bool | None = None, key=None) -> float:
    """Compile a model's kernels and ``learner``'s before anything is timed; seconds spent.

    ``warmup(scratch)`` decodes a tiny input (e.g. :data:`WARMUP_BATCH`, the first item)
    with ``scratch`` -- a deep copy of ``learner``, so the real learner and its lazy
    AdaGrad state are never touched -- and returns the gradient, which is then applied
    to ``scratch`` (compiling the learner's update kernels too).  It runs once per
    process for each warm-up function (its code, or ``key`` when given: what identifies
    the kernels it compiles) and learner class
    (:func:`plgraph.progress.warm_up`, which announces it as "<name>: compiling numba
    kernels…" when bars are shown); afterwards this returns 0.0 at once."""
    import copy

    from .. import progress as P

    key = ("run_epoch", getattr(warmup, "__code__", type(warmup)) if key is None else key, type(learner))
    if P.is_warm(key):
        return 0.0

    def run():
        scratch = copy.deepcopy(learner)
        grad = warmup(scratch)
        if grad is not None:
            scratch.step(grad)
            scratch.final_weights()

    return P.warm_up(key, run, name, progress)


def run_epoch(learner: Learner, n_items: int, batch_gradient: Callable[[np.ndarray], SparseGradient], *,
              batch_size: int = 1, rng: np.random.Generator | None = None, epoch: int = 0,
              progress: bool | None = None, desc: str | None = None, name: str = "train",
              warmup: Callable[[Learner], SparseGradient] | None = None, warmup_key=None) -> EpochStats:
    """One pass: for each batch, ``learner.step(batch_gradient(batch))``.

    ``progress`` shows a tqdm bar (``None``: only on an interactive terminal; notebooks
    pass ``True``) named ``desc`` (default: "<name> epoch <epoch>"; ``name`` says which
    model/learner trains), replaced when the pass ends by one summary line (items,
    batches, loss, seconds).  ``warmup`` (see :func:`warm_up`) compiles the model's
    numba kernels on a tiny input first, outside the timer and before the bar starts:
    ``seconds`` is training time only, the compilation goes to ``compile_seconds``
    (``warmup_key``: see :func:`warm_up`'s ``key``).
    Between batches it is a safe point for Ctrl-C (see :mod:`plgraph.signals`).
    """
    from .. import progress as P

    desc = desc or (f"{name} epoch {epoch}" if epoch else name)
    compile_seconds = 0.0
    if warmup is not None and n_items > 0:
        compile_seconds = warm_up(learner, warmup, name if name != "train" else desc, progress, warmup_key)
    start = time.perf_counter()
    parts = batches(n_items, batch_size, rng)
    loss = 0.0
    before = learner.updates
    with P.bar(n_items, desc, progress) as bar:
        for b in parts:
            check_interrupt()
            grad = batch_gradient(b)
            loss += float(grad.loss)
            learner.step(grad)
            bar.update(len(b))
    seconds = time.perf_counter() - start
    P.say(f"{desc}: {n_items} items in {len(parts)} batches, loss {loss:g}, {seconds:.1f} s", progress)
    return EpochStats(epoch, n_items, len(parts), loss, seconds, learner.updates - before,
                      compile_seconds=compile_seconds)


class MulticlassModel:
    """Linear multiclass classifier over sparse binary features, with label copies
    and taxonomy generalisation (:mod:`plgraph.learn.labels`).

    Parameters
    ----------
    taxonomy : LabelTaxonomy
    n_features : int
        Feature ids are ``0 .. n_features - 1``; -1 entries are ignored.
    x_off, x_fid : int arrays
        Training examples in CSR form: example ``i`` has features
        ``x_fid[x_off[i]:x_off[i + 1]]``.
    y : int array
        Gold label ids of the training examples (they define which taxonomy nodes
        each feature keeps).
    """

    def __init__(self, taxonomy: LabelTaxonomy, n_features: int, x_off, x_fid, y):
        self.taxonomy = taxonomy
        x_off = np.asarray(x_off, np.int64)
        x_fid = np.asarray(x_fid, np.int64)
        y = np.asarray(y, np.int64)
        counts = np.diff(x_off)
        rows = np.repeat(y, counts)
        ok = x_fid >= 0
        self.foff, self.fnode = label_blocks(x_fid[ok], rows[ok], n_features, taxonomy)
        self.n_weights = int(self.foff[-1])

    @property
    def blocks(self) -> K.LabelBlocks:
        """The weight layout and taxonomy arrays as :func:`plgraph.learn._kernels.multiclass_batch` reads them."""
        t = self.taxonomy
        return K.LabelBlocks(self.foff, self.fnode, t.nodelevel, t.anc, t.K)

    def batch_gradient(self, learner: Learner, x_off, x_fid, y, batch, cost: float = 1.0) -> SparseGradient:
        """Hamming-loss-augmented argmax of each example in ``batch`` and the summed
        subgradient ``f(pred) - f(gold)``."""
        t = self.taxonomy
        x_off = np.asarray(x_off, np.int64)
        x_fid = np.asarray(x_fid, np.int64)
        size = int(sum(x_off[i + 1] - x_off[i] for i in batch)) * 2 * (t.K + 1) + 1
        out_idx = np.empty(size, np.int64)
        out_val = np.empty(size, np.float64)
        pred = np.empty(len(batch), np.int64)
        m, loss = K.multiclass_batch(np.asarray(batch, np.int64), K.Examples(x_off, x_fid, np.asarray(y, np.int64)),
                                     self.blocks, K.weight_view(learner.read_args()), float(cost),
                                     K.MulticlassOutput(out_idx, out_val, pred))
        return SparseGradient(out_idx[:m], out_val[:m], loss)

    def scores(self, w, x_off, x_fid) -> np.ndarray:
        """Label scores (examples x labels) under weights ``w``."""
        t = self.taxonomy
        return K.multiclass_scores(np.asarray(x_off, np.int64), np.asarray(x_fid, np.int64), self.foff,
                                   self.fnode, t.nodelevel, t.anc, t.K, w)

    def fit(self, x_off, x_fid, y, *, learner: str = "adagrad", epochs: int = 5, batch_size: int = 1,
            seed: int = 0, progress: bool | None = False, **options) -> tuple[Learner, list[EpochStats]]:
        """Train from scratch; returns the learner and per-epoch statistics."""
        lrn = make_learner(learner, self.n_weights, **options)
        rng = np.random.default_rng(seed)
        stats = []
        n = len(y)
        for ep in range(1, epochs + 1):
            stats.append(run_epoch(lrn, n, lambda b: self.batch_gradient(lrn, x_off, x_fid, y, b),
                                   batch_size=batch_size, rng=rng, epoch=ep, progress=progress,
                                   name="multiclass model", warmup=lambda scratch: self.batch_gradient(
                                       scratch, x_off, x_fid, y, WARMUP_BATCH)))
        return lrn, stats
