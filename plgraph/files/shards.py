"""Records on disk in compressed ``.npz`` shards, read back one record at a time.

A corpus prepared for training (the parser's sentences with their candidate tables) does
not have to live in memory: :class:`ShardWriter` appends records -- dataclasses,
named tuples, tuples, lists, dicts of numpy arrays and plain values -- and writes them
``shard_size`` at a time into ``<name>-<k>.npz`` (compressed, atomic), and
:class:`ShardedRecords` is a read-only sequence over them that loads a record when it is
indexed, keeping only a few shard files open.  No pickle: a record's structure is
stored as JSON at the head of one ``.npy`` member, its arrays laid end to end after it
(:func:`pack`; a member per element of a tuple record, so that one element can be read
alone), and only the classes registered with :func:`record_type` are rebuilt.  The
arrays read are views of that member's buffer (writable).  Reading a record reads its
member alone.

Contract
--------
* ``<name>.json`` (the manifest) is rewritten atomically after every shard: the
  caller's ``key`` (what the records were made from), the records written, the inputs
  consumed (``consumed``: a caller may skip inputs), the caller's ``meta`` (JSON) and
  ``complete``.  A writer opened on a folder whose manifest has the same key continues
  after its last shard (:attr:`ShardWriter.consumed` says where), so that a killed
  preparation resumes; a different key starts afresh.  :func:`open_complete` gives the
  records of a complete store with the key, else None.
* :class:`ShardedRecords` pickles as its folder and name (a Dask worker reopens the
  files from a path it shares with the driver) and is safe to index from threads.
* A damaged shard or manifest is a :class:`~plgraph.errors.ModelFileError` naming the
  file.
"""
from __future__ import annotations

import collections
import dataclasses
import json
import os
import threading
import zipfile
from typing import Any, Iterable, Sequence

import numpy as np

from .atomic import atomic_json, atomic_savez_compressed, clean_stale_temporaries
from ..errors import ModelFileError

FORMAT = "plgraph-shards"

VERSION = 1
#: deflate level of the shards: 1, the fastest -- shards are written once and read a few
#: times, and the float arrays of pass 2's outputs deflate little at any level
#: (sizes and times: ``docs/experiments/2026-12-06-flat-memory.md``)
SHARD_DEFLATE_LEVEL = 1
#: the record classes that may be stored, by name (see :func:`record_type`)
_TYPES: dict[str, type] = {}


def record_type(cls):
    """Register ``cls`` (a dataclass or a named tuple) as storable in shards; returns it
    (usable as a decorator).  Its name must be unique among the registered classes."""
    name = cls.__name__
    if _TYPES.get(name, cls) is not cls:
        raise ValueError(f"two record types named {name}: {_TYPES[name]} and {cls}")
    if not (dataclasses.is_dataclass(cls) or (issubclass(cls, tuple) and hasattr(cls, "_fields"))):
        raise TypeError(f"{cls} is neither a dataclass nor a named tuple")
    _TYPES[name] = cls
    return cls


# -- encoding -----------------------------------------------------------------------------------
class Blob:
    """The arrays of one record laid end to end in one byte buffer (each at an offset
    that is a multiple of 16, so that the views :func:`decode` makes are aligned)."""

    def __init__(self):
        self._chunks: list = []
        self.size = 0

    def add(self, a: np.ndarray) -> list:
        """Append ``a``; its reference ``[offset, dtype, shape]``."""
        pad = -self.size % 16
        if pad:
            self._chunks.append(bytes(pad))
            self.size += pad
        ref = [self.size, a.dtype.str, list(a.shape)]
        self._chunks.append(np.ascontiguousarray(a).tobytes())
        self.size += a.nbytes
        return ref

    def buffer(self) -> np.ndarray:
        """The bytes as a uint8 array."""
        return np.frombuffer(b"".join(self._chunks), np.uint8)


