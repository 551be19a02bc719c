"""Safe loading of model files (``.npz`` archives and their JSON headers), for every
model loader of plgraph (dependency parser, pruners, rule tables, language models).

Whatever is wrong with a file -- missing, empty, truncated, bit-flipped, not a zip
archive, not JSON, an array or key missing or of the wrong shape / type, another format
version -- the loaders raise one exception, :class:`plgraph.errors.ModelFileError`,
whose message starts with the file's path and says what is wrong; never ``EOFError``,
``BadZipFile``, ``KeyError``, ``IndexError`` ...

API
---
* :func:`load_npz(path, required) <load_npz>` -> ``dict[str, np.ndarray]``: every array
  read into memory (so CRC errors surface here), ``required`` checked.
* :func:`load_json(path, required_keys) <load_json>` -> ``dict``.
* :func:`check_keys(doc, path, required, where)`: the same key/type check for a nested
  dict.
* :func:`check_version(doc, path, expected, kind) <check_version>`: the
  ``format_version`` field (:data:`VERSION_KEY`).  **Files written before format
  versions existed have no such field and count as version 1** (:data:`DEFAULT_VERSION`).
* :func:`load_header(path, required_keys, what, fmt, version, kind) <load_header>`:
  :func:`load_json` + :func:`check_format` + :func:`check_version`, what every model's
  JSON header needs.
* :func:`content_crc32` / :func:`check_crc32`: a CRC (JSON field ``crc32``) tying a
  model's JSON fields to its arrays (JSON has no CRC of its own; npz members do).
* :func:`model_errors(path, what) <model_errors>`: a context manager turning the
  ``ValueError`` / ``KeyError`` / ``IndexError`` / ``TypeError`` of building a model
  from loaded parts (parts that do not fit together) into a ModelFileError.
* :func:`check_array` / :func:`check_index_range`: consistency checks of loaded arrays
  (numba kernels do not check bounds: an index out of range must be refused here).

Each model kind keeps its own ``FORMAT_VERSION`` constant in its module and writes it
into its JSON as ``format_version``.
"""
from __future__ import annotations

import json
import lzma
import os
import tokenize
import zipfile
import zlib
from contextlib import contextmanager

import numpy as np

from ..errors import ModelFileError
from .packing import is_packed, unpack

#: the JSON field holding a model file's format version
VERSION_KEY = "format_version"
#: the version of files written before ``format_version`` existed
DEFAULT_VERSION = 1

#: ``required`` spec of :func:`load_npz`: name -> (ndim or None, dtype kinds or None),
#: dtype kinds as in ``np.dtype.kind``: "i" signed, "u" unsigned, "f" float, "b" bool,
#: e.g. ``{"w": (1, "f"), "keys": (1, "u"), "offsets": (1, "iu")}``.
ArraySpec = dict

_READ_ERRORS = (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error, lzma.LZMAError, KeyError,
                RuntimeError, NotImplementedError, OverflowError, MemoryError, TypeError, IndexError,
                UnicodeDecodeError,
                # a flipped byte in an .npy header: numpy parses the header with the tokenizer
                tokenize.TokenError, SyntaxError)


def _error(path, message: str) -> ModelFileError:
    return ModelFileError(message, source=os.fspath(path))


