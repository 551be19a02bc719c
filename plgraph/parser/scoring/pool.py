"""Hashed weights with the reference's negative pool (passes 2 and 3).

Every feature of the parser is a (surface key, label or spine) pair, hashed to a weight
(:func:`plgraph.parser.scoring._pass2.hindex`).  The reference parser (jkkummerfeld/1ec-graph-parser,
``discriminative.scala``) gives the pairs seen in gold derivations of the training data --
"positive features", found by inserting every gold derivation once before training --
weights of their own, and hashes every other pair into a shared pool whose size is
``2^negativeFeaturePower`` times the number of positive ones (-2 for the full parser,
-8 for the 1EC arc parser).  Training pushes the pool's weights down (the pairs in it
occur only in wrong predictions), so at test time evidence never seen in a gold graph
counts against an edge instead of for nothing.

:class:`PooledWeights` is the part both pass models share: a pass with
``config.negative_pool > 0`` is given its positive bitmap (:meth:`positive_bitmap` of
the train split) before training, keeps it in its model file (:meth:`stored_arrays`)
and gets it back on loading.  Without a bitmap every pair is hashed alike into
``2**bits`` weights (plgraph's models before 2026-12-05, ``negative_pool`` 0).
"""
from __future__ import annotations

import copy

import numpy as np

from ._pass2 import Hashing, hash_kernel_args

#: bits of the positive-pair bitmap (2^27 bits = 16 MB: with the sample's ~2.2 million
#: positive pairs of pass 3, ~1.6% of the negative pairs share a bit with one)
POSITIVE_BITS = 27


_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], np.uint8)


def count_bits(bitmap: np.ndarray) -> int:
    """How many bits of the uint8 array ``bitmap`` are set (a byte lookup, 1 MB at a
    time; ``np.bitwise_count`` needs numpy 2)."""
    step = 1 << 20
    return sum(int(_POPCOUNT[bitmap[i:i + step]].sum(dtype=np.int64)) for i in range(0, bitmap.size, step))


def pool_bits_for(positive: np.ndarray, fraction: float) -> int:
    """``log2`` of the negative pool's size: ``fraction`` times the number of bits set in
    ``positive``, rounded to the nearest power of two (at least 2^10)."""
    count = count_bits(positive)
    return max(10, int(round(np.log2(max(fraction * count, 1.0)))))


def check_positive(positive: np.ndarray) -> None:
    """A positive bitmap is a 1-d uint8 array a power of two long (ValueError otherwise)."""
    if positive.dtype != np.uint8 or positive.ndim != 1 or positive.size < 1 or positive.size & (positive.size - 1):
        raise ValueError(f"a positive bitmap is a uint8 array a power of two long, got {positive.dtype} "
                         f"{positive.shape}")


class PooledWeights:
    """Mixin of a pass model with ``config.bits`` and ``config.negative_pool``, label
    back-off classes ``back``, and a ``structure_features(sent, tokens, None, 1.0)``
    giving the (index, value) entries of a prepared sentence's gold graph.  Sets
    ``positive``, ``pool_bits``, ``hk`` (the kernels' index arguments) and
    ``n_weights``."""

    @property
    def hashing(self) -> Hashing:
        """The kernels' :class:`~plgraph.parser.scoring._pass2.Hashing` of this model."""
        return Hashing(self.back, self.hk)

    def set_positive(self, positive: np.ndarray | None, pool_bits: int | None = None) -> None:
        """Use the bitmap ``positive`` of the (feature, label) pairs seen in gold graphs
        (:meth:`positive_bitmap`): they keep their hashed weights among the ``2**bits``,
        and every other pair shares a negative pool of ``2**pool_bits`` weights after
        them (None: :func:`pool_bits_for` the bitmap and ``config.negative_pool``).
        ``positive`` None: every pair hashed alike into the ``2**bits`` weights."""
        bits = self.config.bits
        if positive is not None:
            check_positive(positive)
            if pool_bits is None:
                pool_bits = pool_bits_for(positive, self.config.negative_pool)
            if not 0 <= int(pool_bits) <= 40:
                raise ValueError(f"the negative pool has 2^{pool_bits} weights, expected 2^0 .. 2^40")
        self.positive = positive
        self.pool_bits = int(pool_bits) if positive is not None else 0
        self.hk = hash_kernel_args(bits, positive, self.pool_bits)
        self.n_weights = (1 << bits) + ((1 << self.pool_bits) if positive is not None else 0)

    def with_config(self, config):
        """The same weights' model decoding with ``config`` (the beam, the cube depth, the
        trace bias ...; ``bits`` and ``backoff`` must stay, ValueError otherwise)."""
        for key in ("bits", "backoff"):
            if getattr(config, key) != getattr(self.config, key):
                raise ValueError(f"the weights were trained with {key} {getattr(self.config, key)!r}, not "
                                 f"{getattr(config, key)!r}")
        clone = copy.copy(self)
        clone.config = config
        return clone

    def stored_arrays(self) -> dict:
        """What the model file keeps beside the weights: the positive bitmap and the pool
        size (nothing without a pool)."""
        if self.positive is None:
            return {}
        return {"positive": self.positive, "pool_bits": np.array(self.pool_bits, np.int64)}

    def positive_bitmap(self, sents, tokens, bits: int = POSITIVE_BITS) -> np.ndarray:
        """A bitmap of ``2**bits`` bits (uint8), set for every (feature, label) pair of the
        gold graphs of ``sents`` (those with a gold graph)."""
        saved = self.hk
        self.hk = hash_kernel_args(bits)        # the bitmap's bit as the "index"
        bitmap = np.zeros(1 << (bits - 3), np.uint8)
        try:
            for s in sents:
                if s.gold is None:
                    continue
                idx, _ = self.structure_features(s, tokens, None, 1.0)
                np.bitwise_or.at(bitmap, idx >> 3, (1 << (idx & 7)).astype(np.uint8))
        finally:
            self.hk = saved
        return bitmap

    def take_positive(self, sents, tokens) -> int | None:
        """Before training: with ``config.negative_pool > 0``, compute the positive bitmap
        of ``sents`` and use it; returns how many pairs it holds (None without a pool)."""
        if not self.config.negative_pool > 0:
            return None
        positive = self.positive_bitmap(sents, tokens)
        self.set_positive(positive)
        return count_bits(positive)


__all__ = ["PooledWeights", "POSITIVE_BITS", "pool_bits_for", "check_positive", "count_bits"]
