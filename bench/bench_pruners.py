"""Benchmark: the graph parser's coarse passes.

Targets: the three coarse models plus inside-outside over the dev
split >= 100 sentences/s on one core (warm); training all three on the sample's
train split <= 10 minutes on 2 cores.

    python bench/bench_pruners.py [--model-dir M] [--train]

Without ``--model-dir`` the notebooks' cached full models are used (trained
first if missing; ``--train`` forces a fresh, timed training run into a
temporary folder, on both cores).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time

from _util import pin_one_core


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model-dir")
    parser.add_argument("--train", action="store_true", help="time a full training run first")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import plgraph
    from plgraph.pruners.data import sentence_data
    from plgraph.pruners.model import Pruners
    from plgraph.pruners.notebook import notebook_models
    from plgraph.pruners.training import train_pruners

    train_seconds = None
    if args.train:
        tr = plgraph.corpus("train").graphs()
        dv = plgraph.corpus("dev").graphs()
        folder = tempfile.mkdtemp(prefix="plgraph-pruners-")
        start = time.perf_counter()
        pr = train_pruners(tr, dv, folder)
        train_seconds = time.perf_counter() - start
    elif args.model_dir:
        pr = Pruners.load(args.model_dir)
    else:
        pr = notebook_models(quick=False)
    pin_one_core()
    dev = [sentence_data(g) for g in plgraph.corpus("dev").graphs()]
    pr.scores(dev[:3])  # warm
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        pr.scores(dev)
        best = min(best, time.perf_counter() - start)
    rate = len(dev) / best
    print(f"dev split: {len(dev)} sentences, {sum(len(s.words) for s in dev)} words; one core, best of {args.repeat}")
    print(f"{'stage':62s} {'seconds':>8s} {'sent/s':>8s}")
    print(f"{'arc pass + inside-outside (arcs, cells) + trace + spine scores':62s} {best:8.2f} {rate:8.1f}")
    if train_seconds is not None:
        print(f"{'training all three on the train split (2 cores)':62s} {train_seconds:8.1f}")
    print(f"\ntarget >= 100 sentences/s: {'met' if rate >= 100 else 'NOT met'}"
          + ("" if train_seconds is None else f"; training <= 600 s: {'met' if train_seconds <= 600 else 'NOT met'}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
