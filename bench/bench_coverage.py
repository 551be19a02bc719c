"""Benchmark: read + convert + classify the whole PTB sample on one core.

Prints a table with each stage's time and sentences/second, and NLTK's
bracketed-corpus reader timed in the same run as the peer for the reading stage
(the reference converter is Python 2 code and does not run here).  Numba
kernels are warmed up first; the best of ``--repeat`` runs is reported.

    python bench/bench_coverage.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import platform
import sys

from _util import best_of, pin_one_core


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    pin_one_core()
    import plgraph
    from plgraph.convert import tree_to_graph
    from plgraph.data import find_corpus, sample_files
    from plgraph.ptb import read_ptb
    from plgraph.structure import classify, warmup

    warmup()
    files = sample_files("all")

    def read_all():
        out = []
        for f in files:
            out += read_ptb(f)
        return out

    def best(fn):
        return best_of(fn, args.repeat)

    t_read, items = best(read_all)
    t_conv, graphs = best(lambda: [tree_to_graph(i.tree, sid=i.id) for i in items])
    t_class, _ = best(lambda: [classify(g) for g in graphs])
    t_all, _ = best(lambda: [classify(tree_to_graph(i.tree, sid=i.id)) for i in read_all()])
    n = len(items)

    import nltk.data
    from nltk.corpus.reader import BracketParseCorpusReader

    folder = find_corpus("ptb-sample")
    nltk.data.path.insert(0, str(folder.parents[2]))
    t_nltk, sents = best(lambda: BracketParseCorpusReader(str(folder), r"wsj_.*\.mrg").parsed_sents()[:])
    assert len(sents) == n

    rows = [
        ("plgraph read (.mrg -> cleaned trees)", t_read),
        ("plgraph convert (tree -> graph)", t_conv),
        ("plgraph classify (numba)", t_class),
        ("plgraph read + convert + classify", t_all),
        ("peer: NLTK BracketParseCorpusReader (read only)", t_nltk),
    ]
    print(f"PTB sample: {n} sentences, best of {args.repeat}, one core "
          f"({platform.processor() or platform.machine()}, Python {platform.python_version()}, plgraph "
          f"{plgraph.__version__})")
    print(f"{'stage':50s} {'seconds':>8s} {'sent/s':>9s}")
    for name, t in rows:
        print(f"{name:50s} {t:8.3f} {n / t:9.0f}")
    target = 2000
    rate = n / t_all
    print(f"\ntarget >= {target} sentences/s for read + convert + classify: "
          f"{'met' if rate >= target else 'NOT met'} ({rate:.0f}/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
