"""Packed arrays: the compact encoding of released model files (``.npz`` archives).

A trained model keeps its weights as dense arrays: hashed feature weights of which L1
regularisation leaves most at zero, in float32.  A *packed* archive stores the same
arrays in a fraction of the space, as ordinary ``.npy`` members (no pickle), each
LZMA-compressed inside the zip unless that saves under 15% (:data:`STORE_ABOVE`):

* a float array with at most half its entries non-zero: the positions of the non-zero
  entries (a bitmap, or gaps between positions when sparser than 1 in 16) and their
  values in the archive's value precision;
* any other float array: its values in that precision;
* an integer array: the narrowest integer type that holds its values; for a strictly
  increasing one (offsets) the first value and the gaps after it; for one with at most
  :data:`SPARSE_INTS` of its entries non-zero (bitmaps), a bitmap of those and their values;
* a bool array: a bitmap;
* anything else (hash keys, strings, arrays under :data:`SMALL` entries): as it is.

Member names are ``<name>@<part>`` for a packed array; :func:`unpack` rebuilds each
array with its original name, dtype and shape.  The value precisions ``"float16"`` and
``"bfloat16"`` round the stored values (what the loader gets back is exactly
:func:`rounded`'s result); the choice is the release's (:mod:`plgraph.release`), which
measures what it costs.

:func:`plgraph.files.modelfile.load_npz` unpacks transparently, so every model loader reads a
packed archive as it reads the archive it was packed from.
"""
from __future__ import annotations

import io
import lzma
import zipfile

import numpy as np

from .atomic import atomic_open

#: separator of a packed member's name (``w@bits``): never in the name of a plain array
SEP = "@"
#: arrays with fewer entries are stored as they are
SMALL = 4096
#: a member is stored uncompressed when LZMA leaves it above this share of its size (hash
#: keys, a network's float16 weights: decompressing them would cost more than it saves)
STORE_ABOVE = 0.85
#: the time stamp of every member (zip needs one; a fixed one keeps the bytes reproducible)
FIXED_TIME = (2020, 1, 1, 0, 0, 0)
#: value precisions of packed floats: IEEE half (11 significant bits, range +-65504),
#: bfloat16 (float32's range, 8 significant bits: relative rounding error at most 2^-9),
#: or float32 as it is
PRECISIONS = ("float16", "bfloat16", "float32")
#: a float array is stored sparse when at most this share of its entries is non-zero
SPARSE_SHARE = 0.5
#: an integer array is stored sparse when at most this share of its entries is non-zero
SPARSE_INTS = 0.25
#: sparse positions are stored as gaps (else as a bitmap) below this share of non-zeros
GAPS_SHARE = 1 / 16


def _narrowest_int(a: np.ndarray) -> np.dtype:
    low, high = (int(a.min()), int(a.max())) if a.size else (0, 0)
    for dt in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32):
        info = np.iinfo(dt)
        if info.min <= low and high <= info.max:
            return np.dtype(dt)
    return a.dtype


def _meta(name: str, a: np.ndarray) -> dict:
    return {f"{name}{SEP}dtype": np.array(a.dtype.str), f"{name}{SEP}shape": np.array(a.shape, np.int64)}


#: the largest magnitudes the 16-bit precisions hold (bfloat16: what does not round up to
#: infinity)
FLOAT16_MAX = 65504.0
BFLOAT16_MAX = 3.3895313e38