def encode(value, blob: Blob) -> Any:
    """The JSON tree of ``value``, its arrays appended to ``blob`` (TypeError for a
    value of another kind)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise TypeError("an array of Python objects cannot be stored in a shard")
        return {"a": blob.add(value)}
    if isinstance(value, np.generic):
        return {"n": value.dtype.str, "v": value.item()}
    name = type(value).__name__
    if _TYPES.get(name) is type(value):
        if dataclasses.is_dataclass(value):
            items = ((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
        else:
            items = zip(value._fields, value)
        return {"c": name, "f": {k: encode(v, blob) for k, v in items}}
    if isinstance(value, tuple):
        return {"t": [encode(v, blob) for v in value]}
    if isinstance(value, list):
        return {"l": [encode(v, blob) for v in value]}
    if isinstance(value, dict):
        return {"d": [[encode(k, blob), encode(v, blob)] for k, v in value.items()]}
    raise TypeError(f"a {type(value).__qualname__} cannot be stored in a shard (register it with record_type)")


def decode(tree, buffer: np.ndarray) -> Any:
    """The value :func:`encode` made ``tree`` of; its arrays are views of ``buffer``
    (the :meth:`Blob.buffer`, writable when ``buffer`` is)."""
    if not isinstance(tree, dict):
        return tree
    if "a" in tree:
        offset, dtype, shape = tree["a"]
        dtype, count = np.dtype(dtype), int(np.prod(shape, dtype=np.int64))
        if count == 0:
            return np.empty(shape, dtype)
        return np.frombuffer(buffer, dtype, count, offset).reshape(shape)
    if "n" in tree:
        return np.dtype(tree["n"]).type(tree["v"])
    if "c" in tree:
        cls = _TYPES.get(tree["c"])
        if cls is None:
            raise ValueError(f"unknown record type {tree['c']!r}")
        return cls(**{k: decode(v, buffer) for k, v in tree["f"].items()})
    if "t" in tree:
        return tuple(decode(v, buffer) for v in tree["t"])
    if "l" in tree:
        return [decode(v, buffer) for v in tree["l"]]
    if "d" in tree:
        return {decode(k, buffer): decode(v, buffer) for k, v in tree["d"]}
    raise ValueError(f"not a record tree: {sorted(tree)}")


def _parts(record) -> tuple:
    """A plain tuple record's elements (each stored apart, so that one can be read
    alone: :meth:`ShardedRecords.field`), else the record alone."""
    return record if type(record) is tuple else (record,)


def pack(value) -> np.ndarray:
    """One member's bytes: the length of the JSON tree (8 bytes, little-endian), the tree,
    zeros up to a multiple of 16, then the arrays (:class:`Blob`)."""
    blob = Blob()
    tree = json.dumps(encode(value, blob)).encode("utf-8")
    head = len(tree).to_bytes(8, "little") + tree
    head += bytes(-len(head) % 16)
    return np.concatenate([np.frombuffer(head, np.uint8), blob.buffer()])


def unpack(member: np.ndarray):
    """The value :func:`pack` packed into ``member`` (arrays: views of it)."""
    size = int.from_bytes(member[:8].tobytes(), "little")
    start = 8 + size
    start += -start % 16
    return decode(json.loads(member[8:8 + size].tobytes().decode("utf-8")), member[start:])


# -- writing ------------------------------------------------------------------------------------
def _manifest_path(folder, name: str) -> str:
    return os.path.join(os.fspath(folder), f"{name}.json")


def _read_manifest(folder, name: str) -> dict | None:
    path = _manifest_path(folder, name)
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
        if doc.get("format") != FORMAT or doc.get("version") != VERSION:
            raise ValueError(f"format {doc.get('format')!r} version {doc.get('version')!r}, expected {FORMAT} "
                             f"{VERSION}")
        return doc
    except (OSError, ValueError) as err:
        raise ModelFileError(f"damaged shard manifest: {err}", path) from None


def _normal(key) -> Any:
    return json.loads(json.dumps(key, sort_keys=True))


class ShardWriter:
    """Appends records to the store ``name`` in ``folder`` (module docstring).

    ``key``: JSON describing what the records are made from; an unfinished store with
    the same key is continued (:attr:`consumed` inputs and :attr:`count` records already
    written, :attr:`meta` as saved), any other is replaced.  Call :meth:`add` per record,
    :meth:`skip` per input left without one, and :meth:`finish` at the end."""

    def __init__(self, folder, name: str, key, shard_size: int = 64):
        if shard_size < 1:
            raise ValueError(f"shard_size must be at least 1, got {shard_size}")
        self.folder, self.name, self.key = os.fspath(folder), name, _normal(key)
        os.makedirs(self.folder, exist_ok=True)
        clean_stale_temporaries(self.folder)        # a shard a killed run was writing
        doc = _read_manifest(self.folder, name)
        if doc is not None and doc["key"] == self.key and doc["shard_size"] == shard_size and not doc["complete"]:
            self.shards, self.count, self.consumed, self.meta = doc["shards"], doc["count"], doc["consumed"], doc["meta"]
        else:
            remove_store(self.folder, name)
            self.shards, self.count, self.consumed, self.meta = [], 0, 0, {}
        self.shard_size = shard_size
        self._in_shard = 0
        self._tuples: list = []
        self._members: dict = {}

    def add(self, record) -> None:
        """Append ``record`` (one input consumed)."""
        j = self._in_shard
        parts = _parts(record)
        for k, part in enumerate(parts):
            self._members[f"r{j}p{k}"] = pack(part)
        self._tuples.append(len(parts) if type(record) is tuple else 0)
        self._in_shard += 1
        self.count += 1
        self.consumed += 1
        if self._in_shard == self.shard_size:
            self._flush()

    def skip(self) -> None:
        """Count an input used up without a record."""
        self.consumed += 1

    def _flush(self) -> None:
        if self._in_shard:
            file = f"{self.name}-{len(self.shards):05d}.npz"
            atomic_savez_compressed(os.path.join(self.folder, file), level=SHARD_DEFLATE_LEVEL, **self._members)
            self.shards.append({"file": file, "records": self._in_shard, "tuple_sizes": self._tuples})
            self._in_shard, self._tuples, self._members = 0, [], {}
        self._save(complete=False)

    def _save(self, complete: bool) -> None:
        atomic_json(_manifest_path(self.folder, self.name),
                    {"format": FORMAT, "version": VERSION, "key": self.key, "shard_size": self.shard_size,
                     "count": self.count, "consumed": self.consumed, "meta": self.meta, "shards": self.shards,
                     "complete": complete})

    def finish(self) -> "ShardedRecords":
        """Write the last shard and mark the store complete; its records."""
        if self._in_shard:
            self._flush()
        self._save(complete=True)
        return ShardedRecords(self.folder, self.name)


def remove_store(folder, name: str) -> None:
    """Delete the store ``name`` of ``folder`` (its manifest and shards), if any."""
    folder = os.fspath(folder)
    if not os.path.isdir(folder):
        return
    prefix = f"{name}-"
    for entry in os.listdir(folder):
        if entry == f"{name}.json" or (entry.startswith(prefix) and entry.endswith(".npz")
                                        and entry[len(prefix):-4].isdigit()):
            os.remove(os.path.join(folder, entry))


def open_complete(folder, name: str, key) -> "ShardedRecords | None":
    """The records of the complete store ``name`` made from ``key``, else None."""
    doc = _read_manifest(folder, name)
    if doc is None or not doc["complete"] or doc["key"] != _normal(key):
        return None
    return ShardedRecords(folder, name)


# -- reading ------------------------------------------------------------------------------------
class ShardedRecords(Sequence):
    """The records of a complete store, loaded when indexed (module docstring);
    ``meta`` is the manifest's.  ``open_shards`` shards stay open at a time."""

    def __init__(self, folder, name: str, open_shards: int = 4):
        self.folder, self.name, self.open_shards = os.fspath(folder), name, open_shards
        doc = _read_manifest(self.folder, name)
        if doc is None or not doc["complete"]:
            raise ModelFileError("the store is missing or incomplete", _manifest_path(self.folder, name))
        self.meta = doc["meta"]
        self._files = [s["file"] for s in doc["shards"]]
        self._tuple = [s["tuple_sizes"] for s in doc["shards"]]
        self._starts = np.cumsum([0] + [s["records"] for s in doc["shards"]])
        self._lock = threading.Lock()
        self._open: collections.OrderedDict = collections.OrderedDict()

    def __len__(self) -> int:
        return int(self._starts[-1])

    def __getitem__(self, i):
        return self.read(i)

    def read(self, i, part: int | None = None):
        """Record ``i`` (with ``part``: element ``part`` of a tuple record alone, read
        without the others)."""
        if isinstance(i, slice):
            return [self.read(j, part) for j in range(*i.indices(len(self)))]
        n = len(self)
        i = int(i)
        if not -n <= i < n:
            raise IndexError(f"record {i} of {n}")
        i %= n
        k = int(np.searchsorted(self._starts, i, side="right")) - 1
        j = i - int(self._starts[k])
        path = os.path.join(self.folder, self._files[k])
        try:
            with self._lock:                 # the cache alone: members are read in parallel (zipfile's
                npz = self._shard(k, path)   # shared file reads are locked, decompression is not)
            n_parts = self._tuple[k][j]
            if part is not None:
                return unpack(npz[f"r{j}p{part}"])
            if not n_parts:
                return unpack(npz[f"r{j}p0"])
            return tuple(unpack(npz[f"r{j}p{p}"]) for p in range(n_parts))
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
            raise ModelFileError(f"damaged shard: {err}", path) from None

    def _shard(self, k: int, path: str):
        if k in self._open:
            self._open.move_to_end(k)
            return self._open[k]
        npz = np.load(path, allow_pickle=False)
        self._open[k] = npz
        while len(self._open) > self.open_shards:
            self._open.popitem(last=False)      # closed when no thread reads it any more
        return npz

    def close(self) -> None:
        """Close the open shard files (indexing opens them again)."""
        with self._lock:
            for npz in self._open.values():
                npz.close()
            self._open.clear()

    def __getstate__(self):
        return {"folder": self.folder, "name": self.name, "open_shards": self.open_shards}

    def __setstate__(self, state):
        self.__init__(state["folder"], state["name"], state["open_shards"])

    def field(self, k: int) -> "FieldView":
        """The sequence of element ``k`` of each (tuple) record."""
        return FieldView(self, k)


