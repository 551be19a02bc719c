"""Model files: one ``.npz`` archive of plain numpy arrays plus a JSON header.

No pickle anywhere: arrays are saved with :func:`numpy.savez` and loaded with
``allow_pickle=False``; the header (format version, method, order, options,
discounts, vocabulary) is UTF-8 JSON stored in the archive as the ``uint8``
array ``__header__``.  Every write goes through :mod:`plgraph.atomic` (a temporary file in the
target folder, then :func:`os.replace`), so an interrupted run never leaves
a half-written model behind.
"""
from __future__ import annotations

import json
import os

import numpy as np

from ..atomic import atomic_open
from ..errors import InputError

FORMAT = "plgraph-lm"
FORMAT_VERSION = 1


class ModelFileError(InputError):
    """A file that is not a readable plgraph language model."""


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
    """Inverse of :func:`save_arrays` (raises :class:`ModelFileError` on anything else)."""
    path = os.fspath(path)
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
    except (OSError, ValueError, EOFError) as err:
        raise ModelFileError(f"not a plgraph language model (.npz): {err}", path) from None
    blob = arrays.pop("__header__", None)
    if blob is None:
        raise ModelFileError("no __header__ in the archive: not a plgraph language model", path)
    try:
        header = json.loads(blob.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelFileError(f"unreadable model header: {err}", path) from None
    if header.get("format") != FORMAT:
        raise ModelFileError(f"not a plgraph language model (format {header.get('format')!r})", path)
    if header.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"model format version {header.get('format_version')} is not supported "
                             f"(this plgraph reads version {FORMAT_VERSION}); retrain the model", path)
    return header, arrays
