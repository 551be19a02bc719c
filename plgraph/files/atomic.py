"""Safe writes for every output of plgraph (models, tables, figures' data).

Contract
--------
* A **regular file or a new path** is written atomically: a temporary file
  ``.tmp-<pid>-*`` in the target's folder, then ``os.replace``, so a reader (or a run
  interrupted with Ctrl-C) sees either the old or the new complete file, never a partial
  one.  Files get the usual permissions (0666 minus the umask; ``tempfile.mkstemp``
  alone would leave them 0600), or keep the permissions of the file they replace.
* A **symlink** is followed: its target is replaced (atomically, by the rules above), the
  link stays a link.
* A **FIFO, character or block device** (``/dev/null``, ``/dev/stdout``, a named pipe) is
  opened and streamed to: it is never replaced by a regular file.
* ``"-"`` means standard output.
* Every failure to write is an :class:`~plgraph.errors.OutputError` naming the user's path
  (never the temporary file), and leaves an existing output untouched.

:func:`check_writable` tells before a long run whether an output can be written at all;
:func:`clean_stale_temporaries` removes the temporary files of killed runs.
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import time
import zipfile
from contextlib import contextmanager

import numpy as np

from ..errors import OutputError

_TMP_PREFIX = ".tmp-"
#: temporaries of a run whose pid can't be read (older plgraph) count as stale after this
_UNOWNED_STALE_AFTER_S = 3600.0


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _target(path) -> tuple[str, str]:
    """``(kind, resolved_path)`` where kind is ``"stdout"``, ``"stream"`` (FIFO, device),
    ``"file"`` (regular file or new path; symlinks resolved).  A directory is an error."""
    path = os.fspath(path)
    if path == "-":
        return "stdout", path
    real = os.path.realpath(path)
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return "file", real
    except OSError as err:
        raise OutputError(f"cannot write {path}: {err.strerror or err}") from None
    if stat.S_ISDIR(mode):
        raise OutputError(f"cannot write {path}: it is a directory")
    if stat.S_ISREG(mode):
        return "file", real
    return "stream", real


def _error(path, err: BaseException) -> OutputError:
    reason = getattr(err, "strerror", None) or str(err) or type(err).__name__
    return OutputError(f"cannot write {os.fspath(path)}: {reason}")


@contextmanager
def _temporary_beside(path):
    """Yield a temporary path in ``path``'s folder (same suffix); on success move it onto
    ``path``, on any exception delete it.  ``path`` is a resolved regular-file path."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f"{_TMP_PREFIX}{os.getpid()}-",
                               suffix=os.path.splitext(path)[1], dir=folder)
    os.close(fd)
    try:
        yield tmp
        try:
            perms = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            perms = 0o666 & ~_umask()
        os.chmod(tmp, perms)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_with(path, write) -> None:
    """``write(target_path)`` by the module's rules: for a regular file or new path
    ``write`` gets a temporary path that is moved onto ``path`` afterwards; for a FIFO or
    device it gets the device's own path; for ``"-"`` a temporary file whose bytes are then
    copied to standard output."""
    kind, real = _target(path)
    try:
        if kind == "stream":
            write(real)
        elif kind == "stdout":
            with tempfile.TemporaryDirectory() as folder:
                tmp = os.path.join(folder, "out")
                write(tmp)
                sys.stdout.flush()
                with open(tmp, "rb") as handle:
                    shutil.copyfileobj(handle, sys.stdout.buffer)
                sys.stdout.buffer.flush()
        else:
            with _temporary_beside(real) as tmp:
                write(tmp)
    except OutputError:
        raise
    except OSError as err:
        raise _error(path, err) from None