def _reason(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    if len(text) > 200:
        text = text[:200] + "..."
    return text


def require_file(path, what: str = "model file") -> None:
    """Raise ModelFileError unless ``path`` is an existing, non-empty regular file."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise _error(path, f"{what} is missing")
    if os.path.isdir(path):
        raise _error(path, f"{what} is a directory, not a file")
    try:
        size = os.path.getsize(path)
    except OSError as err:
        raise _error(path, f"{what} cannot be read ({_reason(err)})") from None
    if size == 0 and os.path.isfile(path):
        raise _error(path, f"{what} is empty")


def check_array(arrays: dict, path, name: str, ndim=None, kinds=None, shape=None) -> np.ndarray:
    """``arrays[name]``, checked: present, ``ndim`` dimensions, dtype kind in ``kinds``
    (a string such as ``"iu"``), ``shape`` (a tuple, None entries = any length)."""
    if name not in arrays:
        raise _error(path, f"array {name!r} is missing")
    a = arrays[name]
    if ndim is not None and a.ndim != ndim:
        raise _error(path, f"array {name!r} has {a.ndim} dimension(s), expected {ndim}")
    if kinds is not None and a.dtype.kind not in kinds:
        raise _error(path, f"array {name!r} has dtype {a.dtype}, expected kind {'/'.join(kinds)}")
    if shape is not None:
        if len(shape) != a.ndim or any(s is not None and s != t for s, t in zip(shape, a.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
            raise _error(path, f"array {name!r} has shape {a.shape}, expected {want}")
    return a


def check_index_range(a: np.ndarray, path, name: str, low: int, high: int) -> None:
    """Every value of ``a`` in ``[low, high)`` (indices that kernels use unchecked)."""
    if a.size and (int(a.min()) < low or int(a.max()) >= high):
        raise _error(path, f"array {name!r} has values outside [{low}, {high})")


def check_offsets(a: np.ndarray, path, name: str, total: int | None = None) -> None:
    """``a`` is a non-decreasing offset array starting at 0 (ending at ``total``)."""
    if a.ndim != 1 or a.size == 0 or int(a[0]) != 0 or (a.size > 1 and bool((np.diff(a) < 0).any())):
        raise _error(path, f"array {name!r} is not a non-decreasing offset array from 0")
    if total is not None and int(a[-1]) != total:
        raise _error(path, f"array {name!r} ends at {int(a[-1])}, expected {total}")


def load_npz(path, required: ArraySpec | None = None, what: str = "model file") -> dict:
    """All arrays of the ``.npz`` archive ``path`` (no pickle), read into memory; a packed
    archive (:mod:`plgraph.files.packing`, released models) is unpacked into the arrays it holds.

    ``required``: ``{name: (ndim or None, dtype kinds or None)}`` (see :data:`ArraySpec`);
    each must be present and fit.  Raises ModelFileError naming ``path`` for a missing,
    empty, truncated or corrupt file (zip CRC errors included), a non-archive, or a
    required array missing / mis-shaped."""
    path = os.fspath(path)
    require_file(path, what)
    try:
        with open(path, "rb") as handle:
            magic = handle.read(4)
    except OSError as err:
        raise _error(path, f"{what} cannot be read ({_reason(err)})") from None
    if magic not in (b"PK\x03\x04", b"PK\x05\x06"):
        raise _error(path, f"{what} is not an .npz archive (no zip header; corrupt?)")
    try:
        with np.load(path, allow_pickle=False) as z:
            if not isinstance(z, np.lib.npyio.NpzFile):
                raise _error(path, f"{what} is not an .npz archive")
            arrays = {k: np.asarray(z[k]) for k in z.files}
    except ModelFileError:
        raise
    except _READ_ERRORS as err:
        raise _error(path, f"{what} is not a readable .npz archive (truncated or corrupt: {_reason(err)})") from None
    except AttributeError:      # np.load on a lone .npy returns an array without __enter__
        raise _error(path, f"{what} is not an .npz archive") from None
    if is_packed(arrays):
        try:
            arrays = unpack(arrays)
        except (ValueError, TypeError) as err:
            raise _error(path, f"{what} is a damaged packed archive ({_reason(err)})") from None
    for name, (ndim, kinds) in (required or {}).items():
        check_array(arrays, path, name, ndim, kinds)
    return arrays


def check_keys(doc, path, required, where: str = "") -> dict:
    """``doc`` is a dict holding ``required`` keys: an iterable of names or a dict
    ``{name: type or tuple of types}`` (``float`` accepts ints; ``bool`` is not an int
    here).  ``where`` names the nested part (e.g. ``"config"``) in the message."""
    place = f" {where}" if where else ""
    if not isinstance(doc, dict):
        raise _error(path, f"JSON{place} is a {type(doc).__name__}, expected an object")
    items = required.items() if isinstance(required, dict) else ((k, None) for k in required)
    for key, types in items:
        if key not in doc:
            raise _error(path, f"key {key!r}{' in' + place if place else ''} is missing")
        if types is None:
            continue
        types = types if isinstance(types, tuple) else (types,)
        if float in types:
            types = types + (int,)
        val = doc[key]
        ok = isinstance(val, types) and not (isinstance(val, bool) and bool not in types)
        if not ok:
            names = " or ".join(t.__name__ for t in types if not (t is int and float in types))
            raise _error(path, f"key {key!r}{' in' + place if place else ''} is a {type(val).__name__}, "
                               f"expected {names}")
    return doc


def load_json(path, required_keys=(), what: str = "model file") -> dict:
    """The JSON object in ``path``, with ``required_keys`` checked (see
    :func:`check_keys`).  Raises ModelFileError naming ``path`` (and the line of a
    syntax error) for a missing, empty, non-UTF-8, non-JSON or non-object file."""
    path = os.fspath(path)
    require_file(path, what)
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
    except UnicodeDecodeError:
        raise _error(path, f"{what} is not UTF-8 text (corrupt?)") from None
    except OSError as err:
        raise _error(path, f"{what} cannot be read ({_reason(err)})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise ModelFileError(f"{what} is not valid JSON ({err.msg}, column {err.colno})", source=path,
                             line=err.lineno) from None
    except (ValueError, RecursionError) as err:
        raise _error(path, f"{what} is not valid JSON ({_reason(err)})") from None
    return check_keys(doc, path, required_keys)


def check_version(doc: dict, path, expected: int, kind: str) -> int:
    """The ``format_version`` of ``doc`` (missing: :data:`DEFAULT_VERSION`, i.e. a file
    written before versions existed); raises ModelFileError naming ``path``, the version
    found and ``expected`` unless they are equal.  ``kind`` names the model kind."""
    found = doc.get(VERSION_KEY, DEFAULT_VERSION) if isinstance(doc, dict) else None
    if found != expected or isinstance(found, bool):
        raise _error(path, f"{kind} format version {found!r}, but this plgraph reads version {expected} "
                           f"(retrain or convert the model)")
    return found


def check_format(doc: dict, path, expected: str, key: str = "format") -> None:
    """``doc[key] == expected`` (a format name such as ``"plgraph-dep-model"``)."""
    found = doc.get(key) if isinstance(doc, dict) else None
    if found != expected:
        raise _error(path, f"not a {expected} file ({key} is {found!r})")



def load_header(path, required_keys: dict, what: str, fmt: str, version: int, kind: str) -> dict:
    """The JSON header of a model: :func:`load_json` with ``required_keys``, the format
    name ``fmt`` (:func:`check_format`) and the format version (:func:`check_version`;
    a header with only the older ``version`` field counts as that version)."""
    doc = load_json(path, required_keys, what)
    check_format(doc, path, fmt)
    doc.setdefault(VERSION_KEY, doc.get("version", DEFAULT_VERSION))   # "version": the name before format_version
    check_version(doc, path, version, kind)
    return doc

#: the JSON field holding :func:`content_crc32`
CRC_KEY = "crc32"


def content_crc32(arrays: dict | None = None, doc: dict | None = None, keys=()) -> int:
    """CRC-32 of the ``arrays`` (sorted by name, their bytes) and of ``doc``'s ``keys``
    (canonical JSON): written into a model's JSON, it ties the JSON's model-defining
    fields to the arrays saved with it, so a bit flip in the JSON (which has no CRC of
    its own) or a JSON/npz pair from two different saves is detected."""
    crc = 0
    for name in sorted(arrays or {}):
        a = np.ascontiguousarray(arrays[name])
        crc = zlib.crc32(name.encode("utf-8"), crc)
        crc = zlib.crc32(a.view(np.uint8).reshape(-1) if a.size else b"", crc)
    if doc is not None:
        part = {k: doc.get(k) for k in keys}
        crc = zlib.crc32(json.dumps(part, sort_keys=True, separators=(",", ":")).encode("utf-8"), crc)
    return crc


def check_crc32(doc: dict, path, expected: int, what: str = "the arrays saved with it") -> None:
    """Raise ModelFileError naming ``path`` if ``doc`` holds a :data:`CRC_KEY` other
    than ``expected`` (files written before CRCs existed have none and pass)."""
    found = doc.get(CRC_KEY)
    if found is not None and found != expected:
        raise _error(path, f"checksum mismatch: the file is corrupt or does not belong to {what} (written by "
                           f"another run, or a save was interrupted); retrain or restore the files")


@contextmanager
def model_errors(path, what: str = "model file"):
    """Turn the errors of building a model from loaded parts that do not fit together
    (ValueError, KeyError, IndexError, TypeError, AttributeError) into ModelFileError
    naming ``path``.  PlgraphErrors pass unchanged."""
    from ..errors import PlgraphError

    try:
        yield
    except PlgraphError:
        raise
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, OverflowError) as err:
        kind = type(err).__name__
        raise _error(path, f"{what} has inconsistent contents ({kind}: {_reason(err)})") from None
