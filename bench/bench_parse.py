"""Benchmark: ``plgraph parse`` over the test split.

Parses every test sentence (gold tags; the tree with null elements and co-indices
included) with ``parse_many`` -- what ``python -m plgraph parse --jobs N`` runs -- pinned to
one core with one job, then to two cores with two jobs, after a warm-up sentence (numba's
caches).  Prints sentences/s and seconds per sentence, for all sentences and for those of
at most 40 words, beside the seed's published 4.3 s a sentence (WSJ 23, the Scala parser),
and the peak RSS.  Each scorer the model folder holds -- the linear passes in ``M`` and the
neural model in ``M/neural`` (:mod:`plgraph.parser.scoring.neural`) -- runs in a process of its own (its
own peak RSS), one after the other, so each is the other's peer.

    python bench/bench_parse.py --model-dir runs/parser [--limit N] [--scorer linear|neural]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from _util import pin_cores

THESIS_SECONDS = 4.3


def measure(model_dir: str, scorer: str, limit: int) -> dict:
    """Load the ``scorer``'s parser, parse the test split on 1 then 2 cores: the figures."""
    import plgraph

    start = time.perf_counter()
    from plgraph.parser import Parser

    parser = Parser.load(model_dir, scorer=scorer)
    load = time.perf_counter() - start
    sents = plgraph.corpus("test").sentences()
    if limit:
        sents = sents[:limit]
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
        rows.append({"cores": cores, "wall": wall, "n": len(results), "n40": len(short),
                     "wall40": cpu40 * wall / max(cpu, 1e-9), "failed": sum(r.failed for r in results)})
    return {"scorer": scorer, "load": load, "rows": rows,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", default="runs/parser")
    ap.add_argument("--limit", type=int, default=0, help="only the first N test sentences (0: all)")
    ap.add_argument("--scorer", choices=["linear", "neural"], default=None,
                    help="only this scorer (default: each the folder holds, in its own process)")
    ap.add_argument("--json", default=None, help=argparse.SUPPRESS)      # a child's output
    args = ap.parse_args()
    if args.scorer:
        out = measure(args.model_dir, args.scorer, args.limit)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump(out, fh)
            return 0
        docs = [out]
    else:
        from plgraph.parser.scoring.neural.folder import is_neural_folder, neural_dir

        scorers = [s for s, ok in (("linear", os.path.exists(os.path.join(args.model_dir, "parser.json"))),
                                   ("neural", is_neural_folder(neural_dir(args.model_dir)))) if ok]
        docs = []
        for scorer in scorers:
            with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
                subprocess.run([sys.executable, __file__, "--model-dir", args.model_dir, "--limit", str(args.limit),
                                "--scorer", scorer, "--json", tmp.name], check=True)
                with open(tmp.name, encoding="utf-8") as fh:
                    docs.append(json.load(fh))
    first = docs[0]["rows"][0]
    print(f"{first['n']} test sentences ({first['n40']} of at most 40 words); model {args.model_dir}")
    print(f"\n{'run':44s} {'sentences/s':>11s} {'s/sentence':>10s} {'s/sent <=40':>11s} {'fallback':>8s} "
          f"{'peak MB':>8s}")
    for doc in docs:
        for r in doc["rows"]:
            name = f"{doc['scorer']}: parse --jobs {r['cores']} on {r['cores']} core(s)"
            print(f"{name:44s} {r['n'] / r['wall']:11.2f} {r['wall'] / r['n']:10.3f} "
                  f"{r['wall40'] / max(r['n40'], 1):11.3f} {r['failed']:8d} {doc['peak_mb']:8.0f}")
    print(f"{'seed (published, WSJ 23, <= 40)':44s} {1 / THESIS_SECONDS:11.2f} {THESIS_SECONDS:10.3f} "
          f"{THESIS_SECONDS:11.3f}")
    print("\n(s/sent <= 40: the wall time's share of the sentences of at most 40 words, by their parse times; "
          "load: " + ", ".join(f"{d['scorer']} {d['load']:.1f} s" for d in docs) + ")")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
