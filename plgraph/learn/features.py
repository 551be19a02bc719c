"""Feature ids: stable string hashes, key combination and a frozen feature dictionary.

Features are 64-bit keys built by hashing a template id together with the hashed
values of its atoms (:func:`hash_strings`, then ``_kernels.combine`` inside the model
kernels).  Hashes are FNV-1a over UTF-8 bytes followed by splitmix64, so they are
identical across processes and machines (Python's ``hash`` is salted per process).

:class:`FeatureTable` maps keys to dense ids (open addressing, interleaved
key/value slots, load factor <= 0.5).  It is filled from the training data and then
frozen: unknown keys look up as -1 and are ignored by the models.
"""
from __future__ import annotations

import numpy as np

from . import _kernels as K


def hash_strings(strings) -> np.ndarray:
    """Stable uint64 hashes (never 0) of a sequence of strings."""
    strings = list(strings)
    if not strings:
        return np.zeros(0, np.uint64)
    encoded = [s.encode("utf-8", "surrogateescape") for s in strings]
    lengths = np.fromiter((len(b) for b in encoded), np.int64, len(encoded))
    ends = np.cumsum(lengths)
    starts = ends - lengths
    buf = np.frombuffer(b"".join(encoded), np.uint8)
    if buf.size == 0:
        buf = np.zeros(1, np.uint8)
    return K.fnv1a_segments(buf, starts, ends)


def hash_string(s: str) -> int:
    return int(hash_strings([s])[0])


class FeatureTable:
    """A growable, then frozen, uint64 key -> int id dictionary.

    Parameters
    ----------
    capacity : int
        Initial number of slots (rounded up to a power of two).
    """

    def __init__(self, capacity: int = 1 << 16):
        cap = 1 << max(4, int(np.ceil(np.log2(max(capacity, 16)))))
        self.table = np.zeros((cap, 2), np.uint64)
        self.size = 0

    def __len__(self) -> int:
        return self.size

    @property
    def capacity(self) -> int:
        return self.table.shape[0]

    def _grow(self, min_size: int) -> None:
        cap = self.capacity
        while cap < 2 * min_size + 2:
            cap *= 2
        keys, ids = K.table_items(self.table)
        new = np.zeros((cap, 2), np.uint64)
        _, nxt = K.table_insert_many(new, keys, 0)
        assert nxt == self.size
        self.table = new

    def add(self, keys) -> np.ndarray:
        """Insert ``keys`` (new keys get the next ids, in order); return their ids."""
        keys = np.ascontiguousarray(keys, np.uint64)
        if 2 * (self.size + keys.shape[0]) + 2 > self.capacity:
            self._grow(self.size + keys.shape[0])
        ids, nxt = K.table_insert_many(self.table, keys, self.size)
        if nxt < 0:  # pragma: no cover - capacity is ensured above
            raise RuntimeError("feature table overflow")
        self.size = int(nxt)
        return ids

    def lookup(self, keys) -> np.ndarray:
        """Ids of ``keys`` (-1 for unknown keys)."""
        return K.table_lookup_many(self.table, np.ascontiguousarray(keys, np.uint64))

    def keys(self) -> np.ndarray:
        """All keys, ordered by id."""
        return K.table_items(self.table)[0]

    @classmethod
    def from_keys(cls, keys) -> "FeatureTable":
        """Table whose id ``i`` is ``keys[i]`` (keys must be distinct)."""
        keys = np.ascontiguousarray(keys, np.uint64)
        t = cls(2 * keys.shape[0] + 2)
        ids = t.add(keys)
        if t.size != keys.shape[0] or not np.array_equal(ids, np.arange(keys.shape[0])):
            raise ValueError("feature keys are not distinct")
        return t

    def compact(self, keep) -> np.ndarray:
        """Keep only features with ``keep[id]`` true, renumbered in order; return the
        old -> new id map (-1 for dropped features)."""
        keep = np.asarray(keep, bool)
        keys = self.keys()
        new_ids = np.full(keys.shape[0], -1, np.int64)
        new_ids[keep] = np.arange(int(keep.sum()))
        t = FeatureTable.from_keys(keys[keep])
        self.table, self.size = t.table, t.size
        return new_ids
