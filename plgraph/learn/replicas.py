"""Training on a Dask cluster: each mini-batch decoded on the workers, every replica
applying the same summed sparse gradient.

:func:`plgraph.learn.loop.train_epochs` (the one training loop of every plgraph model) given
a client runs its epochs exactly as in one process, but for where a batch is decoded:

1. at the start, every worker gets one *replica* of the model's decoder -- the
   trainee's :meth:`replica` builder, shipped once -- and of the learner (its config when
   fresh, its state once when resumed), and compiles the kernels on a one-item batch
   with a scratch copy of the learner;
2. a batch (already shuffled by the loop, in the loop's order) is cut into as many
   *contiguous* parts as there are workers; worker ``k`` first applies the previous
   batch's summed gradient to its learner, then decodes part ``k`` and sends back its
   sparse gradient (indices, values, loss) and the trainee's counters;
3. the driver concatenates the parts **in batch order** -- the same entries in the same
   order as one process decoding the whole batch, because every model's serial
   ``batch_gradient`` lays out each item's entries one item after the other in batch
   order -- and its own learner takes the step, as in the serial loop; that summed
   gradient goes out with the next batch.

Only sparse gradients cross the network during training, never the weight vector.

Exactness.  The driver's learner sees the same sequence of summed gradients as in one
process, so the weights after an epoch are **bitwise** those of the serial run for the
learners without lazy updates (the perceptron and passive-aggressive, the dependency
parser's default; and the summed Hamming loss PA's step uses is a sum of integers, so
exact in any order).  For AdaGrad (the thesis's Algorithm 1) the weights agree to about
1e-12 but not bitwise: a weight's pending l1/l2 catch-up is applied when it is *read*
(the thesis's lazy lines 23-27, written back), and a replica reads only the weights of its
own part of the batch, so the catch-up of a weight is split at other points than in one
process -- ``k1 * a`` then ``k2 * a`` instead of ``(k1 + k2) * a`` -- which is the same
number up to rounding.  (The driver itself decodes nothing; its learner catches weights
up when they are updated and when the epoch's final weights are taken.)  An argmax that
flips on such a rounding-level tie would make the runs part; none was seen in the tests.

A worker lost during training loses its replica; the run stops with a clear error (the
checkpoints of finished epochs are on disk; ``--resume`` continues).  Corpus jobs, by
contrast, survive lost workers (:mod:`plgraph.dist.chunks`).
"""
from __future__ import annotations

import copy
import time
import uuid

import numpy as np

from ..dist.cluster import worker_addresses, worker_state
from ..errors import PlgraphError
from .learners import Learner, SparseGradient, learner_from_state, make_learner
from .online import WARMUP_BATCH

#: seconds between checks that every replica's worker is still there
_POLL = 5.0


class ReplicaLostError(PlgraphError):
    """A worker holding a replica left the cluster during training."""


def learner_payload(learner: Learner) -> tuple:
    """What a worker needs to build a copy of ``learner``: ``(config, n_weights, None,
    None)`` for a learner that has not stepped yet (built fresh on the worker), else
    ``(config, n_weights, arrays, scalars)`` of :meth:`Learner.state` (sent once)."""
    n = int(learner.w.shape[0])
    if learner.steps == 0 and learner.updates == 0 and not np.any(learner.w):
        return learner.config(), n, None, None
    arrays, scalars = learner.state()
    return learner.config(), n, {k: np.array(v) for k, v in arrays.items()}, dict(scalars)


def _build_learner(payload) -> Learner:
    config, n, arrays, scalars = payload
    if arrays is None:
        options = {k: v for k, v in config.items() if k != "kind"}
        return make_learner(config["kind"], n, **options)
    return learner_from_state(config, n, arrays, scalars)


# -- what runs on a worker ----------------------------------------------------------------------
def _install(run: str, build, payload) -> float:
    """Build this worker's replica of run ``run`` and compile its kernels; seconds spent."""
    start = time.perf_counter()
    learner = _build_learner(payload)
    scratch = copy.deepcopy(learner)
    grad = build(scratch)(WARMUP_BATCH)
    if grad is not None:
        scratch.step(grad)
        scratch.final_weights()
    worker_state()[run] = (learner, build(learner))
    return time.perf_counter() - start


