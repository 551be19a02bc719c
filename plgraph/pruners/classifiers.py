"""The trace classifier and the spine classifier of the coarse-to-fine pipeline.

* **Trace classifier**: for every ordered pair of words, a multiclass linear model
  over the trace types plus a "no trace" class.  A pair's candidates are the
  types seen in training with its (child POS, parent POS) pair — the reference's
  labels "refined by the two POS tags".  Trace labels use the first-order arc
  templates, the no-trace class a small set of its own.
* **Spine classifier**: for every word, a multiclass linear model over the spines
  seen with its POS tag in training.

Both train with the online primal subgradient + AdaGrad learner of
:mod:`plgraph.learn` (loss-augmented decoding, Hamming cost per decision), and
give softmax probabilities over each decision's candidates for pruning.
"""
from __future__ import annotations

import numpy as np

from ..encoding import TokenBatch, encode_tokens
from ..learn import SparseGradient
from ..learn._kernels import weight_view
from ..learn.learners import plain_read_args
from . import _kernels as K
from .data import SentenceData, Vocabulary, WordNormaliser

NONE = "*NON*"


#: the token arrays the classifier kernels read: :class:`plgraph.encoding.TokenBatch`
Encoded = TokenBatch


def encode(sentences: list[SentenceData], normaliser: WordNormaliser, tags: Vocabulary) -> Encoded:
    """The former entry point: :func:`plgraph.encoding.encode_tokens`."""
    return encode_tokens(sentences, normaliser, tags)


def token_atoms(enc: Encoded) -> K.TokenAtoms:
    """The token arrays of ``enc`` as the kernels read them."""
    return K.TokenAtoms(enc.tok_off, enc.wh, enc.th, enc.tid)


