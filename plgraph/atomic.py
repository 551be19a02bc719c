"""Atomic file writes for every output of plgraph (models, tables, figures' data): a
temporary file in the target folder, then ``os.replace``, so a reader (or a run
interrupted with Ctrl-C) sees either the old or the new complete file, never a partial
one.  Files get the usual permissions (0666 minus the umask; ``tempfile.mkstemp``
alone would leave them 0600)."""
from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager

import numpy as np


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def _temporary_beside(path):
    """Yield a temporary path in ``path``'s folder (same suffix); on success move it onto
    ``path``, on any exception delete it."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=os.path.splitext(path)[1], dir=folder)
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_with(path, write) -> None:
    """``write(tmp_path)``, then move the result onto ``path``."""
    with _temporary_beside(path) as tmp:
        write(tmp)


@contextmanager
def atomic_open(path, mode: str = "w"):
    """A handle on a temporary file beside ``path`` (text modes: UTF-8, ``\\n`` line
    ends), moved onto ``path`` when the block ends without an exception."""
    kwargs = {} if "b" in mode else {"encoding": "utf-8", "newline": "\n"}
    with _temporary_beside(path) as tmp, open(tmp, mode, **kwargs) as handle:
        yield handle


def atomic_savez(path, **arrays) -> None:
    """``np.savez`` (uncompressed: fast to write and to load), atomically; ``path`` is
    used as given (numpy adds ``.npz`` only to file names, not to open handles)."""
    with atomic_open(path, "wb") as handle:
        np.savez(handle, **arrays)


def atomic_savez_compressed(path, **arrays) -> None:
    """``np.savez_compressed``, atomically, ``path`` as given."""
    with atomic_open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)


def atomic_text(path, text: str) -> None:
    with atomic_open(path, "w") as handle:
        handle.write(text)


def atomic_json(path, doc, indent: int | None = 1) -> None:
    atomic_text(path, json.dumps(doc, indent=indent) + "\n")
