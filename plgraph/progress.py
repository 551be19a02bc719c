"""Progress bars of the training loops, and numba compilation kept out of them.

Contract
--------
* :func:`shown` ``(progress)``: whether a bar (and the lines below) is displayed for a
  loop's ``progress`` argument -- ``True`` / ``False`` as given, ``None`` only when
  standard error is a terminal (tqdm's own rule for its default output; in a notebook
  pass ``progress=True``).
* :func:`bar` ``(total, desc, progress)``: a ``tqdm.auto`` bar named ``desc`` that
  disappears when closed; the loop then writes one summary line with :func:`say`, so
  a finished loop leaves one line of text instead of a pile of bars.
* :func:`say` ``(line, progress)``: one line on standard output through
  ``tqdm.write`` (it does not tear a running terminal bar), only when :func:`shown`.
* :func:`warm_up` ``(key, fn, label, progress)``: runs ``fn`` -- a call of a model's
  numba kernels on a tiny input -- once per process for each ``key``, *before* a loop
  starts its timer and its bar, announcing it with "<label>: compiling numba
  kernels…" and the seconds it took.  Numba compiles a kernel at its first call (and
  with ``cache=True`` loads it from disk in later processes, which is quicker but not
  free); without the warm-up that first call happens inside the first batch, so the
  bar sits at 0 for minutes and epoch 1's time counts the compiler.  It returns the
  seconds spent (0.0 when ``key`` is already warm); a failing ``fn`` raises and the
  key stays cold.
* :func:`thread_imap` ``(job, items, threads, progress=False, desc=...)``: ``job(x)``
  for each of ``items``, yielded in input order, on ``threads`` threads when there is
  more than one thread and more than one item (the numba kernels release the GIL), under
  a :func:`bar`; :func:`thread_map` is its list.  Every threaded loop of the parser goes
  through them, so the results never depend on the number of threads.
"""
from __future__ import annotations

import sys
import time
from typing import Callable, Hashable, Iterable, Iterator

_WARM: set = set()


def shown(progress: bool | None) -> bool:
    """Is a bar displayed for this ``progress`` argument?"""
    if progress is None:
        isatty = getattr(sys.stderr, "isatty", None)
        return bool(isatty and isatty())
    return bool(progress)


def bar(total: int | None, desc: str, progress: bool | None, unit: str = "item"):
    """A ``tqdm.auto`` bar of ``total`` units (None: not known) named ``desc``, removed when closed."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit, disable=not shown(progress), leave=False)


def say(line: str, progress: bool | None) -> None:
    """Write ``line`` (stdout, via ``tqdm.write``) if bars are shown for ``progress``."""
    if shown(progress):
        from tqdm.auto import tqdm

        tqdm.write(line)


def warm_up(key: Hashable, fn: Callable[[], object], label: str, progress: bool | None = None) -> float:
    """Run ``fn`` once per process for ``key`` (see the module docstring); its seconds."""
    if key in _WARM:
        return 0.0
    say(f"{label}: compiling kernels… (numba; cached on disk after the first run)", progress)
    start = time.perf_counter()
    fn()
    seconds = time.perf_counter() - start
    _WARM.add(key)
    say(f"{label}: kernels ready in {seconds:.1f} s (not counted as training time)", progress)
    return seconds


def is_warm(key: Hashable) -> bool:
    """Has :func:`warm_up` run for ``key`` in this process?"""
    return key in _WARM


#: how many jobs per thread :func:`thread_imap` runs ahead of the result it yields
AHEAD = 16


def thread_imap(job: Callable, items: Iterable, threads: int = 1, *, progress: bool | None = False,
                desc: str = "", unit: str = "item") -> Iterator:
    """``job(x)`` for each of ``items``, yielded in input order as they finish (see the
    module docstring); a bar named ``desc`` counts them when :func:`shown` (with a total
    when ``items`` has a length).  ``items`` is read as the jobs are submitted: at most
    :data:`AHEAD` ``* threads`` jobs run ahead of the one yielded, so that neither the
    items nor the results held at a time grow with the number of items (an iterator
    reading a stream is read as the work goes on), while a long job does not leave the
    other threads idle (jobs that make something large -- a chart -- should return only
    what their caller keeps of it)."""
    total = len(items) if hasattr(items, "__len__") else None
    it = iter(items)
    with bar(total, desc, progress, unit) as b:
        if threads > 1 and total != 1:
            from collections import deque
            from concurrent.futures import ThreadPoolExecutor
            from itertools import islice

            with ThreadPoolExecutor(max_workers=threads) as pool:
                pending: deque = deque(pool.submit(job, x) for x in islice(it, AHEAD * threads))
                try:
                    while pending:
                        r = pending.popleft().result()
                        for x in islice(it, 1):
                            pending.append(pool.submit(job, x))
                        b.update(1)
                        yield r
                finally:
                    for f in pending:
                        f.cancel()
        else:
            for x in it:
                r = job(x)
                b.update(1)
                yield r


def thread_map(job: Callable, items: Iterable, threads: int = 1, *, progress: bool | None = False,
               desc: str = "", unit: str = "item") -> list:
    """``[job(x) for x in items]`` on ``threads`` threads (:func:`thread_imap`)."""
    return list(thread_imap(job, items, threads, progress=progress, desc=desc, unit=unit))
