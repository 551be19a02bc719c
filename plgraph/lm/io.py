"""Model files: one ``.npz`` archive of plain numpy arrays plus a JSON header.

No pickle anywhere: arrays are saved with :func:`numpy.savez` and loaded with
``allow_pickle=False``; the header (format version, method, order, options,
discounts, vocabulary) is UTF-8 JSON stored in the archive as the ``uint8``
array ``__header__``.  Every write goes through :mod:`plgraph.files.atomic` (a temporary file in the
target folder, then :func:`os.replace`), so an interrupted run never leaves
a half-written model behind.

Reading never lets a foreign exception out: a missing, empty, truncated or bit-flipped
file, another kind of archive, a header that is not a JSON object, another format or
format version are each a :class:`~plgraph.errors.ModelFileError` naming the file and
what is wrong.  :func:`plgraph.lm.model.load_model` then checks that the arrays fit the
header (:mod:`plgraph.lm.model`).
"""
from __future__ import annotations

import json
import os

import numpy as np

from ..files.atomic import atomic_open
from ..errors import ModelFileError

__all__ = ["FORMAT", "FORMAT_VERSION", "ModelFileError", "save_arrays", "load_arrays", "check_version"]

FORMAT = "plgraph-lm"
FORMAT_VERSION = 1


def save_arrays(path, header: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` and the JSON ``header`` to ``path`` atomically."""
    head = dict(header, format=FORMAT, format_version=FORMAT_VERSION)
    blob = np.frombuffer(json.dumps(head, ensure_ascii=False).encode("utf-8"), np.uint8)
    for name, arr in arrays.items():
        if not isinstance(arr, np.ndarray) or arr.dtype == object:
            raise TypeError(f"array {name!r} must be a numeric numpy array")
    with atomic_open(path, "wb") as handle:
        np.savez(handle, __header__=blob, **arrays)


def load_arrays(path) -> tuple[dict, dict[str, np.ndarray]]:
    """Inverse of :func:`save_arrays`: ``(header, arrays)``.

    Raises :class:`ModelFileError` (naming ``path``) for anything that is not a complete
    plgraph language model archive of this format version."""
    path = os.fspath(path)
    arrays = _read_npz(path)
    blob = arrays.pop("__header__", None)
    if blob is None:
        raise ModelFileError("no __header__ in the archive: not a plgraph language model", path)
    header = _parse_header(blob, path)
    if header.get("format") != FORMAT:
        raise ModelFileError(f"not a plgraph language model (format {header.get('format')!r})", path)
    check_version(header.get("format_version"), path)
    return header, arrays


def check_version(version, path) -> None:
    """Raise :class:`ModelFileError` unless ``version`` is :data:`FORMAT_VERSION`."""
    if isinstance(version, bool) or not isinstance(version, int):
        raise ModelFileError(f"model format version {version!r} is not a version number", path)
    if version > FORMAT_VERSION:
        raise ModelFileError(f"model format version {version} was written by a newer plgraph (this one reads "
                             f"version {FORMAT_VERSION}): upgrade plgraph", path)
    if version != FORMAT_VERSION:
        raise ModelFileError(f"model format version {version} is not supported (this plgraph reads version "
                             f"{FORMAT_VERSION}); retrain the model", path)


def _reason(err: BaseException) -> str:
    text = getattr(err, "strerror", None) or str(err)
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _read_npz(path: str) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` archive ``path`` (no pickle)."""
    if os.path.isdir(path):
        raise ModelFileError("is a directory, not a model file", path)
    try:
        size = os.path.getsize(path)
    except OSError as err:
        raise ModelFileError(f"cannot read the model file ({err.strerror or err})", path) from None
    if size == 0:
        raise ModelFileError("empty file, not a plgraph language model (.npz)", path)
    try:
        npz = np.load(path, allow_pickle=False)
    except Exception as err:  # noqa: BLE001 - whatever a hostile file makes numpy / zipfile raise
        raise ModelFileError(f"not a plgraph language model (.npz archive), or a truncated one ({_reason(err)})",
                             path) from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise ModelFileError("a single numpy array (.npy), not a plgraph language model (.npz archive)", path)
    arrays = {}
    with npz:
        for name in npz.files:
            try:
                arrays[name] = npz[name]
            except Exception as err:  # noqa: BLE001
                raise ModelFileError(f"corrupt model file: array {name!r} cannot be read ({_reason(err)})",
                                     path) from None
    return arrays


def _parse_header(blob: np.ndarray, path: str) -> dict:
    if blob.dtype != np.uint8 or blob.ndim != 1:
        raise ModelFileError(f"__header__ is a {blob.dtype} array of shape {blob.shape}, not UTF-8 JSON bytes", path)
    try:
        header = json.loads(blob.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise ModelFileError(f"unreadable model header ({_reason(err)})", path) from None
    if not isinstance(header, dict):
        raise ModelFileError(f"the model header is a JSON {type(header).__name__}, not an object", path)
    return header


class Inconsistent(Exception):
    """Arrays of a model file that do not fit its header (turned into a
    :class:`ModelFileError` naming the file by :func:`plgraph.lm.model.load_model`)."""


def take(arrays: dict, name: str, kind: str, length: int | None = None) -> np.ndarray:
    """``arrays[name]`` as a 1-D array of ``kind`` (``"i"``: integers, as int64; ``"f"``:
    floats without NaN, as float64) of ``length`` entries if given; raises
    :class:`Inconsistent` saying what is wrong."""
    if name not in arrays:
        raise Inconsistent(f"array {name!r} is missing")
    arr = arrays[name]
    if arr.ndim != 1:
        raise Inconsistent(f"array {name!r} has shape {arr.shape}, not one dimension")
    if kind == "i":
        if arr.dtype.kind not in "iu":
            raise Inconsistent(f"array {name!r} holds {arr.dtype}, not integers")
        if arr.dtype == np.uint64 and len(arr) and int(arr.max()) > np.iinfo(np.int64).max:
            raise Inconsistent(f"array {name!r} holds integers too large for an index")
        arr = arr.astype(np.int64, copy=False)
    else:
        if arr.dtype.kind != "f":
            raise Inconsistent(f"array {name!r} holds {arr.dtype}, not floating-point numbers")
        arr = arr.astype(np.float64, copy=False)
        if np.isnan(arr).any():
            raise Inconsistent(f"array {name!r} holds NaN")
    if length is not None and len(arr) != length:
        raise Inconsistent(f"array {name!r} has {len(arr)} entries, expected {length}")
    return arr


def check_ptr(ptr: np.ndarray, name: str, total: int) -> None:
    """``ptr`` is a CSR-style pointer array: starts at 0, never decreases, ends at ``total``."""
    if len(ptr) == 0 or ptr[0] != 0 or ptr[-1] != total or (len(ptr) > 1 and np.any(np.diff(ptr) < 0)):
        raise Inconsistent(f"array {name!r} is not a pointer array from 0 to {total}")
