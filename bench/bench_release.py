"""Benchmark: the released model.

For each scorer of the released folder (``plgraph/models/parser``, packed) and, as its
peer measured in the same run, of the trained folder it was packed from (``--peer``,
default ``runs/parser``, when it is there): size on disk, the seconds ``Parser.load``
takes in a fresh process (the modules they use -- plgraph's, numba's
kernels, NLTK's tagger, PyTorch -- imported first and timed apart), and the peak RSS of
that process after parsing the test split's sentences of at most 40 words (gold tags,
one core, one job).  Each measurement runs in a process of its own after a warm-up process
that parses one sentence (numba's compiled kernels cached, so no compilation is
measured).  Targets: linear <= 15 MB, neural <= 30 MB, load <= 1 s, parsing within 500 MB
(linear).

    python bench/bench_release.py [--released DIR] [--peer runs/parser] [--limit N]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, os, resource, sys, time
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
folder, scorer, limit, warm = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "warm"
t0 = time.perf_counter()
import nltk.tag.perceptron
import plgraph
from plgraph.parser import Parser
if scorer == "neural":
    import torch
    import plgraph.parser.scoring.neural.network, plgraph.parser.scoring.neural.scorer
else:
    import plgraph.dep.model, plgraph.parser.scoring.pass2, plgraph.parser.scoring.pass3, plgraph.pruners
t1 = time.perf_counter()
parser = Parser.load(folder, scorer=scorer)
t2 = time.perf_counter()
sents = plgraph.corpus("test").sentences()
sents = [s for s in sents if len(s.graph.words) <= 40][: limit or None]
if warm:
    parser.parse_result(sents[0].graph.words, sents[0].graph.tags)
    sys.exit(0)
start = time.perf_counter()
statuses = {}
for s in sents:
    r = parser.parse_result(s.graph.words, s.graph.tags, sid=s.id)
    statuses[r.status] = statuses.get(r.status, 0) + 1
seconds = time.perf_counter() - start
print(json.dumps({"import_s": t1 - t0, "load_s": t2 - t1, "sentences": len(sents), "parse_s": seconds,
                  "statuses": statuses, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def folder_bytes(folder: Path, scorer: str) -> int:
    """Bytes on disk of ``scorer``'s files in ``folder`` (linear: all but ``neural/``,
    checkpoints, curves and logs left out of a trained folder as a release leaves them out)."""
    skip = ("checkpoint", "log.jsonl", "curves.csv", "release.json", "stats-")
    files = [p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(skip)
             and ".plgraph-lock" not in p.name]
    inside = [p for p in files if "neural" in p.relative_to(folder).parts[:1]]
    chosen = inside if scorer == "neural" else [p for p in files if p not in inside]
    return sum(p.stat().st_size for p in chosen)


def measure(folder: Path, scorer: str, limit: int) -> dict:
    args = [sys.executable, "-c", CHILD, str(folder), scorer, str(limit)]
    subprocess.run(args + ["warm"], check=True, capture_output=True)
    out = subprocess.run(args + ["measure"], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    from plgraph.models import released_dir

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--released", default=None, help="the released folder (default plgraph/models/parser)")
    ap.add_argument("--peer", default="runs/parser", help="the trained folder the release was packed from")
    ap.add_argument("--limit", type=int, default=0, help="parse only the first N test sentences (0: all <= 40 words)")
    args = ap.parse_args()
    try:
        import torch  # noqa: F401
        scorers = ["linear", "neural"]
    except ImportError:
        scorers = ["linear"]
        print("neural skipped: PyTorch is not installed")
    folders = [("released", Path(args.released) if args.released else released_dir())]
    if (Path(args.peer) / "parser.json").exists():
        folders.append(("peer (unpacked)", Path(args.peer)))
    else:
        print(f"peer skipped: no trained folder at {args.peer}")
    print(f"{'folder':16s} {'scorer':7s} {'MB':>7s} {'import s':>9s} {'load s':>7s} {'sent/s':>7s} "
          f"{'peak RSS MB':>12s}  statuses")
    for name, folder in folders:
        for scorer in scorers:
            if scorer == "neural" and not (folder / "neural").is_dir():
                continue
            m = measure(folder, scorer, args.limit)
            print(f"{name:16s} {scorer:7s} {folder_bytes(folder, scorer) / 1e6:7.2f} {m['import_s']:9.2f} "
                  f"{m['load_s']:7.2f} {m['sentences'] / m['parse_s']:7.1f} {m['peak_rss_mb']:12.0f}  "
                  f"{m['statuses']}", flush=True)
    print("targets: linear <= 15 MB, neural <= 30 MB; load <= 1 s; parsing (linear) within 500 MB; one core")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.exit(main())
