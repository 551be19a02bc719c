"""Shared helpers of the benchmark scripts."""
from __future__ import annotations

import os
import time


_START_CORES = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def pin_cores(cores: int) -> None:
    """Run on the first ``cores`` of the cores the process could use when it started (targets
    name a core count; pinning to one core and later to two works)."""
    if _START_CORES:
        os.sched_setaffinity(0, set(_START_CORES[:cores]))


def pin_one_core() -> None:
    """Run on a single core (the targets are stated per core)."""
    pin_cores(1)


def best_of(fn, repeat: int):
    """(fastest wall time in seconds, result of the last call) over ``repeat`` calls."""
    times = []
    out = None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out
