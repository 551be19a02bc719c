"""Low-level plotting helpers shared by every plot of plgraph (matplotlib only).

* saving: :func:`save_figure` writes a figure as PNG and SVG, :func:`save_png` as PNG alone,
  each atomically (:mod:`plgraph.files.atomic`) and deterministically -- no dates or version
  strings in the metadata, a fixed SVG hash salt -- so regenerating a figure from the same
  data gives the same bytes;
* style: :data:`COLOURS` (one per model or corpus), :func:`plain_log_axis` (log axes
  labelled ``5%``, ``0.002``, never ``6×10¹``), :func:`nice_log_ticks`,
  :func:`legend_below` (one legend below the panels, a colour per model and a line style
  per score), :func:`label_bars` (a value on every bar).

The figures themselves live beside their data: :mod:`plgraph.figures` (``figures/`` and
notebooks 01, 06, 07), :mod:`plgraph.parser.analysis.plots` and
:mod:`plgraph.parser.analysis.learning_curve` (notebook 08).  This module imports none of
plgraph's parser, dependency or language-model packages, so any of them may use it.
"""
from __future__ import annotations

import math
from pathlib import Path

from .files.atomic import atomic_write_with

__all__ = ["SAVE_OPTIONS", "SVG_HASH_SALT", "COLOURS", "save_figure", "save_png", "nice_log_ticks", "plain_number",
           "plain_log_axis", "legend_below", "label_bars"]

#: savefig options per format of :func:`save_figure`: no ``Software`` (PNG) or ``Date``
#: (SVG) entries, so the bytes do not depend on the matplotlib version or the day
SAVE_OPTIONS = {"png": {"metadata": {"Software": None}, "dpi": 120}, "svg": {"metadata": {"Date": None}}}
#: matplotlib's ``svg.hashsalt`` while saving (the ids of clip paths and glyphs in an SVG)
SVG_HASH_SALT = "plgraph"
#: colours of the models / corpora of a plot, in order
COLOURS = ["#3b6ea8", "#d08c2b", "#5a9e5a", "#8e5ea2", "#c0392b", "#7f7f7f"]


def save_figure(fig, base, *, close: bool = False) -> list[Path]:
    """Write ``fig`` to ``base.png`` (120 dpi) and ``base.svg``, tight bounding boxes, each
    file atomically and byte-reproducibly; the paths written.  ``close``: close ``fig``
    afterwards (a figure written to files only), also when writing fails."""
    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = SVG_HASH_SALT
    base = Path(base)
    out = []
    try:
        for ext, kwargs in SAVE_OPTIONS.items():
            path = base.with_suffix("." + ext)
            atomic_write_with(path, lambda tmp: fig.savefig(tmp, format=ext, bbox_inches="tight", **kwargs))
            out.append(path)
    finally:
        if close:
            import matplotlib.pyplot as plt

            plt.close(fig)
    return out


def save_png(fig, path, dpi: int = 110) -> Path:
    """Write ``fig`` to the PNG ``path`` as it is laid out (no tight bounding box),
    atomically and byte-reproducibly (no ``Software`` entry); ``path``."""
    path = Path(path)
    atomic_write_with(path, lambda tmp: fig.savefig(tmp, format="png", dpi=dpi, metadata={"Software": None}))
    return path


def nice_log_ticks(lo: float, hi: float, min_ticks: int = 3) -> list[float]:
    """Round values (1-2-5, then 1-2-3-5, then every digit, times a power of ten) inside
    ``[lo, hi]`` for a log axis: the sparsest such series with at least ``min_ticks``
    values.  Falls back to ``[lo, hi]`` when even every digit gives fewer."""
    if not (lo > 0 and hi >= lo):
        raise ValueError(f"a log axis needs 0 < lo <= hi, got {lo}, {hi}")
    k_lo, k_hi = math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1
    eps = 1e-9 * hi
    for mantissas in ((1, 2, 5), (1, 2, 3, 5), (1, 2, 3, 4, 5, 6, 7, 8, 9)):
        ticks = [round(m * 10.0 ** k, 12) for k in range(k_lo, k_hi + 1) for m in mantissas]
        ticks = [t for t in ticks if lo - eps <= t <= hi + eps]
        if len(ticks) >= min_ticks:
            return ticks
    return [lo, hi]


def plain_number(v: float) -> str:
    """``v`` as a reader writes it (``0.002``, ``50``); exponent form only outside 1e-4..1e6."""
    return f"{v:g}" if 1e-4 <= abs(v) < 1e6 else f"{v:.0e}"


def plain_log_axis(ax, which: str = "y", values=None, suffix: str = "") -> None:
    """Label a log axis with plain numbers (``suffix`` appended, e.g. ``"%"``): ticks at
    ``values`` if given (e.g. the ranks measured), else at :func:`nice_log_ticks` of the
    axis's current limits; no minor tick labels."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

    axis = ax.yaxis if which == "y" else ax.xaxis
    if values is None:
        lo, hi = ax.get_ylim() if which == "y" else ax.get_xlim()
        values = nice_log_ticks(min(lo, hi), max(lo, hi))
    axis.set_major_locator(FixedLocator(list(values)))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: plain_number(v) + suffix))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


def legend_below(fig, colours: dict, styles: dict | None = None, handles=None) -> None:
    """One legend below the panels, outside the data: a colour entry per model and a line
    style entry per score (UAS solid, LAS dashed), so that k models need k + 2 entries,
    not 2k.  ``handles`` instead gives the entries directly.  Uses the "outside" placement
    of a constrained-layout figure, else the figure's bottom edge."""
    from matplotlib.lines import Line2D

    if handles is None:
        handles = [Line2D([], [], color=c, marker="o", ms=3, lw=1.5, label=name) for name, c in colours.items()]
        handles += [Line2D([], [], color="#444444", ls=ls, marker=m, ms=3, lw=1.5, label=score)
                    for score, (ls, m) in (styles or {}).items()]
    ncol = len(handles) if len(handles) <= 6 else math.ceil(len(handles) / 2)
    outside = type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    fig.legend(handles=handles, loc="outside lower center" if outside else "lower center", ncol=ncol,
               fontsize=8, frameon=False)


def label_bars(ax, bars, values, fmt="{:.1f}", colour="#1f1f1f", fontsize=7) -> None:
    """Value labels: above a positive bar, below a negative one."""
    lo, hi = ax.get_ylim()
    pad = 0.01 * (hi - lo)
    for b, v in zip(bars, values):
        if v is None or v != v:  # None or NaN
            continue
        x = b.get_x() + b.get_width() / 2
        if v >= 0:
            ax.text(x, v + pad, fmt.format(v), ha="center", va="bottom", fontsize=fontsize, color=colour)
        else:
            ax.text(x, v - pad, fmt.format(v), ha="center", va="top", fontsize=fontsize, color=colour)
