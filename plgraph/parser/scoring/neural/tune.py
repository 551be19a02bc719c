"""Tuning the neural parser's decoding on dev: :func:`tune_decode`.

The trace threshold ``trace_bias`` (:class:`~plgraph.parser.scoring.neural.prune.PruneConfig`) is chosen on
the dev split's local trace decisions, without the chart: a word pair the pruning keeps
(trace probability at least ``trace_min``) scores ``logit + log P(best type) + bias``
as a trace edge in the chart (:mod:`plgraph.parser.scoring.neural.prune`), so the pairs with a positive
score are the traces the bias lets in, if the rest of the graph allows them.  Over the
grid :data:`BIAS_GRID`, against the gold trace pairs, the bias with the highest
unlabelled trace recall at a precision of at least ``trace_precision`` (%) is kept -- the
linear pass 3's rule (:func:`plgraph.parser.training.cascade.tune_trace_bias`), a
precision-first operating point as the thesis's -- or, when ``trace_precision`` is 0 or
out of reach, the one with the best F1 (ties: the bias nearest 0).  The chart then
decodes with it; ``parser evaluate`` measures what it gives.
"""
from __future__ import annotations

from dataclasses import asdict, replace
from typing import Callable

import numpy as np

#: the trace thresholds tried (log-odds added to every trace edge's score)
BIAS_GRID = tuple(round(x, 2) for x in np.arange(-3.0, 3.01, 0.25))


def trace_decisions(scorer, graphs, progress=None) -> tuple[np.ndarray, np.ndarray]:
    """``(scores, gold, missed)`` of ``graphs`` (gold tags): over every ordered word pair
    the pruning keeps, ``logit + log P(best type)`` and whether gold has a trace there;
    and how many gold traces the pruning drops."""
    from .... import progress as P
    from ..pass2 import gold_graph
    from .prune import trace_pairs

    scores, gold, missed = [], [], 0
    with P.bar(len(graphs), "tuning the trace threshold", progress, unit="sentence") as bar:
        for g in graphs:
            sc, label_logp = scorer.scores(g.words, g.tags)
            G, _ = gold_graph(g, scorer.vocab)
            n = len(g)
            is_gold = G.t[:n, :n] >= 0
            c, p = trace_pairs(sc, scorer.prune)
            if c.size:
                scores.append(sc.trace[c, p] + label_logp(c, p, True).max(-1))
                gold.append(is_gold[c, p])
            missed += int(is_gold.sum()) - int(is_gold[c, p].sum())
            bar.update(1)
    cat = lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt)  # noqa: E731
    return cat(scores, np.float64), cat(gold, bool), missed


def bias_curve(scores: np.ndarray, gold: np.ndarray, missed: int, grid=BIAS_GRID) -> list[dict]:
    """Unlabelled trace P / R / F1 (%) of the decisions ``scores + bias > 0`` for each
    bias of ``grid`` (``missed``: gold traces never scored, counted in recall)."""
    total = int(gold.sum()) + missed
    rows = []
    for b in grid:
        pred = scores + b > 0
        tp = int((pred & gold).sum())
        p = 100.0 * tp / max(int(pred.sum()), 1)
        r = 100.0 * tp / max(total, 1)
        rows.append({"trace_bias": float(b), "p": round(p, 2), "r": round(r, 2),
                     "f1": round(2 * p * r / (p + r), 2) if p + r else 0.0})
    return rows


def pick_bias(rows: list[dict], trace_precision: float) -> dict:
    """The row of :func:`bias_curve` the module docstring's rule picks."""
    ok = [r for r in rows if trace_precision > 0 and r["p"] >= trace_precision]
    if ok:
        return max(ok, key=lambda r: (r["r"], r["p"], -abs(r["trace_bias"])))
    return max(rows, key=lambda r: (r["f1"], -abs(r["trace_bias"])))


def tune_decode(folder, dev_graphs, *, trace_precision: float = 75.0, log: Callable[[str], None] = print,
                progress=None):
    """Tune ``trace_bias`` on ``dev_graphs`` (module docstring) and record the decoding
    options in the folder's ``neural.json`` (``decode``; the curve as ``trace_bias_curve``);
    the :class:`~plgraph.parser.scoring.neural.prune.PruneConfig`."""
    from .prune import PruneConfig
    from .scorer import NeuralScorer

    scorer = NeuralScorer.load(folder.path, threads=None).with_options(trace_bias=0.0)
    scores, gold, missed = trace_decisions(scorer, dev_graphs, progress)
    rows = bias_curve(scores, gold, missed)
    best = pick_bias(rows, trace_precision)
    config = replace(PruneConfig(**(folder.header.get("decode") or {})), trace_bias=best["trace_bias"])
    folder.header["decode"] = asdict(config)
    folder.header["trace_bias_curve"] = rows
    folder.write_header()
    log(f"plgraph neural: trace threshold {best['trace_bias']:+.2f} (dev local trace decisions P {best['p']:.1f} "
        f"R {best['r']:.1f} F {best['f1']:.1f})")
    return config


__all__ = ["BIAS_GRID", "trace_decisions", "bias_curve", "pick_bias", "tune_decode"]
