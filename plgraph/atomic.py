"""Atomic file writes for every output of plgraph (models, tables, figures' data): a temporary file in the target folder, then ``os.replace``, so a
reader (or a run interrupted with Ctrl-C) sees either the old or the new complete
file, never a partial one.  Files get the usual permissions (0666 minus the umask;
``tempfile.mkstemp`` alone would leave them 0600)."""
from __future__ import annotations

import json
import os
import tempfile

import numpy as np


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_with(path, write) -> None:
    """``write(tmp_path)``, then move the result onto ``path``."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    suffix = os.path.splitext(path)[1]
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=folder)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_savez(path, **arrays) -> None:
    """``np.savez`` (uncompressed: fast to write and to load), atomically."""
    atomic_write_with(path, lambda tmp: np.savez(tmp, **arrays))


def atomic_savez_compressed(path, **arrays) -> None:
    """``np.savez_compressed``, atomically."""
    atomic_write_with(path, lambda tmp: np.savez_compressed(tmp, **arrays))


def atomic_text(path, text: str) -> None:
    def write(tmp):
        with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)

    atomic_write_with(path, write)


def atomic_json(path, doc, indent: int | None = 1) -> None:
    atomic_text(path, json.dumps(doc, indent=indent) + "\n")
