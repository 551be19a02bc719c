"""Benchmark: rendering arc diagrams as SVG.

Target: the SVG of a 40-word sentence with traces in <= 20 ms.
Times layout + SVG for every sample sentence of 38-42 words with at least one
trace edge (warm, one core), and the explorer's redraw.  No peer is measured:
spaCy's displaCy (the style anchor) draws trees only and is not a dependency.

    python bench/bench_viz.py [--repeat 20]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

from _util import pin_one_core


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    pin_one_core()
    import plgraph
    from plgraph.viz import compute_layout, explore, render_svg

    sents = [s for s in plgraph.corpus("all") if 38 <= len(s.graph.words) <= 42 and (s.graph.kind == 1).any()]
    render_svg(sents[0].graph)  # warm the kernels
    per_layout, per_svg = [], []
    for s in sents:
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            compute_layout(s.graph)
        per_layout.append((time.perf_counter() - t0) / args.repeat * 1000)
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            render_svg(s.graph)
        per_svg.append((time.perf_counter() - t0) / args.repeat * 1000)
    ex = explore(sents)
    t0 = time.perf_counter()
    for s in sents:
        ex.sentence.value = s.id
    redraw = (time.perf_counter() - t0) / len(sents) * 1000
    print(f"{len(sents)} sample sentences of 38-42 words with traces; one core, mean of {args.repeat} renders each")
    print(f"{'stage':40s} {'mean ms':>8s} {'max ms':>8s}")
    print(f"{'layout':40s} {statistics.mean(per_layout):8.2f} {max(per_layout):8.2f}")
    print(f"{'layout + SVG string (render_svg)':40s} {statistics.mean(per_svg):8.2f} {max(per_svg):8.2f}")
    print(f"{'explorer: select sentence + redraw':40s} {redraw:8.2f}")
    print(f"\ntarget <= 20 ms for a 40-word sentence: {'met' if max(per_svg) <= 20 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
