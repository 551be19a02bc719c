"""Benchmark: first-call numba compilation, what a fresh clone pays once.

Each job runs twice in a subprocess with an empty numba cache (``NUMBA_CACHE_DIR`` in a
temporary folder) and an empty plgraph cache: the first run compiles every kernel it calls
and writes the cache, the second loads it.  Per run it prints the wall time, the seconds
spent in numba's compiler (its documented event API, ``numba:compile`` events; nested
compilations counted once), the number of kernel specialisations compiled and the peak
RSS; then the kernels that took longest to compile.

    python bench/bench_compile.py [--jobs dep-train,parse-linear] [--top 8]

Jobs: ``dep-train`` (``dep train`` on the first 30 sentences of UD English-EWT train, 2 epochs: the dependency
trainer's and parser's kernels, which the coarse arc pruner shares), ``parse-linear``
(``parse --scorer linear`` of two sentences with the released model: the chart, passes
1-3), ``pruners`` (the notebooks' quick coarse models trained from scratch, ~4 minutes).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# What runs inside the child: a listener on numba's compile events around the job.
_CHILD = r'''
import json, resource, sys, time
from numba.core import event

stack, per_kernel = [], {}


class Listener(event.Listener):
    def on_start(self, ev):
        stack.append([ev.data["dispatcher"], time.perf_counter(), 0.0])

    def on_end(self, ev):
        disp, t0, child = stack.pop()
        took = time.perf_counter() - t0
        if stack:
            stack[-1][2] += took
        f = disp.py_func
        name = f"{f.__module__}.{f.__qualname__}"
        n, s = per_kernel.get(name, (0, 0.0))
        per_kernel[name] = (n + 1, s + took - child)


event.register("numba:compile", Listener())
start = time.perf_counter()
job = json.loads(sys.argv[1])
if job["kind"] == "cli":
    from plgraph.cli import main
    assert main(job["argv"]) == 0
else:
    from plgraph.pruners.notebook import notebook_models
    notebook_models(quick=True)
wall = time.perf_counter() - start
plgraph_kernels = {k: v for k, v in per_kernel.items() if k.startswith("plgraph.")}
print("RESULT " + json.dumps({
    "wall_s": wall,
    "compile_s": sum(s for _, s in per_kernel.values()),
    "specialisations": sum(n for n, _ in plgraph_kernels.values()),
    "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "kernels": sorted(([k, n, s] for k, (n, s) in per_kernel.items()), key=lambda r: -r[2]),
}))
'''


def _first_sentences(src: Path, dst: Path, n: int) -> None:
    """The first ``n`` sentences of the CoNLL-U file ``src`` into ``dst``."""
    blocks = src.read_text(encoding="utf-8").split("\n\n")[:n]
    dst.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")


def _jobs(work: Path) -> dict:
    from plgraph.data import find_corpus

    ewt = find_corpus("ud-english-ewt")
    _first_sentences(next(ewt.rglob("*-ud-train.conllu")), work / "train.conllu", 30)
    _first_sentences(next(ewt.rglob("*-ud-dev.conllu")), work / "dev.conllu", 8)
    (work / "two.txt").write_text("I don't know who she wanted to see.\nThe company said it would hire workers.\n")
    return {
        "dep-train": {"kind": "cli", "argv": ["dep", "train", "--train", str(work / "train.conllu"),
                                              "--dev", str(work / "dev.conllu"), "--model", str(work / "dep-{run}"),
                                              "--epochs", "2", "--threads", "1", "--no-progress"]},
        "parse-linear": {"kind": "cli", "argv": ["parse", "--scorer", "linear", "--in", "raw", str(work / "two.txt"),
                                                 "--out", str(work / "two.ptb"), "--no-progress"]},
        "pruners": {"kind": "pruners"},
    }


def _run(job: dict, run: str, numba_cache: Path, plgraph_cache: Path) -> dict:
    if "argv" in job:
        job = dict(job, argv=[a.replace("{run}", run) for a in job["argv"]])
    env = dict(os.environ, NUMBA_CACHE_DIR=str(numba_cache), PLGRAPH_CACHE=str(plgraph_cache))
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(job)], env=env, capture_output=True, text=True)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"job failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", default="dep-train,parse-linear", help="comma-separated: dep-train, parse-linear, pruners")
    parser.add_argument("--top", type=int, default=8, help="kernels listed per job")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="plgraph-compile-") as tmp:
        work = Path(tmp)
        jobs = _jobs(work)
        unknown = [j for j in args.jobs.split(",") if j not in jobs]
        if unknown:
            parser.error(f"unknown job(s) {unknown}; choose from {sorted(jobs)}")
        print(f"{'job':<13} {'run':<6} {'wall s':>8} {'compile s':>10} {'kernels':>8} {'peak RSS MiB':>13}")
        for name in args.jobs.split(","):
            cache, pcache = work / f"numba-{name}", work / f"plgraph-{name}"
            results = [(run, _run(jobs[name], run, cache, pcache)) for run in ("cold", "warm")]
            for run, r in results:
                print(f"{name:<13} {run:<6} {r['wall_s']:8.1f} {r['compile_s']:10.1f} {r['specialisations']:8d} "
                      f"{r['peak_rss_mib']:13.0f}")
            for kernel, n, s in results[0][1]["kernels"][:args.top]:
                print(f"    {s:6.1f} s  {n}x  {kernel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
