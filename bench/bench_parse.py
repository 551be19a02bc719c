"""Benchmark: ``plgraph parse`` over the test split (issue "Parsing with traces end to end").

Parses every test sentence (gold tags; the tree with null elements and co-indices
included) with :meth:`plgraph.parser.parsing.parser.Parser.parse_many` -- what ``python -m plgraph
parse --jobs N`` runs -- pinned to one core with one job, then to two cores with two jobs,
after a warm-up sentence (numba's caches).  Prints sentences/s and seconds per sentence,
for all sentences and for those of at most 40 words, beside the seed's published 4.3 s a
sentence (WSJ 23, the Scala parser; no peer runs here), and the peak RSS.

    python bench/bench_parse.py --model-dir runs/parser [--limit N]
"""
from __future__ import annotations

import argparse
import resource
import time

from _util import pin_cores

SEED_SECONDS = 4.3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", default="runs/parser")
    ap.add_argument("--limit", type=int, default=0, help="only the first N test sentences (0: all)")
    args = ap.parse_args()

    import plgraph
    from plgraph.parser.parsing.parser import Parser

    start = time.perf_counter()
    parser = Parser.load(args.model_dir)
    load = time.perf_counter() - start
    sents = plgraph.corpus("test").sentences()
    if args.limit:
        sents = sents[:args.limit]
    items = [(s.graph.words, s.graph.tags, s.id) for s in sents]
    parser.parse_result(items[0][0], items[0][1])            # warm
    rows = []
    for cores in (1, 2):
        pin_cores(cores)
        start = time.perf_counter()
        results = list(parser.parse_many(items, jobs=cores))
        wall = time.perf_counter() - start
        short = [r for r in results if len(r.words) <= 40]
        cpu40 = sum(r.seconds for r in short)
        cpu = sum(r.seconds for r in results)
        rows.append((cores, wall, len(results), cpu, len(short), cpu40 * wall / max(cpu, 1e-9),
                     sum(r.failed for r in results)))
    print(f"{len(items)} test sentences ({rows[0][4]} of at most 40 words); model {args.model_dir} "
          f"(loaded in {load:.1f} s)")
    print(f"\n{'run':34s} {'sentences/s':>11s} {'s/sentence':>10s} {'s/sent <=40':>11s} {'fallback':>8s}")
    for cores, wall, n, cpu, n40, wall40, failed in rows:
        print(f"{f'parse --jobs {cores} on {cores} core(s)':34s} {n / wall:11.2f} {wall / n:10.3f} "
              f"{wall40 / max(n40, 1):11.3f} {failed:8d}")
    print(f"{'seed (published, WSJ 23, <= 40)':34s} {1 / SEED_SECONDS:11.2f} {SEED_SECONDS:10.3f} "
          f"{SEED_SECONDS:11.3f} {'':>8s}")
    print(f"\n(s/sent <= 40: the wall time's share of the sentences of at most 40 words, by their parse times)")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
