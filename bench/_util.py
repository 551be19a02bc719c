"""Shared helpers of the benchmark scripts."""
from __future__ import annotations

import os
import time


def pin_one_core() -> None:
    """Run on a single core (the targets are stated per core)."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def best_of(fn, repeat: int):
    """(fastest wall time in seconds, result of the last call) over ``repeat`` calls."""
    times = []
    out = None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out
