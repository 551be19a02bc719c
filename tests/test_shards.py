"""Records in compressed shards (plgraph.files.shards): round trips, resuming, damage, pickling."""
from __future__ import annotations

import json
import os
import pickle
import threading
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plgraph.errors import ModelFileError
from plgraph.files.shards import (Blob, ShardedRecords, ShardWriter, StoreSpec, decode, encode, open_complete,
                            record_type, remove_store, write_all)


@record_type
@dataclass
class _Inner:
    a: np.ndarray
    b: int


@record_type
class _Pair(NamedTuple):
    left: object
    right: object


@record_type
@dataclass
class _Outer:
    id: str
    inner: _Inner
    pairs: list
    table: dict
    maybe: np.ndarray | None = None


def _outer(i: int) -> _Outer:
    rng = np.random.default_rng(i)
    return _Outer(f"s{i}", _Inner(rng.integers(-5, 5, size=(i % 4 + 1, 3)), i),
                  [_Pair(np.float32(i / 3), (i, "x")), _Pair(None, [1.5, np.inf])],
                  {(i, i + 1, "S"): 7, (0, 2, "T"): -1}, None if i % 2 else np.arange(i, dtype=np.int16))


def _same(a, b) -> None:
    assert type(a) is type(b), (a, b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif hasattr(a, "__dataclass_fields__"):
        for k in a.__dataclass_fields__:
            _same(getattr(a, k), getattr(b, k))
    else:
        assert a == b or (a != a and b != b)


def test_records_come_back_equal_with_their_types_dtypes_and_tuple_keys(tmp_path):
    records = [_outer(i) for i in range(11)]
    got = write_all(tmp_path, "x", {"k": 1}, records, shard_size=4)
    assert len(got) == 11
    assert sorted(os.listdir(tmp_path)) == ["x-00000.npz", "x-00001.npz", "x-00002.npz", "x.json"]
    for i in (0, 5, 10, -1, 3):
        _same(got[i], records[i])
    assert got[4].table[(4, 5, "S")] == 7
    assert type(got[2].pairs[0].left) is np.float32
    _same(got[2:5], records[2:5])
    with pytest.raises(IndexError):
        got[11]


def test_an_unregistered_class_or_an_object_array_is_refused():
    class Plain:
        pass

    with pytest.raises(TypeError, match="register it with record_type"):
        encode(Plain(), Blob())
    with pytest.raises(TypeError, match="objects"):
        encode(np.array([object()]), Blob())
    with pytest.raises(ValueError, match="unknown record type"):
        decode({"c": "NoSuchClass", "f": {}}, Blob().buffer())


def test_a_killed_writer_resumes_after_its_last_shard_and_a_new_key_starts_afresh(tmp_path):
    w = ShardWriter(tmp_path, "x", {"k": 1}, shard_size=3)
    w.meta["kept"] = []
    for i in range(7):                   # shards of 0-2 and 3-5 written, record 6 only in memory
        w.meta["kept"].append(i)
        w.add(_outer(i))
    del w                                # "killed"
    doc = json.loads((tmp_path / "x.json").read_text())
    assert (doc["count"], doc["consumed"], doc["complete"]) == (6, 6, False)
    assert doc["meta"]["kept"] == [0, 1, 2, 3, 4, 5]
    assert open_complete(tmp_path, "x", {"k": 1}) is None
    w = ShardWriter(tmp_path, "x", {"k": 1}, shard_size=3)
    assert (w.count, w.consumed) == (6, 6)
    for i in range(w.consumed, 9):
        w.add(_outer(i))
    w.skip()
    got = w.finish()
    assert len(got) == 9 and json.loads((tmp_path / "x.json").read_text())["consumed"] == 10
    for i in range(9):
        _same(got[i], _outer(i))
    assert open_complete(tmp_path, "x", {"k": 1}) is not None
    assert open_complete(tmp_path, "x", {"k": 2}) is None
    w = ShardWriter(tmp_path, "x", {"k": 2}, shard_size=3)     # another key: the old store goes
    assert w.count == 0 and not (tmp_path / "x-00000.npz").exists()


def test_a_complete_store_is_not_continued_but_rewritten_by_a_writer(tmp_path):
    write_all(tmp_path, "x", {"k": 1}, [_outer(0)], shard_size=2)
    spec = StoreSpec(str(tmp_path), "x", {"k": 1}, 2)
    assert len(spec.complete()) == 1
    w = spec.writer()
    assert w.count == 0


def test_a_damaged_shard_or_manifest_names_the_file(tmp_path):
    got = write_all(tmp_path, "x", {"k": 1}, [_outer(i) for i in range(4)], shard_size=2)
    (tmp_path / "x-00001.npz").write_bytes(b"not a zip")
    with pytest.raises(ModelFileError, match="x-00001.npz"):
        got[3]
    _same(got[0], _outer(0))
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(ModelFileError, match="x.json"):
        ShardedRecords(tmp_path, "x")
    remove_store(tmp_path, "x")
    assert os.listdir(tmp_path) == []


def test_records_pickle_as_a_path_and_read_from_threads(tmp_path):
    records = [_outer(i) for i in range(30)]
    got = write_all(tmp_path, "x", None, records, shard_size=4)
    got.open_shards = 2
    blob = pickle.dumps(got)
    assert len(blob) < 1000
    again = pickle.loads(blob)
    errors = []

    def read(start):
        try:
            for i in range(start, 30, 3):
                _same(again[i], records[i])
        except Exception as err:         # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=read, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(again._open) <= 2


def test_a_field_view_gives_one_element_of_tuple_records(tmp_path):
    got = write_all(tmp_path, "x", None, [(f"s{i}", _outer(i)) for i in range(5)], shard_size=2)
    ids, outers = got.field(0), got.field(1)
    assert len(ids) == len(outers) == 5
    assert [ids[i] for i in range(5)] == ["s0", "s1", "s2", "s3", "s4"]
    _same(outers[3], _outer(3))
    _same(list(outers[1:3]), [_outer(1), _outer(2)])


leaves = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(allow_nan=False),
                   st.text(max_size=5),
                   st.builds(lambda n, d: (np.arange(n) % 3).astype(d).reshape(-1, 1) if n % 2 else (np.arange(n) % 3).astype(d), st.integers(0, 6),
                             st.sampled_from([np.int8, np.int32, np.int64, np.float32, np.float64, np.bool_])))
trees = st.recursive(leaves, lambda kids: st.one_of(
    st.lists(kids, max_size=3), st.tuples(kids, kids),
    st.dictionaries(st.one_of(st.integers(), st.text(max_size=3),
                              st.tuples(st.integers(), st.text(max_size=2))), kids, max_size=3),
    st.builds(_Pair, kids, kids)), max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(trees)
def test_encode_then_decode_gives_the_value_back(value):
    blob = Blob()
    tree = encode(value, blob)
    tree = json.loads(json.dumps(tree))      # what a shard's index stores
    buffer = blob.buffer().copy()            # as read from a shard: writable
    back = decode(tree, buffer)
    _same(back, value)
    for a in _arrays(back):
        assert a.flags.writeable and a.ctypes.data % min(a.itemsize, 16) == 0


def _arrays(value):
    if isinstance(value, np.ndarray):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _arrays(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _arrays(v)
