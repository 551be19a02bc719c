"""The generic online training loop, and a sparse multiclass model that uses it.

:func:`run_epoch` knows nothing about the model: it shuffles item indices, cuts
mini-batches and, for each, asks a ``batch_gradient(batch) -> SparseGradient``
callable (the model's loss-augmented decode of every item in the batch, possibly in
parallel, summed) and hands the result to the learner.  The dependency parser, the
graph parser's arc pass and the trace and spine classifiers all plug in here.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import _kernels as K
from .interrupts import check_interrupt
from .labels import LabelTaxonomy, label_blocks
from .learners import Learner, SparseGradient, make_learner


@dataclass
class EpochStats:
    """What one pass over the data did."""

    epoch: int
    items: int
    batches: int
    loss: float
    seconds: float
    updates: int = 0
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = {"epoch": self.epoch, "items": self.items, "batches": self.batches, "loss": self.loss,
             "seconds": round(self.seconds, 3), "updates": self.updates}
        d.update(self.extra)
        return d


def batches(n_items: int, batch_size: int, rng: np.random.Generator | None = None) -> list[np.ndarray]:
    """Item indices cut into batches (shuffled when ``rng`` is given)."""
    order = rng.permutation(n_items) if rng is not None else np.arange(n_items)
    return [order[i:i + batch_size].astype(np.int64) for i in range(0, n_items, max(1, int(batch_size)))]


def run_epoch(learner: Learner, n_items: int, batch_gradient: Callable[[np.ndarray], SparseGradient], *,
              batch_size: int = 1, rng: np.random.Generator | None = None, epoch: int = 0,
              progress: bool | None = None, desc: str = "train") -> EpochStats:
    """One pass: for each batch, ``learner.step(batch_gradient(batch))``.

    ``progress`` shows a tqdm bar (``None``: only on an interactive terminal/notebook).
    Between batches it is a safe point for Ctrl-C (see :mod:`plgraph.learn.interrupts`).
    """
    from tqdm.auto import tqdm

    start = time.perf_counter()
    parts = batches(n_items, batch_size, rng)
    loss = 0.0
    before = learner.updates
    with tqdm(total=n_items, desc=desc, unit="item", disable=progress is False, leave=False) as bar:
        for b in parts:
            check_interrupt()
            grad = batch_gradient(b)
            loss += float(grad.loss)
            learner.step(grad)
            bar.update(len(b))
    return EpochStats(epoch, n_items, len(parts), loss, time.perf_counter() - start, learner.updates - before)


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
        m, loss = K.multiclass_batch(np.asarray(batch, np.int64), x_off, x_fid, np.asarray(y, np.int64),
                                     self.foff, self.fnode, t.nodelevel, t.anc, t.K, *learner.read_args(),
                                     float(cost), out_idx, out_val, pred)
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
                                   batch_size=batch_size, rng=rng, epoch=ep, progress=progress))
        return lrn, stats
