"""Plots of the graph parser (notebook 08), following :mod:`plgraph.figures`' conventions
(helpers: :mod:`plgraph.plotting`): legends outside the data, plain numbers on log axes,
ticks at the values measured, every axis labelled.

* :func:`plot_parser_curves` -- dev scores of passes 2 and 3 per training epoch (a model
  folder's ``curves.json``);
* :func:`plot_pruning` -- gold recall against the fraction kept, per pass (``parser stats
  --json``), with the thesis's operating points.
"""
from __future__ import annotations

#: the thesis's operating points (WSJ 22): (what, kept %, gold recall %)
THESIS_POINTS = (("pass 1 structural edges (seed)", 0.302, 99.0), ("spines (seed)", 6.5, 99.5))


def plot_parser_curves(rows, axes=None):
    """Two panels over training epochs (pass 2's, then pass 3's, numbered on): structural
    UAS / LAS, and trace-edge P / R, on dev.  ``rows``: the curve rows (``curves.json``)."""
    import matplotlib.pyplot as plt

    rows = [r for r in rows if "dev_uas" in r and r.get("model") in ("pass2", "pass3")]
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    colours = {"pass2": "#1f77b4", "pass3": "#d62728"}
    xs, x = {}, 0
    for r in rows:
        x += 1
        xs.setdefault(r["model"], []).append((x, r))
    for model, pts in xs.items():
        e = [p[0] for p in pts]
        for ax, keys in ((axes[0], (("dev_uas", "-", "UAS"), ("dev_las", "--", "LAS"))),
                         (axes[1], (("dev_trace_p", "-", "P"), ("dev_trace_r", "--", "R")))):
            for key, style, _name in keys:
                ax.plot(e, [p[1][key] for p in pts], style, marker="o", color=colours[model])
    for ax, title in ((axes[0], "structural attachment (dev)"), (axes[1], "trace edges, unlabelled (dev)")):
        ax.set_xlabel("epoch (pass 2, then pass 3)")
        ax.set_ylabel("%")
        ax.set_title(title)
        ax.set_xticks(list(range(1, x + 1)))
        ax.grid(alpha=0.3)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=c, marker="o", label=m.replace("pass", "pass ")) for m, c in colours.items()]
    handles += [Line2D([], [], color="grey", ls="-", label="UAS / P"), Line2D([], [], color="grey", ls="--",
                                                                            label="LAS / R")]
    axes[1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=8)
    return axes


def plot_pruning(stats: dict, ax=None):
    """Gold recall against the share kept (log axis): pass 1's structural edges (the
    thesis's definition), traces and spines, pass 2's curve over its ratio (structural
    labels, the thesis's definition) and pass 3's candidates, with the thesis's points.
    ``stats``: the dict of ``python -m plgraph parser stats --json``."""
    import matplotlib.pyplot as plt

    from ...plotting import plain_log_axis

    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 4.2))
    p1 = stats.get("pass1", {})
    pts = [("pass 1 structural edges", p1.get("edges_kept_seed_pct"), p1.get("edges_gold_recall_pct"), "o", "#1f77b4"),
           ("pass 1 traces", p1.get("traces_kept_pct"), p1.get("traces_gold_recall_pct"), "s", "#2ca02c"),
           ("pass 1 spines", p1.get("spines_kept_pct"), p1.get("spines_gold_recall_pct"), "D", "#9467bd")]
    p3 = stats.get("pass3")
    if p3:
        pts.append(("pass 3 structural labels", p3.get("structural_kept_seed_pct"),
                    p3.get("structural_gold_recall_pct"), "^", "#d62728"))
    xs = []
    for name, kept, rec, marker, colour in pts:
        if kept and rec is not None:
            ax.plot([kept], [rec], marker, color=colour, label=name, markersize=7)
            xs.append(kept)
    curve = [r for r in stats.get("pass2_curve", []) if r["structural_kept_seed_pct"] > 0]
    if curve:
        ax.plot([r["structural_kept_seed_pct"] for r in curve], [r["gold_structural_kept_pct"] for r in curve], "-",
                color="#ff7f0e", marker=".", label="pass 2 structural labels, over its ratio")
        xs += [r["structural_kept_seed_pct"] for r in curve]
    for name, kept, rec in THESIS_POINTS:
        ax.plot([kept], [rec], "*", color="black", markersize=11, alpha=0.7)
        ax.annotate(name, (kept, rec), textcoords="offset points", xytext=(-8, -4), ha="right", va="top", fontsize=8)
        xs.append(kept)
    ax.set_xscale("log")
    if xs:
        plain_log_axis(ax, "x", suffix="%")
    ax.set_xlabel("kept (% of all possible, log scale)")
    ax.set_ylabel("gold kept (%)")
    ax.set_title(f"Pruning on {stats.get('split', 'dev')} (sentences of at most {stats.get('max_words')} words)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=8)
    return ax


__all__ = ["plot_parser_curves", "plot_pruning", "THESIS_POINTS"]