def to_bfloat16(values: np.ndarray) -> np.ndarray:
    """The bfloat16 bit patterns (uint16) of ``values`` (finite, at most
    :data:`BFLOAT16_MAX` in magnitude): float32's upper half, rounded to nearest, ties to
    even."""
    bits = np.ascontiguousarray(values, np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bfloat16(patterns: np.ndarray) -> np.ndarray:
    """The float32 values of bfloat16 bit patterns (uint16)."""
    return (np.asarray(patterns).astype(np.uint32) << 16).view(np.float32)


def pack(arrays: dict, precision: str = "float16") -> dict:
    """The members of a packed archive holding ``arrays`` (``{name: array}``; names must
    not contain :data:`SEP`).  ``precision``: of packed float values (:data:`PRECISIONS`)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}: expected one of {', '.join(PRECISIONS)}")
    out = {}
    for name, value in arrays.items():
        if SEP in name:
            raise ValueError(f"array name {name!r} contains {SEP!r}")
        a = np.asarray(value)
        kind = a.dtype.kind
        if a.size < SMALL or kind not in "fiub" or a.dtype.itemsize > 8:
            out[name] = a
            continue
        flat = a.reshape(-1)
        if kind == "f":
            out.update(_meta(name, a))
            nz = np.flatnonzero(flat)
            if nz.size <= SPARSE_SHARE * flat.size:
                if nz.size < GAPS_SHARE * flat.size:
                    gaps = np.diff(nz, prepend=0)
                    out[f"{name}{SEP}gaps"] = gaps.astype(_narrowest_int(gaps))
                else:
                    out[f"{name}{SEP}bits"] = np.packbits(flat != 0)
                values = flat[nz]
            else:
                values = flat
            largest = float(np.abs(values).max()) if values.size else 0.0
            if precision == "bfloat16":
                if largest > BFLOAT16_MAX:
                    raise ValueError(f"array {name!r} has values beyond bfloat16's range; pack it as float32")
                out[f"{name}{SEP}bf16"] = to_bfloat16(values)
                continue
            if precision == "float16" and largest > FLOAT16_MAX:
                raise ValueError(f"array {name!r} has values beyond float16's range; pack it as bfloat16 or float32")
            out[f"{name}{SEP}values"] = values.astype(precision)
        elif kind == "b":
            out.update(_meta(name, a))
            out[f"{name}{SEP}bool"] = np.packbits(flat)
        elif flat.size > 1 and bool((flat[1:] > flat[:-1]).all()):
            out.update(_meta(name, a))
            gaps = np.diff(flat, prepend=flat.dtype.type(0))
            out[f"{name}{SEP}rising"] = gaps.astype(_narrowest_int(gaps))
        elif np.count_nonzero(flat) <= SPARSE_INTS * flat.size:
            out.update(_meta(name, a))
            nz = flat != 0
            out[f"{name}{SEP}bits"] = np.packbits(nz)
            values = flat[nz]
            out[f"{name}{SEP}ints"] = values.astype(_narrowest_int(values))
        else:
            narrow = _narrowest_int(flat)
            if narrow.itemsize >= a.dtype.itemsize:
                out[name] = a
                continue
            out.update(_meta(name, a))
            out[f"{name}{SEP}ints"] = flat.astype(narrow)
    return out


def is_packed(members) -> bool:
    """True if the member names ``members`` are those of a packed archive."""
    return any(SEP in name for name in members)


def _scatter(name: str, bits: np.ndarray, values: np.ndarray, size: int, dtype) -> np.ndarray:
    """A zero array of ``size`` with ``values`` where the bitmap ``bits`` is set."""
    where = np.flatnonzero(np.unpackbits(bits, count=size).view(bool))
    if where.size != values.size:
        raise ValueError(f"packed array {name!r}: {where.size} positions, {values.size} values")
    flat = np.zeros(size, dtype)
    flat[where] = values
    return flat


def unpack(members: dict) -> dict:
    """The arrays a packed archive's ``members`` hold (plain members pass through).
    ValueError when the parts of an array are missing or do not fit together."""
    out, parts = {}, {}
    for key, value in members.items():
        if SEP in key:
            name, part = key.split(SEP, 1)
            parts.setdefault(name, {})[part] = value
        else:
            out[key] = value
    for name, p in parts.items():
        try:
            dtype, shape = np.dtype(str(p["dtype"])), tuple(int(s) for s in p["shape"])
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"packed array {name!r} lacks its dtype or shape ({err})") from None
        size = int(np.prod(shape, dtype=np.int64))
        if "values" in p or "bf16" in p:
            values = (np.asarray(p["values"]) if "values" in p else from_bfloat16(p["bf16"])).astype(dtype)
            if "bits" in p:
                flat = _scatter(name, p["bits"], values, size, dtype)
            elif "gaps" in p:
                pos = np.cumsum(p["gaps"], dtype=np.int64)
                if pos.size != values.size or (pos.size and (int(pos[-1]) >= size or int(pos[0]) < 0)):
                    raise ValueError(f"packed array {name!r}: positions do not fit its shape {shape}")
                flat = np.zeros(size, dtype)
                flat[pos] = values
            else:
                flat = values
        elif "bool" in p:
            flat = np.unpackbits(p["bool"], count=size).astype(bool)
        elif "rising" in p:
            flat = np.cumsum(p["rising"], dtype=dtype)
        elif "ints" in p and "bits" in p:
            flat = _scatter(name, p["bits"], np.asarray(p["ints"]).astype(dtype), size, dtype)
        elif "ints" in p:
            flat = np.asarray(p["ints"]).astype(dtype)
        else:
            raise ValueError(f"packed array {name!r} has no values")
        if flat.size != size:
            raise ValueError(f"packed array {name!r} has {flat.size} entries, its shape {shape} needs {size}")
        out[name] = flat.reshape(shape)
    return out


def rounded(arrays: dict, precision: str = "float16") -> dict:
    """``arrays`` as a packed archive of them gives them back (float values rounded to
    ``precision``); what a checksum of the loaded arrays must be computed on."""
    return unpack(pack(arrays, precision))


def save_packed(path, arrays: dict, precision: str = "float16") -> dict:
    """Write ``arrays`` packed (:func:`pack`) to the ``.npz`` ``path`` atomically (``path``
    as given): each member LZMA-compressed unless that saves less than 15%
    (:data:`STORE_ABOVE`), with a fixed time stamp, so that the same arrays give the same
    bytes.  Returns the arrays as a loader reads them back (:func:`rounded`'s result)."""
    members = pack(arrays, precision)
    with atomic_open(path, "wb") as handle, zipfile.ZipFile(handle, "w", allowZip64=True) as zf:
        for name, value in members.items():
            data = io.BytesIO()
            np.lib.format.write_array(data, np.asanyarray(value), allow_pickle=False)
            data = data.getvalue()
            # what LZMA hardly shrinks is stored: reading it back costs nothing
            method = zipfile.ZIP_LZMA if len(lzma.compress(data)) < STORE_ABOVE * len(data) else zipfile.ZIP_STORED
            zf.writestr(zipfile.ZipInfo(name + ".npy", date_time=FIXED_TIME), data, compress_type=method)
    return unpack(members)


__all__ = ["pack", "unpack", "is_packed", "rounded", "save_packed", "PRECISIONS", "SEP", "SMALL"]