def softmax_rows(S: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, ignoring -inf entries."""
    m = np.max(S, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(S - m)
    z = e.sum(axis=-1, keepdims=True)
    return np.divide(e, z, out=np.zeros_like(e), where=z > 0)


def read_weights(weights) -> np.ndarray:
    """``weights`` as the scoring kernels read them: a contiguous float64 or float32 array
    as it is (no copy), anything else as float64."""
    w = np.asarray(weights)
    if w.dtype not in (np.float32, np.float64):
        w = w.astype(np.float64)
    return np.ascontiguousarray(w)


class _BatchOutput:
    """Output buffers of a batch kernel: sentence ``b`` may write up to ``sizes[b]``
    (feature index, value) entries from ``off[b]`` on and reports how many it wrote
    in ``m[b]`` and its loss in ``loss[b]``."""

    def __init__(self, sizes: np.ndarray):
        self.off = np.zeros(len(sizes) + 1, np.int64)
        np.cumsum(sizes, out=self.off[1:])
        total = max(int(self.off[-1]), 1)
        self.idx = np.empty(total, np.int64)
        self.val = np.empty(total, np.float64)
        self.m = np.zeros(len(sizes), np.int64)
        self.loss = np.zeros(len(sizes), np.float64)

    def arrays(self) -> K.GradientBuffers:
        """The buffers as the batch kernels take them."""
        return K.GradientBuffers(self.off, self.idx, self.val, self.m, self.loss)

    def gradient(self) -> SparseGradient:
        """The written entries of every sentence, concatenated, with the summed loss."""
        spans = [slice(self.off[b], self.off[b] + self.m[b]) for b in range(len(self.m))]
        idx = np.concatenate([self.idx[sl] for sl in spans]) if spans else np.zeros(0, np.int64)
        val = np.concatenate([self.val[sl] for sl in spans]) if spans else np.zeros(0)
        return SparseGradient(idx, val, float(self.loss.sum()))


class _HashedWeights:
    """Feature keys hashed into a weight vector of ``2**bits`` entries."""

    bits: int

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1

    @property
    def n_weights(self) -> int:
        return 1 << self.bits


class TraceClassifier(_HashedWeights):
    """Multiclass model over ordered word pairs (see the module docstring)."""

    def __init__(self, labels: Vocabulary, allowed: np.ndarray, bits: int = 22):
        self.labels = labels        # 0 = no trace
        self.allowed = allowed      # (tags, tags, labels) bool
        self.bits = int(bits)

    @classmethod
    def build(cls, sentences: list[SentenceData], tags: Vocabulary, bits: int = 22) -> "TraceClassifier":
        labels = Vocabulary([NONE])
        for s in sentences:
            for t in s.trace_type:
                labels.add(t)
        labels.freeze()
        allowed = np.zeros((len(tags), len(tags), len(labels)), np.bool_)
        for s in sentences:
            for c, p, t in zip(s.trace_child.tolist(), s.trace_parent.tolist(), s.trace_type):
                allowed[tags.get(s.tags[c]), tags.get(s.tags[p]), labels.get(t)] = True
        return cls(labels, allowed, bits)

    def gold_arrays(self, sentences: list[SentenceData]) -> K.TraceGold:
        """CSR over sentences of the gold trace edges of known type, (child, parent)
        sorted: ``(off, child, parent, label id)``."""
        off = [0]
        cs, ps, ls = [], [], []
        for s in sentences:
            for c, p, t in sorted(zip(s.trace_child.tolist(), s.trace_parent.tolist(), s.trace_type)):
                lab = self.labels.get(t)
                if lab > 0:
                    cs.append(c); ps.append(p); ls.append(lab)
            off.append(len(cs))
        return K.TraceGold(np.array(off, np.int64), np.array(cs, np.int64), np.array(ps, np.int64),
                           np.array(ls, np.int64))

    def batch_gradient(self, learner, enc: Encoded, gold, batch: np.ndarray, cost: float = 1.0) -> SparseGradient:
        gold = K.TraceGold(*gold)
        out = _BatchOutput(K.trace_batch_sizes(batch, enc.tok_off, enc.tid, gold.off, gold.child, gold.parent,
                                               self.allowed))
        K.trace_batch(batch, token_atoms(enc), gold, self.allowed, self.mask, float(cost),
                      weight_view(learner.read_args()), out.arrays())
        return out.gradient()

    def scores(self, weights, enc: Encoded, s: int) -> np.ndarray:
        """(n, n, labels) scores of sentence ``s`` (-inf for non-candidates)."""
        base, n = enc.span(s)
        w = read_weights(weights)
        return K.trace_sentence_scores(token_atoms(enc), base, n, self.allowed, self.mask,
                                       weight_view(plain_read_args(w)))

    def probabilities(self, weights, enc: Encoded, s: int) -> np.ndarray:
        return softmax_rows(self.scores(weights, enc, s))


class SpineClassifier(_HashedWeights):
    """Multiclass model over each word's spine (candidates: spines seen with its POS)."""

    def __init__(self, labels: Vocabulary, cand_off: np.ndarray, cand_lab: np.ndarray, bits: int = 21):
        self.labels = labels
        self.cand_off = cand_off
        self.cand_lab = cand_lab
        self.bits = int(bits)

    @classmethod
    def build(cls, sentences: list[SentenceData], tags: Vocabulary, bits: int = 21) -> "SpineClassifier":
        labels = Vocabulary()
        by_tag: dict[int, set] = {}
        for s in sentences:
            for t, sp in zip(s.tags, s.spines):
                by_tag.setdefault(tags.get(t), set()).add(labels.add(sp))
        labels.freeze()
        cand_off = np.zeros(len(tags) + 1, np.int64)
        cand = []
        for t in range(len(tags)):
            ids = sorted(by_tag.get(t, ()))
            cand.extend(ids)
            cand_off[t + 1] = len(cand)
        return cls(labels, cand_off, np.array(cand, np.int64), bits)

    def gold_array(self, sentences: list[SentenceData]) -> np.ndarray:
        return np.array([self.labels.get(sp) for s in sentences for sp in s.spines], np.int64)

    def batch_gradient(self, learner, enc: Encoded, gold: np.ndarray, batch: np.ndarray,
                       cost: float = 1.0) -> SparseGradient:
        out = _BatchOutput(np.array([2 * K.MAX_WORD_KEYS * (enc.tok_off[s + 1] - enc.tok_off[s]) for s in batch],
                                    np.int64))
        K.spine_batch(batch, token_atoms(enc), gold, K.SpineCandidates(self.cand_off, self.cand_lab), self.mask,
                      float(cost), weight_view(learner.read_args()), out.arrays())
        return out.gradient()

    def candidates(self, enc: Encoded, s: int) -> list[np.ndarray]:
        base, n = enc.span(s)
        return [self.cand_lab[self.cand_off[t]:self.cand_off[t + 1]] for t in enc.tid[base:base + n]]

    def scores(self, weights, enc: Encoded, s: int) -> np.ndarray:
        base, n = enc.span(s)
        w = read_weights(weights)
        return K.spine_sentence_scores(token_atoms(enc), base, n, K.SpineCandidates(self.cand_off, self.cand_lab),
                                       self.mask, weight_view(plain_read_args(w)))

    def probabilities(self, weights, enc: Encoded, s: int) -> np.ndarray:
        """(n, max candidates) softmax over each word's candidates (0 where padded)."""
        return softmax_rows(self.scores(weights, enc, s))
