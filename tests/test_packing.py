"""Packed model archives (plgraph.files.packing): every encoding round-trips, float values come
back rounded exactly as the precision says (bfloat16 against its plain twin in
tests/naive.py), the archive is smaller than numpy's, and damaged archives are refused
naming the file."""
from __future__ import annotations

import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import naive
from plgraph.errors import ModelFileError
from plgraph.files.modelfile import load_npz
from plgraph.files.packing import SEP, from_bfloat16, pack, rounded, save_packed, to_bfloat16, unpack


def _sparse(rng, n, share, dtype=np.float32):
    a = np.zeros(n, dtype)
    idx = rng.choice(n, int(share * n), replace=False)
    a[idx] = rng.normal(0, 0.05, idx.size).astype(dtype)
    return a


def test_each_encoding_is_chosen_and_round_trips_exactly_in_float32():
    rng = np.random.default_rng(0)
    arrays = {
        "bitmap": _sparse(rng, 100_000, 0.3),                 # <= half non-zero, >= 1/16: bitmap
        "gaps": _sparse(rng, 100_000, 0.01),                  # sparser than 1/16: gaps
        "dense": rng.normal(size=(300, 50)).astype(np.float32),
        "narrow": rng.integers(-1, 140, 50_000).astype(np.int64),
        "rising": np.cumsum(rng.integers(1, 1 << 40, 20_000)).astype(np.uint64),
        "bitset": (rng.random(80_000) < 0.05).astype(np.uint8) * rng.integers(1, 255, 80_000).astype(np.uint8),
        "flags": rng.random((60, 100)) < 0.5,
        "keys": rng.integers(0, 2**63, 10_000, dtype=np.int64).astype(np.uint64),   # random: stored as is
        "small": np.arange(10, dtype=np.float64),
        "label": np.array("float32"),
    }
    members = pack(arrays, "float32")
    parts = {k.split(SEP)[1] for k in members if SEP in k}
    assert {"bits", "gaps", "values", "ints", "rising", "bool"} <= parts
    assert "keys" in members and "small" in members and "label" in members
    assert members["narrow@ints"].dtype == np.int16 and members["rising@rising"].dtype == np.uint64
    back = unpack(members)
    assert set(back) == set(arrays)
    for name, a in arrays.items():
        assert back[name].dtype == a.dtype and back[name].shape == a.shape, name
        np.testing.assert_array_equal(back[name], a)


def test_float16_and_bfloat16_values_come_back_rounded():
    rng = np.random.default_rng(1)
    w = _sparse(rng, 50_000, 0.2)
    np.testing.assert_array_equal(rounded({"w": w}, "float16")["w"], w.astype(np.float16).astype(np.float32))
    bf = rounded({"w": w}, "bfloat16")["w"]
    nz = np.flatnonzero(w)
    assert np.all(np.abs(bf[nz] - w[nz]) <= np.abs(w[nz]) * 2.0 ** -8)
    assert np.count_nonzero(bf != w) > 0.9 * nz.size       # rounding happened
    with pytest.raises(ValueError, match="float16's range"):
        pack({"w": np.full(5000, 1e5, np.float32)}, "float16")
    with pytest.raises(ValueError, match="bfloat16's range"):
        pack({"w": np.full(5000, 3.4e38, np.float32)}, "bfloat16")


_BF16_SAFE = float(np.float32(3.38e38))


@given(st.lists(st.floats(-_BF16_SAFE, _BF16_SAFE, width=32), min_size=1, max_size=200))
@settings(max_examples=200, deadline=None)
def test_bfloat16_rounding_equals_its_plain_twin(values):
    a = np.array(values, np.float32)
    assert to_bfloat16(a).tolist() == [naive.bfloat16_bits(float(v)) for v in a]
    np.testing.assert_array_equal(from_bfloat16(to_bfloat16(a)),
                                  np.array([np.uint32(naive.bfloat16_bits(float(v))) << 16 for v in a],
                                           np.uint32).view(np.float32))


_dtypes = st.sampled_from([np.float32, np.float64, np.int8, np.int32, np.int64, np.uint16, np.uint64, np.bool_])


@given(dtype=_dtypes, n=st.integers(0, 20_000), share=st.floats(0, 1), seed=st.integers(0, 2**32 - 1),
       precision=st.sampled_from(["float16", "bfloat16", "float32"]))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_array_round_trips_through_a_packed_file(tmp_path_factory, dtype, n, share, seed, precision):
    """Fuzzed arrays (any dtype, size, share of zeros) through :func:`save_packed` and
    :func:`load_npz`: integers and bools exactly, floats as :func:`rounded` says."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        a = (rng.normal(0, 1, n) * (rng.random(n) < share)).astype(dtype)
    elif dtype is np.bool_:
        a = rng.random(n) < share
    else:
        info = np.iinfo(dtype)
        a = (rng.integers(max(info.min, -1000), min(info.max, 1000), n) * (rng.random(n) < share)).astype(dtype)
    path = tmp_path_factory.mktemp("packed") / "a.npz"
    save_packed(path, {"a": a, "b": np.arange(3)}, precision)
    back = load_npz(path)
    want = rounded({"a": a}, precision)["a"]
    assert back["a"].dtype == a.dtype and back["a"].shape == a.shape
    np.testing.assert_array_equal(back["a"], want)
    np.testing.assert_array_equal(back["b"], np.arange(3))
    if np.dtype(dtype).kind != "f" or (precision == "float32" and dtype is np.float32):
        np.testing.assert_array_equal(want, a)


def test_packed_archives_are_smaller_and_reproducible(tmp_path):
    rng = np.random.default_rng(2)
    arrays = {"w": _sparse(rng, 1 << 20, 0.12), "positive": (rng.random(1 << 20) < 0.1).astype(np.uint8)}
    np.savez_compressed(tmp_path / "plain.npz", **arrays)
    save_packed(tmp_path / "a.npz", arrays, "bfloat16")
    save_packed(tmp_path / "b.npz", arrays, "bfloat16")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    assert (tmp_path / "a.npz").stat().st_size < 0.6 * (tmp_path / "plain.npz").stat().st_size
    with zipfile.ZipFile(tmp_path / "a.npz") as zf:
        kinds = {i.filename: i.compress_type for i in zf.infolist()}
    assert kinds["w@bf16.npy"] == zipfile.ZIP_LZMA


def test_damaged_packed_archives_are_refused_naming_the_file(tmp_path):
    rng = np.random.default_rng(3)
    members = pack({"w": _sparse(rng, 100_000, 0.3)}, "float32")
    short = dict(members, **{"w@values": members["w@values"][:-1]})
    np.savez(tmp_path / "short.npz", **short)
    with pytest.raises(ModelFileError, match=r"short\.npz.*damaged packed archive.*positions"):
        load_npz(tmp_path / "short.npz")
    np.savez(tmp_path / "noshape.npz", **{k: v for k, v in members.items() if k != "w@shape"})
    with pytest.raises(ModelFileError, match=r"noshape\.npz.*lacks its dtype or shape"):
        load_npz(tmp_path / "noshape.npz")
    save_packed(tmp_path / "ok.npz", {"w": _sparse(rng, 100_000, 0.3)})
    data = bytearray((tmp_path / "ok.npz").read_bytes())
    data[len(data) // 3] ^= 0xFF
    (tmp_path / "flipped.npz").write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=r"flipped\.npz"):
        load_npz(tmp_path / "flipped.npz")
