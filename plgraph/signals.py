"""Signals while a command runs: Ctrl-C held back at start-up, SIGTERM handled as Ctrl-C.

Dependency-free (standard library only), so that ``python -m plgraph`` can hold Ctrl-C
before it imports anything heavy.  Python runs signal handlers in the main thread,
whichever thread the OS delivered the signal to, and only the main thread can install
them: elsewhere both helpers change nothing.
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


@contextmanager
def held_interrupts():
    """Hold Ctrl-C back while the block runs and raise ``KeyboardInterrupt`` at its end
    if one came: for start-up, where an import cut short can leave numba's or a C
    library's state broken (a crash at exit), and a stream half reconfigured can lose
    ``sys.stderr``."""
    got: list = []
    guard = threading.current_thread() is threading.main_thread()
    if guard:
        previous = signal.signal(signal.SIGINT, lambda *_: got.append(True))
    try:
        yield
    finally:
        if guard:
            signal.signal(signal.SIGINT, previous)
    if got:
        raise KeyboardInterrupt


class TerminationAsInterrupt:
    """While a command runs, SIGTERM is handled as Ctrl-C (the command's own SIGINT
    handling runs: partial output is written, training stops at a safe point), and
    :attr:`seen` records it so that the exit status is 143 instead of 130."""

    def __init__(self):
        self.seen = False
        self._previous = None

    def _handler(self, signum, frame):
        self.seen = True
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGTERM, self._handler)
        return self

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)
        return False


__all__ = ["held_interrupts", "TerminationAsInterrupt"]
