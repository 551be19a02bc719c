"""One writer per model folder: ``with folder_lock(model_dir): train(...)``.

Two training runs writing into one folder would interleave their checkpoints and
models and both report success; the lock makes the second one fail at once with a
:class:`FolderLockedError` naming the folder and the pid of the run holding it.

Contract
--------
* The lock is the file ``<folder>/.plgraph-lock`` (:data:`LOCK_NAME`), holding the
  owner's pid, locked with ``fcntl.flock``.  The kernel releases a flock when its
  process dies (even by SIGKILL), so the lock of a dead run is stale and simply taken
  over by the next run; no manual clean-up is ever needed.  Without ``fcntl`` (Windows)
  the file is created with ``O_CREAT | O_EXCL`` and a lock whose pid no longer runs is
  taken over.
* The lock is per open file, so a second lock of the same folder in the same process
  fails too (nested use must pass the lock on instead: see ``reentrant``).
* Released (the file deleted) when the ``with`` block ends, also on exceptions.
* Child processes do not inherit it (the descriptor is not inheritable).
"""
from __future__ import annotations

import os
import threading

from ..errors import OutputError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

#: name of the lock file inside the locked folder
LOCK_NAME = ".plgraph-lock"

_held: dict[str, "FolderLock"] = {}
_held_guard = threading.Lock()


class FolderLockedError(OutputError):
    """Another live process (pid given) holds the lock of a folder."""

    def __init__(self, folder, pid: int | None, what: str = "model folder"):
        self.folder = os.fspath(folder)
        self.pid = pid
        who = f"process {pid}" if pid else "another process"
        super().__init__(f"{what} {self.folder} is in use by {who} (another run writes into it); "
                         f"wait for it to finish or use another folder")


def _read_pid(path) -> int | None:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            text = handle.read(32).strip()
        return int(text) if text.isdigit() else None
    except OSError:
        return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


class FolderLock:
    """The lock of one folder (see the module docstring); use :func:`folder_lock`."""

    def __init__(self, folder, what: str = "model folder"):
        self.folder = os.path.abspath(os.fspath(folder))
        self.shown = os.fspath(folder)
        self.what = what
        self.path = os.path.join(self.folder, LOCK_NAME)
        self.fd: int | None = None

    # -- acquiring ---------------------------------------------------------------------------
    def acquire(self) -> "FolderLock":
        """Create the folder if needed and take its lock, or raise FolderLockedError
        (held by a live process) / OutputError (the folder cannot be written)."""
        try:
            os.makedirs(self.folder, exist_ok=True)
        except OSError as err:
            raise OutputError(f"cannot create {self.what} {self.shown}: {err.strerror or err}") from None
        for _ in range(20):   # retries only when a finishing run deletes the file under us
            fd = self._open()
            if fcntl is None:
                self.fd = fd
                return self._claim()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise FolderLockedError(self.shown, _read_pid(self.path), self.what) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self.fd = fd
                return self._claim()
            os.close(fd)      # locked a file its previous owner had just deleted: retry
        raise FolderLockedError(self.shown, _read_pid(self.path), self.what)

    def _open(self) -> int:
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        if fcntl is None:  # pragma: no cover - Windows: exclusive creation, stale pid taken over
            try:
                return os.open(self.path, flags | os.O_EXCL, 0o666)
            except FileExistsError:
                pid = _read_pid(self.path)
                if pid and pid != os.getpid() and _pid_alive(pid):
                    raise FolderLockedError(self.shown, pid, self.what) from None
                os.unlink(self.path)
                return os.open(self.path, flags | os.O_EXCL, 0o666)
        try:
            return os.open(self.path, flags, 0o666)
        except OSError as err:
            raise OutputError(f"cannot write into {self.what} {self.shown}: {err.strerror or err}") from None

    def _claim(self) -> "FolderLock":
        os.ftruncate(self.fd, 0)
        os.write(self.fd, f"{os.getpid()}\n".encode("ascii"))
        with _held_guard:
            _held[self.folder] = self
        return self

    # -- releasing ---------------------------------------------------------------------------
    def release(self) -> None:
        """Delete the lock file and drop the lock (idempotent)."""
        if self.fd is None:
            return
        with _held_guard:
            if _held.get(self.folder) is self:
                del _held[self.folder]
        try:
            os.unlink(self.path)     # while still locked: a waiting run then re-creates it
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> "FolderLock":
        return self if self.fd is not None else self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


class _Borrowed:
    """A no-op context for a folder this process already locked (reentrant use)."""

    def __init__(self, lock: FolderLock):
        self.lock = lock

    def __enter__(self):
        return self.lock

    def __exit__(self, *exc):
        return None


def folder_lock(folder, what: str = "model folder", reentrant: bool = False):
    """A context manager holding ``folder``'s lock for the ``with`` block.

    ``reentrant=True``: if this process already holds the lock of ``folder`` (an outer
    training run that calls an inner one on the same folder), reuse it instead of
    failing.  Raises :class:`FolderLockedError` when another run holds the lock."""
    key = os.path.abspath(os.fspath(folder))
    if reentrant:
        with _held_guard:
            held = _held.get(key)
        if held is not None and held.fd is not None:
            return _Borrowed(held)
    return FolderLock(folder, what)


def held_by(folder) -> int | None:
    """The pid recorded in ``folder``'s lock file if a live process holds it, else None."""
    path = os.path.join(os.fspath(folder), LOCK_NAME)
    pid = _read_pid(path)
    if pid is None:
        return None
    if fcntl is not None:
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return pid
        finally:
            os.close(fd)
        return None
    return pid if _pid_alive(pid) else None
