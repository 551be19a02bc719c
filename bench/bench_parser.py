"""Benchmark: the graph parser's chart.

Targets (one core, warm, the sample's dev split):

* pass 1b (the chart in projective mode over the trained arc pass's scores, exact, with
  outside scores and the coarse mask) >= 300 sentences/s -- beside it, in the same run,
  its peer: Eisner's span max-marginals over the same scores (what pass 1 computes);
* the pass-2 chart (1EC, beam 100, cube depth 500, outside scores) over the trained arc
  pass's scores >= 30 sentences/s, with combinations popped and items kept per cell.

    python bench/bench_parser.py [--pruners DIR] [--repeat 3] [--max-words 40]

Pass-2 input (there is no trained pass-2 model yet: this is the chart's speed on the
scores the coarse passes give it): structural labels are the arc pass's per-label scores
on the pairs pass 1 keeps (its tuned ratio); traces are the trace classifier's kept
(pair, type) candidates scored ``score(type) - score(no trace)``; combination Interval items
are checked against pass 1b's item max-marginals at the arc pass's ratio; the pruned
grammar is the rules seen in the train split.  Without ``--pruners`` the notebooks' cached
full coarse models are used (trained first if missing, ~7 minutes on 2 cores).
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from _util import pin_one_core

NEG = -np.inf


def pass2_tables(pr, enc, dep, k, sd, p1b, ratio):
    """Pass-2 chart tables of dev sentence ``k`` from the coarse models (module docstring)."""
    from plgraph.encoding import dep_to_chart_table
    from plgraph.parser.chart.tables import dense_tables
    from plgraph.pruners.model import keep_threshold, trace_keep, _softmax

    n = len(sd.words)
    N = n + 1
    arc_mm, _, best = pr.arc.max_marginals(dep, k)
    keep_dep = arc_mm > keep_threshold(arc_mm, best, pr.thresholds.arc_ratio)
    L = dep_to_chart_table(np.asarray(pr.arc.label_scores(dep, k), np.float64))      # [h, d, l], ROOT last
    keep = dep_to_chart_table(keep_dep)
    S = np.where(keep[:, :, None], L, NEG).transpose(1, 0, 2)                       # [c, p, l]
    ts = pr.trace.scores(pr.trace_w, enc, k)                                        # [c, p, type], words only
    tk = trace_keep(_softmax(ts), ts, pr.thresholds.trace_prob, pr.thresholds.trace_rank)
    T = np.full((N, N, ts.shape[2]), NEG)
    T[:n, :n] = np.where(tk, np.where(tk, ts, 0.0) - ts[:, :, :1], NEG)
    tables = dense_tables(S, T)
    tables.coarse = p1b.coarse_mask(ratio)
    return tables


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pruners", help="a coarse-model folder (pruners train --model-dir)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-words", type=int, default=40, help="pass 2: dev sentences up to this length")
    parser.add_argument("--beam", type=int, default=100)
    parser.add_argument("--cube", type=int, default=500)
    args = parser.parse_args()
    import plgraph
    from plgraph.parser.chart import _kernel as K
    from plgraph.parser.chart.pass1b import chart_arc_scores, run_pass1b
    from plgraph.parser.chart.tables import arc_score_tables
    from plgraph.pruners._chart import span_max_marginals
    from plgraph.pruners.classifiers import encode
    from plgraph.pruners.data import sentence_data
    from plgraph.pruners.model import Pruners
    from plgraph.pruners.notebook import notebook_models
    from plgraph.rules import count_rules, full_tables

    pr = Pruners.load(args.pruners) if args.pruners else notebook_models(quick=False)
    rules = count_rules(plgraph.corpus("train").sentences()).pruned(1)
    proj = full_tables().projective()
    pin_one_core()
    dev = [sentence_data(g) for g in plgraph.corpus("dev").graphs()]
    dep = pr.arc.encode(dev, pr.normaliser)
    enc = encode(dev, pr.normaliser, pr.tags)
    S1 = [pr.arc.scores(dep, k) for k in range(len(dev))]
    words = sum(len(s.words) for s in dev)

    # -- pass 1b and its peer --------------------------------------------------------------------
    ratio = pr.thresholds.arc_ratio

    def pass1b_all():
        out = [run_pass1b(chart_arc_scores(S), proj) for S in S1]
        for r in out:
            r.coarse_mask(ratio)
        return out

    def eisner_all():
        return [span_max_marginals(S) for S in S1]

    run_pass1b(chart_arc_scores(S1[0]), proj)       # warm (numba's cache or compile)
    span_max_marginals(S1[0])
    t1b = min(_timed(pass1b_all) for _ in range(args.repeat))
    tei = min(_timed(eisner_all) for _ in range(args.repeat))
    g1 = proj.kernel_args()
    tables1 = [arc_score_tables(chart_arc_scores(S)).kernel_args() for S in S1]

    def kernel_only():
        for tb in tables1:
            raw = K.chart(g1, tb, K.Search(0, 0, True, True, False, 0))
            K.outside(*raw[:6], tb)

    tk1 = min(_timed(kernel_only) for _ in range(args.repeat))

    # -- pass 2 -------------------------------------------------------------------------------
    sel = [k for k, s in enumerate(dev) if len(s.words) <= args.max_words]
    p1b = pass1b_all()
    start = time.perf_counter()
    tables2 = [pass2_tables(pr, enc, dep, k, dev[k], p1b[k], ratio) for k in sel]
    t_tables = time.perf_counter() - start
    g2 = rules.kernel_args()
    args2 = [t.kernel_args() for t in tables2]
    search2 = K.Search(args.beam, args.cube, True, True, False, 0)
    K.chart(g2, args2[0], search2)     # warm

    results = []

    def pass2_all():
        results.clear()
        for tb in args2:
            raw = K.chart(g2, tb, search2)
            K.outside(*raw[:6], tb)
            results.append((raw[6] >= 0, raw[8], raw[2]))

    t2 = min(_timed(pass2_all) for _ in range(args.repeat))
    parsed = sum(r[0] for r in results)
    by_width: dict = {}
    for (ok, stats, _), k in zip(results, sel):
        N = len(dev[k].words) + 1
        for p in range(N):
            for q in range(p + 1, N):
                w = q - p
                b = "1" if w == 1 else ("2-3" if w <= 3 else ("4-7" if w <= 7 else ("8-15" if w <= 15 else "16+")))
                by_width.setdefault(b, []).append(stats[:, p * N + q])
    n2 = len(sel)
    print(f"dev split: {len(dev)} sentences, {words} words (pass 2: {n2} sentences <= {args.max_words} words); "
          f"one core, warm, best of {args.repeat}")
    print(f"{'step':64s} {'seconds':>8s} {'sent/s':>8s}")
    print(f"{'pass 1b: tables + projective chart + outside + coarse mask':64s} {t1b:8.2f} {len(dev) / t1b:8.1f}")
    print(f"{'  of which the kernels (chart + outside)':64s} {tk1:8.2f} {len(dev) / tk1:8.1f}")
    print(f"{'peer: Eisner span max-marginals (pass 1, same scores)':64s} {tei:8.2f} {len(dev) / tei:8.1f}")
    print(f"{'pass 2: 1EC chart, beam %d, cube %d, + outside' % (args.beam, args.cube):64s} {t2:8.2f} {n2 / t2:8.1f}")
    print(f"{'  (building its tables from the coarse models, not timed above)':64s} {t_tables:8.2f}")
    print(f"\npass 2 parsed {parsed} of {n2} sentences; items kept per sentence: "
          f"{np.mean([r[2] for r in results]):.0f} (mean), {max(r[2] for r in results)} (max)")
    print(f"\n{'span width':>10s} {'cells':>8s} {'sub-cubes':>10s} {'pops/cell':>10s} {'max pops':>9s} "
          f"{'kept/cell':>10s} {'max kept':>9s}")
    for b in ("1", "2-3", "4-7", "8-15", "16+"):
        v = np.array(by_width.get(b, [(0, 0, 0)]))
        print(f"{b:>10s} {len(v):8d} {v[:, 0].mean():10.1f} {v[:, 1].mean():10.1f} {v[:, 1].max():9d} "
              f"{v[:, 2].mean():10.1f} {v[:, 2].max():9d}")
    ok1 = len(dev) / t1b >= 300
    ok2 = n2 / t2 >= 30
    print(f"\ntargets: pass 1b >= 300 sentences/s: {'met' if ok1 else 'NOT met'}; "
          f"pass 2 >= 30 sentences/s: {'met' if ok2 else 'NOT met'}")
    return 0


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())
