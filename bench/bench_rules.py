"""Benchmark: generating the 1EC rules, and deriving + counting the PTB sample.

Targets: generating all rules <= 20 s; deriving and counting all
3,914 sample sentences <= 10 s with warm numba kernels.  One core, best of
``--repeat`` runs.  There is no runnable peer: the reference generator is a
Python 3 script that needs the LaTeX templates, and its derivation finder is
part of the Scala parser.

    python bench/bench_rules.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import platform
import sys

from _util import best_of, pin_one_core


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    pin_one_core()
    import plgraph
    from plgraph.rules import count_rules, derive, full_tables, generate_rules
    from plgraph.rules.derive import graph_points

    def best(fn):
        return best_of(fn, args.repeat)

    def gen():
        generate_rules.cache_clear()
        full_tables.cache_clear()
        return full_tables()

    t_gen, tables = best(gen)
    sents = plgraph.corpus("all").sentences()
    derive(sents[0].graph)  # warm the kernel
    t_filter, _ = best(lambda: [graph_points(s.graph) for s in sents])
    t_count, usage = best(lambda: count_rules(sents, tables, progress=False))
    n = len(sents)
    print(f"PTB sample, {n} sentences; one core, best of {args.repeat} "
          f"({platform.machine()}, Python {platform.python_version()})")
    print(f"{'stage':58s} {'seconds':>8s}")
    print(f"{'generate 49,292 rules + build lookup tables':58s} {t_gen:8.2f}")
    print(f"{'representable edges of every sentence (dag1ecEdges)':58s} {t_filter:8.2f}")
    print(f"{'derive + count every sentence (incl. the line above)':58s} {t_count:8.2f}   ({n / t_count:.0f} sent/s)")
    print(f"\nderived {usage.n_derived}/{usage.n_sentences}; distinct combination rules {len(usage.combination)}")
    ok = t_gen <= 20 and t_count <= 10
    print(f"targets (generate <= 20 s, derive+count <= 10 s): {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