@contextmanager
def atomic_open(path, mode: str = "w"):
    """A handle to write ``path`` by the module's rules (text modes: UTF-8, ``\\n`` line
    ends); a regular file is replaced only when the block ends without an exception."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes only ('w' or 'wb'), not {mode!r}")
    kwargs = {} if "b" in mode else {"encoding": "utf-8", "newline": "\n"}
    kind, real = _target(path)
    try:
        if kind == "stdout":
            if "b" in mode:
                sys.stdout.flush()
                yield sys.stdout.buffer
                sys.stdout.buffer.flush()
            else:
                yield sys.stdout
                sys.stdout.flush()
        elif kind == "stream":
            with open(real, mode, **kwargs) as handle:
                yield handle
        else:
            with _temporary_beside(real) as tmp, open(tmp, mode, **kwargs) as handle:
                yield handle
    except OutputError:
        raise
    except OSError as err:
        raise _error(path, err) from None


def atomic_savez(path, **arrays) -> None:
    """``np.savez`` (uncompressed: fast to write and to load), atomically; ``path`` is
    used as given (numpy adds ``.npz`` only to file names, not to open handles)."""
    with atomic_open(path, "wb") as handle:
        np.savez(handle, **arrays)


def atomic_savez_compressed(path, level: int | None = None, **arrays) -> None:
    """``np.savez_compressed``, atomically, ``path`` as given; ``level``: the deflate
    level 1 (fastest) .. 9 (None: zlib's default, as numpy).  The file is a ``.npz``
    ``np.load`` reads either way (one ``<name>.npy`` member per array, no pickle)."""
    if level is None:
        with atomic_open(path, "wb") as handle:
            np.savez_compressed(handle, **arrays)
        return
    if not 1 <= level <= 9:
        raise ValueError(f"deflate level {level}: expected 1 .. 9")
    with atomic_open(path, "wb") as handle, \
            zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED, compresslevel=level, allowZip64=True) as zf:
        for name, value in arrays.items():
            with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(value), allow_pickle=False)


def atomic_text(path, text: str) -> None:
    with atomic_open(path, "w") as handle:
        handle.write(text)


def atomic_json(path, doc, indent: int | None = 1) -> None:
    atomic_text(path, json.dumps(doc, indent=indent) + "\n")


def check_writable(path) -> None:
    """Raise :class:`OutputError` naming ``path`` unless an output can be written there:
    an existing directory, a file (or device) without write permission, or a missing
    folder that cannot be created (a parent is a file, or not writable).  Creates nothing.
    Call it before long work so an unwritable output is reported at once."""
    shown = os.fspath(path)
    kind, real = _target(path)
    if kind == "stdout":
        return
    if kind == "stream" or os.path.exists(real):
        if not os.access(real, os.W_OK):
            raise OutputError(f"cannot write {shown}: permission denied")
        if kind == "stream":
            return
    folder = os.path.dirname(os.path.abspath(real))
    while not os.path.exists(folder):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    if not os.path.isdir(folder):
        raise OutputError(f"cannot write {shown}: {folder} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {shown}: folder {folder} is not writable")


def check_writable_dir(folder) -> None:
    """Like :func:`check_writable` for a folder that will hold outputs (a model folder):
    it must be a directory, or creatable, and writable."""
    folder = os.fspath(folder)
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise OutputError(f"cannot write into {folder}: it is not a directory")
    ancestor = os.path.dirname(os.path.abspath(folder))
    while not os.path.exists(ancestor) and os.path.dirname(ancestor) != ancestor:
        ancestor = os.path.dirname(ancestor)
    if not os.path.isdir(ancestor):
        raise OutputError(f"cannot write into {folder}: {ancestor} is not a directory")
    try:
        check_writable(os.path.join(folder, ".plgraph-write-check"))
    except OutputError as err:
        reason = str(err).rsplit(": ", 1)[-1]
        raise OutputError(f"cannot write into {folder}: {reason}") from None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_OWNED = re.compile(re.escape(_TMP_PREFIX) + r"(\d+)-")


def clean_stale_temporaries(folder) -> int:
    """Delete the ``.tmp-*`` files that killed runs left in ``folder``; return how many.

    A temporary named ``.tmp-<pid>-*`` is stale when no process ``<pid>`` runs (or it
    is this process's pid reused: never, as our own live temporaries are deleted on any
    exception); one without a pid (written by an older plgraph) when it is over an hour
    old.  A missing folder is fine (0)."""
    removed = 0
    now = time.time()
    for tmp in glob.glob(os.path.join(glob.escape(os.fspath(folder)), _TMP_PREFIX + "*")):
        match = _OWNED.match(os.path.basename(tmp))
        try:
            if match:
                pid = int(match.group(1))
                if pid == os.getpid() or _pid_alive(pid):
                    continue
            elif now - os.path.getmtime(tmp) < _UNOWNED_STALE_AFTER_S:
                continue
            if os.path.isfile(tmp) and not os.path.islink(tmp):
                os.unlink(tmp)
                removed += 1
        except OSError:
            continue
    return removed