class FieldView(Sequence):
    """Element ``k`` of every record of a :class:`ShardedRecords` of tuples."""

    def __init__(self, records: ShardedRecords, k: int):
        self.records, self.k = records, k

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, i):
        return self.records.read(i, self.k)


@dataclasses.dataclass(frozen=True)
class StoreSpec:
    """Where a store goes and what it is made from: ``folder``, ``name``, ``key``
    (JSON), ``shard_size`` records a shard."""

    folder: str
    name: str
    key: Any
    shard_size: int = 64

    def complete(self) -> "ShardedRecords | None":
        """The records if the store is complete with this key (:func:`open_complete`)."""
        return open_complete(self.folder, self.name, self.key)

    def writer(self) -> ShardWriter:
        """A :class:`ShardWriter` continuing an unfinished store of this key."""
        return ShardWriter(self.folder, self.name, self.key, self.shard_size)


def write_all(folder, name: str, key, records: Iterable, shard_size: int = 64) -> ShardedRecords:
    """Store every record of ``records`` (from scratch) and return them as a sequence."""
    remove_store(folder, name)
    writer = ShardWriter(folder, name, key, shard_size)
    for r in records:
        writer.add(r)
    return writer.finish()


__all__ = ["StoreSpec", "ShardWriter", "ShardedRecords", "FieldView", "Blob", "pack", "unpack", "record_type",
           "encode", "decode", "open_complete",
           "remove_store", "write_all", "FORMAT", "VERSION"]
