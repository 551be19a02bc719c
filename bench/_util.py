"""Shared helpers of the benchmark scripts."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path


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


def build_c_evalb(folder: Path) -> Path | None:
    """The C EVALB (the reference-evalb corpus) compiled into ``folder``, with
    ``collins-nostop.prm`` (COLLINS.prm without the MAX_ERROR stop) beside it; None, saying
    why, without gcc or the sources."""
    from plgraph.data import find_corpus
    from plgraph.errors import CorpusNotFoundError

    try:
        src = find_corpus("reference-evalb")
    except CorpusNotFoundError as err:
        print(f"peer skipped: {err}")
        return None
    if shutil.which("gcc") is None:
        print("peer skipped: gcc not found")
        return None
    exe = folder / "evalb"
    subprocess.run(["gcc", "-O2", "-w", "-o", str(exe), str(src / "evalb.c")], check=True)
    prm = folder / "collins-nostop.prm"
    text = (src / "COLLINS.prm").read_text()
    prm.write_text(re.sub(r"(?m)^MAX_ERROR.*$", "MAX_ERROR 1000000", text))
    return exe
