"""Signals while plgraph runs: Ctrl-C held back at start-up (:func:`held_interrupts`),
deferred to safe points during work (:func:`deferred_interrupts`, :func:`check_interrupt`),
and SIGTERM handled as Ctrl-C (:class:`TerminationAsInterrupt`).

A ``KeyboardInterrupt`` raised while a compiled kernel runs (Python's SIGINT handler runs
when a kernel calls back into the interpreter, e.g. to allocate) surfaces as
``SystemError: ... returned a result with an exception set``, or gets lost.  Inside
:func:`deferred_interrupts` the first SIGINT only sets a flag; :func:`check_interrupt`
(called by :func:`plgraph.learn.run_epoch` between batches, and by the training loops
between stages) raises the ``KeyboardInterrupt`` there.  A second SIGINT raises at once
(the user insists), and :func:`as_interrupt` turns the ``SystemError`` that may then come
out of a kernel back into ``KeyboardInterrupt``.  When the block ends with a pending
interrupt, ``KeyboardInterrupt`` is raised at its end.

Dependency-free (standard library only), so that ``python -m plgraph`` can hold Ctrl-C
before it imports anything heavy.  Python runs signal handlers in the main thread,
whichever thread the OS delivered the signal to, and only the main thread can install
them: elsewhere (and when SIGINT is ignored or handled by someone else) these helpers
change nothing.
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


_state = {"depth": 0, "pending": 0}


def _handler(signum, frame):
    _state["pending"] += 1
    if _state["pending"] > 1:
        raise KeyboardInterrupt


def check_interrupt() -> None:
    """Raise ``KeyboardInterrupt`` if a SIGINT arrived in a :func:`deferred_interrupts`
    block (a safe point: no kernel runs)."""
    if _state["pending"]:
        _state["pending"] = 0
        raise KeyboardInterrupt


def caused_by_interrupt(err: BaseException) -> bool:
    """Is ``err`` a ``KeyboardInterrupt``, or caused (directly or through its context) by
    one -- e.g. the ``SystemError`` of a compiled kernel an interrupt hit?"""
    seen = 0
    while err is not None and seen < 20:
        if isinstance(err, KeyboardInterrupt):
            return True
        err = err.__cause__ or err.__context__
        seen += 1
    return False


@contextmanager
def as_interrupt():
    """Re-raise a ``SystemError`` caused by a ``KeyboardInterrupt`` (an interrupt that
    hit a compiled kernel) as ``KeyboardInterrupt``."""
    try:
        yield
    except SystemError as err:
        if caused_by_interrupt(err):
            raise KeyboardInterrupt from None
        raise


@contextmanager
def deferred_interrupts():
    """Defer SIGINT to the next :func:`check_interrupt` (see the module docstring);
    reentrant."""
    install = (_state["depth"] == 0 and threading.current_thread() is threading.main_thread()
               and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    if _state["depth"] == 0 and not install:
        with as_interrupt():
            yield
        return
    old = signal.signal(signal.SIGINT, _handler) if install else None
    if install:
        _state["pending"] = 0
    _state["depth"] += 1
    try:
        with as_interrupt():
            yield
            check_interrupt()
    finally:
        _state["depth"] -= 1
        if install:
            signal.signal(signal.SIGINT, old)
            _state["pending"] = 0


__all__ = ["held_interrupts", "TerminationAsInterrupt"]
