"""Online learners over a flat weight vector, driven by sparse subgradients.

A model computes, for a mini-batch, the sum over its examples of
``g = f(y_hat) - f(y)`` (predicted minus gold feature counts, ``y_hat`` from a
loss-augmented decode) as a :class:`SparseGradient`; a learner turns it into a
weight update:

* :class:`AdaGrad` -- online primal subgradient with AdaGrad and l1 or l2
  regularisation, **exactly** the thesis's Algorithm 1 ("Online Primal Subgradient
  with l1 or l2 regularization, sparse updates"): ``q`` starts at ``delta``, one
  update per batch (``n += 1``), UPDATE-ACTIVE on the weights with a non-zero
  summed subgradient, and the UPDATE-CATCHUP closed form applied lazily when a
  weight is next read (models read weights through :func:`wread`, which writes the
  caught-up value back, time stamp first, as in the thesis's lock-free lines 23-27).
  ``reg=None`` gives plain AdaGrad.
* :class:`Perceptron` -- the (averaged) structured perceptron, ``w -= g``.  (The
  thesis's note says "UPDATE-ACTIVE = return w + g"; with its own sign convention
  ``g = f(y) - f(y_i)`` that would move towards the prediction, so we use ``w - g``.)
* :class:`PassiveAggressive` -- Crammer et al. (2006) PA / 1-best MIRA as used by
  Schiehlen & Spranger: the smallest change making the gold structure outscore the
  prediction by its loss, ``tau = (w.g + loss) / |g|^2`` (capped at ``C`` for PA-I),
  ``w -= tau g``; a mini-batch is treated as one summed constraint.

Perceptron and PA optionally average all iterates (Collins 2002) with the usual
lazy trick (``w_avg = w - wa / c``).

Every learner exposes ``read_args()`` = ``(w, q, u, n, eta, C, reg)``, the arguments
model kernels pass to :func:`plgraph.learn._kernels.wread`, and
:meth:`final_weights` (caught-up, averaged, float32) for parsing and saving.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _kernels as K

_REG = {None: 3, "none": 3, "l1": 1, "l2": 2}


def _restore(dst: np.ndarray, arrays: dict, name: str) -> None:
    """``dst[:] = arrays[name]`` with exactly ``dst``'s shape and a numeric dtype
    (``ValueError`` / ``KeyError`` otherwise: no silent broadcast of a damaged
    checkpoint's array)."""
    src = np.asarray(arrays[name])
    if src.shape != dst.shape:
        raise ValueError(f"learner array {name!r} has shape {src.shape}, expected {dst.shape}")
    if src.dtype.kind not in "iuf":
        raise ValueError(f"learner array {name!r} has dtype {src.dtype}, expected a number type")
    dst[:] = src


def _scalar(scalars: dict, name: str, kind=int):
    """A learner scalar from a checkpoint, as ``kind`` (``ValueError`` / ``KeyError`` /
    ``TypeError`` when missing or not a number)."""
    val = scalars[name]
    if isinstance(val, bool) or not isinstance(val, (int, float)):
        raise TypeError(f"learner scalar {name!r} is {val!r}, expected a number")
    return kind(val)


def plain_read_args(w: np.ndarray) -> tuple:
    """The ``wread`` arguments that read ``w`` as it is (no pending AdaGrad catch-up):
    for final weights, or the perceptron's and passive-aggressive's."""
    return (w, np.zeros((0, 2)), np.zeros(0, np.int32), 0, 0.0, 0.0, 0)


@dataclass
class SparseGradient:
    """Summed subgradient of a batch: entries ``(idx[k], val[k])`` may repeat
    (they are added); ``loss`` is the summed task loss of the batch's predictions."""

    idx: np.ndarray
    val: np.ndarray
    loss: float = 0.0


class Learner:
    """Base class: weights ``w`` (float64) and the aggregation scratch space."""

    kind = "base"

    def __init__(self, n_weights: int):
        self.w = np.zeros(int(n_weights), np.float64)
        self._acc = np.zeros(int(n_weights), np.float64)
        self._stamp = np.zeros(int(n_weights), np.int32)
        self.steps = 0          # number of step() calls (batches seen)
        self.updates = 0        # number of steps that changed the weights

    # -- model interface --------------------------------------------------------------------
    def read_args(self):
        return plain_read_args(self.w)

    def read(self, idx) -> np.ndarray:
        """Current values of weights ``idx`` exactly as a model's decoder reads them
        (for AdaGrad: caught up to the current update, and written back)."""
        return K.wread_many(*self.read_args(), np.asarray(idx, np.int64))

    def _aggregate(self, grad: SparseGradient):
        idx = np.asarray(grad.idx, np.int64)
        val = np.asarray(grad.val, np.float64)
        touched = np.empty(idx.shape[0], np.int64)
        self.steps += 1
        m = K.aggregate(idx, val, self._acc, self._stamp, np.int32(self.steps % 2_000_000_000 + 1), touched)
        return touched, m

    def step(self, grad: SparseGradient) -> None:
        raise NotImplementedError

    def final_weights(self, dtype=np.float32) -> np.ndarray:
        return self.w.astype(dtype)

    # -- checkpoints ------------------------------------------------------------------------
    def state(self) -> tuple[dict, dict]:
        """(arrays, scalars) describing the learner completely."""
        return {"w": self.w}, {"kind": self.kind, "steps": self.steps, "updates": self.updates}

    def load_state(self, arrays: dict, scalars: dict) -> None:
        """Restore :meth:`state`; a missing, mis-shaped or non-numeric part raises
        ``KeyError`` / ``ValueError`` / ``TypeError`` (nothing is broadcast)."""
        _restore(self.w, arrays, "w")
        self.steps = _scalar(scalars, "steps")
        self.updates = _scalar(scalars, "updates")

    def config(self) -> dict:
        return {"kind": self.kind}


class AdaGrad(Learner):
    """The thesis's Algorithm 1 (see module docstring).

    Parameters
    ----------
    eta : float
        Learning rate (the thesis's range 1 to 1e-4).
    C : float
        Regularisation constant (the thesis's range 1e-1 to 1e-8).
    reg : {"l1", "l2", None}
    delta : float
        Initial value of the cumulative squared gradient ``q`` (the thesis: 1e-6).
    average : bool
        Our extension (not in the thesis): also keep the average of all iterates
        w_1 .. w_n, with the same lazy catch-up (closed-form sums over the skipped
        zero-subgradient steps), and use it as the final weights.  With
        ``average=False`` the algorithm is exactly the thesis's.
    """

    kind = "adagrad"

    def __init__(self, n_weights: int, eta: float = 0.1, C: float = 1e-6, reg: str | None = "l1",
                 delta: float = 1e-6, average: bool = False):
        super().__init__(n_weights)
        if reg not in _REG:
            raise ValueError(f"reg must be 'l1', 'l2' or None, got {reg!r}")
        self.eta, self.C, self.reg, self.delta = float(eta), float(C), reg, float(delta)
        self.average = bool(average)
        self.q = np.zeros((int(n_weights), 2), np.float64)
        self.q[:, 0] = self.delta
        self.u = np.zeros(int(n_weights), np.int32)
        self.n = 0

    @property
    def _code(self) -> int:
        return _REG[self.reg] + (4 if self.average else 0)

    def read_args(self):
        return (self.w, self.q, self.u, self.n, self.eta, self.C, self._code)

    def step(self, grad: SparseGradient) -> None:
        touched, m = self._aggregate(grad)
        self.n = int(K.adagrad_step(self.w, self.q, self.u, self.n, self.eta, self.C, self._code,
                                    touched, m, self._acc))
        self.updates += 1

    def catch_up(self) -> None:
        """Apply every pending catch-up (dense; before saving or final evaluation)."""
        K.catchup_all(self.w, self.q, self.u, self.n, self.eta, self.C, self._code)

    def final_weights(self, dtype=np.float32) -> np.ndarray:
        self.catch_up()
        if self.average and self.n > 0:
            return (self.q[:, 1] / self.n).astype(dtype)
        return self.w.astype(dtype)

    def state(self):
        arrays, scalars = super().state()
        arrays.update(q=self.q, u=self.u)
        scalars.update(n=self.n)
        return arrays, scalars

    def load_state(self, arrays, scalars):
        super().load_state(arrays, scalars)
        _restore(self.q, arrays, "q")
        _restore(self.u, arrays, "u")
        self.n = _scalar(scalars, "n")
        if self.n < 0 or (self.u.size and (int(self.u.min()) < 0 or int(self.u.max()) > self.n)):
            raise ValueError("learner time stamps 'u' are outside [0, n]")

    def config(self):
        return {"kind": self.kind, "eta": self.eta, "C": self.C, "reg": self.reg, "delta": self.delta,
                "average": self.average}


class _Averaged(Learner):
    """Shared by the perceptron and PA: optional averaging, and a float32 copy of the
    weights for the decoders to read (``read_dtype``; half the memory traffic of
    float64, which is what decoding is bound by -- updates and averages stay in
    float64; the copy is refreshed for the touched weights after every step)."""

    def __init__(self, n_weights: int, average: bool = True, read_dtype=np.float32):
        super().__init__(n_weights)
        self.average = bool(average)
        self.wa = np.zeros(int(n_weights), np.float64) if self.average else np.zeros(1)
        self.c = 1.0   # iterate counter for averaging (1 + number of steps)
        self.read_dtype = np.dtype(read_dtype)
        self.wr = self.w if self.read_dtype == np.float64 else np.zeros(int(n_weights), self.read_dtype)

    def read_args(self):
        return plain_read_args(self.wr)

    def _apply(self, tau: float, touched, m) -> None:
        K.scaled_step(self.w, self.wa, self.c, tau, touched, m, self._acc, self.average)
        if self.wr is not self.w:
            K.copy_entries(self.wr, self.w, touched, m)

    def final_weights(self, dtype=np.float32) -> np.ndarray:
        if not self.average:
            return self.w.astype(dtype)
        return (self.w - self.wa / self.c).astype(dtype)

    def state(self):
        arrays, scalars = super().state()
        if self.average:
            arrays.update(wa=self.wa)
        scalars.update(c=self.c)
        return arrays, scalars

    def load_state(self, arrays, scalars):
        super().load_state(arrays, scalars)
        if self.average:
            _restore(self.wa, arrays, "wa")
        self.c = _scalar(scalars, "c", float)
        if self.wr is not self.w:
            self.wr[:] = self.w


class Perceptron(_Averaged):
    """Structured perceptron, ``w -= g`` per batch, averaged by default."""

    kind = "perceptron"

    def step(self, grad: SparseGradient) -> None:
        touched, m = self._aggregate(grad)
        if m:
            self._apply(1.0, touched, m)
            self.updates += 1
        self.c += 1.0

    def config(self):
        return {"kind": self.kind, "average": self.average}


class PassiveAggressive(_Averaged):
    """Passive-aggressive (PA-I when ``C`` is finite), averaged by default.

    The margin to enforce is the ``loss`` that comes with the gradient (the model
    decides what it is: Hamming errors, or Schiehlen & Spranger's square root of the
    error rate)."""

    kind = "pa"

    def __init__(self, n_weights: int, C: float | None = None, average: bool = True, read_dtype=np.float32):
        super().__init__(n_weights, average, read_dtype)
        self.C = np.inf if C is None else float(C)

    def step(self, grad: SparseGradient) -> None:
        touched, m = self._aggregate(grad)
        if m:
            margin, norm2 = K.dot_sparse(self.w, touched, m, self._acc)
            loss = float(grad.loss)
            if norm2 > 0.0:
                tau = min(self.C, (margin + loss) / norm2)
                if tau > 0.0:
                    self._apply(tau, touched, m)
                    self.updates += 1
        self.c += 1.0

    def config(self):
        return {"kind": self.kind, "C": None if np.isinf(self.C) else self.C, "average": self.average}


LEARNERS = {"adagrad": AdaGrad, "perceptron": Perceptron, "pa": PassiveAggressive}


def make_learner(kind: str, n_weights: int, **options) -> Learner:
    """Build a learner by name (``adagrad``, ``perceptron``, ``pa``)."""
    if kind not in LEARNERS:
        raise ValueError(f"unknown learner {kind!r}; choose from {sorted(LEARNERS)}")
    return LEARNERS[kind](n_weights, **options)


def learner_from_state(config: dict, n_weights: int, arrays: dict, scalars: dict) -> Learner:
    """The learner a checkpoint describes (``config``: :meth:`Learner.config`; arrays
    and scalars: :meth:`Learner.state`).  Damaged parts raise ``KeyError`` /
    ``ValueError`` / ``TypeError`` (loaders wrap them with
    :func:`plgraph.files.modelfile.model_errors`)."""
    if not isinstance(config, dict) or not isinstance(scalars, dict):
        raise TypeError("learner config and scalars must be JSON objects")
    options = {k: v for k, v in config.items() if k != "kind"}
    learner = make_learner(config["kind"], n_weights, **options)
    learner.load_state(arrays, scalars)
    return learner