def _decode(run: str, pending, part: np.ndarray):
    """Apply the previous batch's summed gradient ``pending`` to this replica's learner,
    then decode ``part``: ``(idx, val, loss, counters)``."""
    learner, decoder = worker_state()[run]
    if pending is not None:
        learner.step(SparseGradient(*pending))
    if len(part) == 0:
        return np.zeros(0, np.int64), np.zeros(0), 0.0, {}
    grad = decoder(np.asarray(part, np.int64))
    take = getattr(decoder, "take_counters", None)
    return np.asarray(grad.idx, np.int64), np.asarray(grad.val, np.float64), float(grad.loss), \
        (take() if take is not None else {})


def _uninstall(run: str) -> None:
    worker_state().pop(run, None)


def _final_weights(run: str) -> np.ndarray:
    """This replica's final weights (float64), for tests."""
    learner, _ = worker_state()[run]
    return copy.deepcopy(learner).final_weights(np.float64)


# -- the driver's side --------------------------------------------------------------------------
class ReplicatedDecoder:
    """``batch_gradient`` for :func:`plgraph.learn.online.run_epoch` that decodes on the
    workers of ``client`` (module docstring).

    ``build(learner) -> decoder`` is the trainee's replica builder (picklable); the
    decoder maps a batch (int array) to its :class:`SparseGradient` and may have
    ``take_counters() -> dict`` (additive counters since the last call, e.g. search
    errors), which :meth:`take_counters` sums over the workers.  ``learner`` is the
    driver's learner, as it is now.  Use as a context manager (or call :meth:`close`)."""

    def __init__(self, client, build, learner: Learner, name: str = "model"):
        self.client, self.name = client, name
        self.workers = worker_addresses(client)
        self.run = f"plgraph-train-{uuid.uuid4().hex[:12]}"
        self.pending = None
        self.counters: dict = {}
        built = client.scatter(build, broadcast=True, hash=False)
        payload = learner_payload(learner)
        futures = [client.submit(_install, self.run, built, payload, workers=[w], allow_other_workers=False,
                                 pure=False) for w in self.workers]
        self.compile_seconds = max(self._gather(futures)) if futures else 0.0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        """Drop the replicas from the workers still there (a lost worker's went with it)."""
        from distributed import wait

        try:
            alive = set(worker_addresses(self.client))
            futures = [self.client.submit(_uninstall, self.run, workers=[w], allow_other_workers=False, pure=False)
                       for w in self.workers if w in alive]
            wait(futures, timeout=30)
        except Exception:       # a closing or broken cluster: the replicas go with it
            pass

    def _gather(self, futures):
        from distributed import wait

        while True:
            try:
                wait(futures, timeout=_POLL, return_when="ALL_COMPLETED")
                break
            except TimeoutError:        # still decoding (a long batch), or a worker is gone
                pass
            gone = set(self.workers) - set(worker_addresses(self.client))
            if gone:
                for f in futures:
                    f.cancel()
                raise ReplicaLostError(f"{self.name}: worker(s) {', '.join(sorted(gone))} left the cluster during "
                                       f"training and took their replica of the weights; the checkpoint of the last "
                                       f"finished epoch is on disk: train again with --resume")
        return self.client.gather(futures)

    def batch_gradient(self, batch: np.ndarray) -> SparseGradient:
        """The summed gradient of ``batch``, decoded on the workers (module docstring)."""
        parts = np.array_split(np.asarray(batch, np.int64), len(self.workers))
        pending = self.pending
        futures = [self.client.submit(_decode, self.run, pending, part, workers=[w], allow_other_workers=False,
                                      pure=False) for w, part in zip(self.workers, parts)]
        out = self._gather(futures)
        idx = np.concatenate([o[0] for o in out]) if out else np.zeros(0, np.int64)
        val = np.concatenate([o[1] for o in out]) if out else np.zeros(0)
        loss = 0.0
        for o in out:
            loss += o[2]
            for k, v in o[3].items():
                self.counters[k] = self.counters.get(k, 0) + v
        self.pending = (idx, val, loss)
        return SparseGradient(idx, val, loss)

    def take_counters(self) -> dict:
        """The counters the replicas reported since the last call, summed."""
        out, self.counters = self.counters, {}
        return out

    def replica_weights(self) -> list[np.ndarray]:
        """Every replica's final weights after applying the last pending gradient (for
        tests: they equal the driver's)."""
        futures = [self.client.submit(_decode, self.run, self.pending, np.zeros(0, np.int64), workers=[w],
                                      allow_other_workers=False, pure=False) for w in self.workers]
        self._gather(futures)
        self.pending = None
        futures = [self.client.submit(_final_weights, self.run, workers=[w], allow_other_workers=False, pure=False)
                   for w in self.workers]
        return self._gather(futures)


__all__ = ["ReplicatedDecoder", "ReplicaLostError", "learner_payload"]
