"""Matplotlib rendering of a layout (for ``figures/``): same geometry as the SVG
(the layout's Bézier paths, fixed-size arrowhead triangles, label boxes)."""
from __future__ import annotations

from ..graph import Graph
from .layout import HALO_OPACITY, HALO_RADIUS, HIGHLIGHT_COLOURS, Layout, compute_layout


def layout_to_figure(layout: Layout, scale: float = 0.0139):
    """A matplotlib Figure of the layout (``scale`` inches per layout pixel)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import PathPatch, Polygon, Rectangle
    from matplotlib.path import Path

    opt = layout.options
    fig = plt.figure(figsize=(max(layout.width * scale, 2.0), max(layout.height * scale, 1.0)))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, layout.width)
    ax.set_ylim(layout.height, 0)
    ax.axis("off")
    pt = 72 * scale  # points per layout pixel
    for w in layout.words:
        ax.text(w.x, layout.baseline, w.text or w.word, ha="center", va="baseline", fontsize=opt["word_font"] * pt,
                fontweight="bold" if w.is_root else "normal", color="#555" if w.is_root else "#111")
        if w.tag:
            ax.text(w.x, layout.baseline + opt["tag_font"] + 3, w.tag, ha="center", va="baseline",
                    fontsize=opt["tag_font"] * pt, color="#777")
        y = layout.baseline + opt["tag_font"] + 5
        for text, is_null in w.spine:
            y += opt["spine_font"] + 3
            ax.text(w.x, y, text, ha="center", va="baseline", fontsize=opt["spine_font"] * pt,
                    color="#aaa" if is_null else "#2b4a6f", fontstyle="italic" if is_null else "normal")
    for a in layout.arcs:
        style = (0, tuple(v / a.stroke_width for v in a.dash)) if a.dash else "solid"
        path = Path(list(a.path), [Path.MOVETO, Path.CURVE4, Path.CURVE4, Path.CURVE4])
        if a.halo:
            ax.add_patch(PathPatch(path, fill=False, edgecolor=HIGHLIGHT_COLOURS[a.halo], alpha=HALO_OPACITY,
                                   linewidth=(a.stroke_width + 2 * HALO_RADIUS) * pt, capstyle="round"))
        ax.add_patch(PathPatch(path, fill=False, edgecolor=a.stroke, linewidth=a.stroke_width * pt,
                               linestyle=style, capstyle="butt"))
        ax.add_patch(Polygon(list(a.arrow), closed=True, facecolor=a.stroke, edgecolor="none"))
        if opt["show_labels"]:
            x0, y0b, w, h = a.label_box
            ax.add_patch(Rectangle((x0, y0b), w, h, facecolor="white", edgecolor="none", alpha=0.9))
            ax.text(x0 + w / 2, y0b + h - opt["label_pad"] - 1, a.label, ha="center", va="baseline",
                    fontsize=a.font * pt, color=a.colour, fontweight="bold" if a.kind == "trace" else "normal")
    return fig


def render_figure(graph: Graph, overlay: Graph | None = None, **options):
    """Matplotlib Figure of ``graph`` (options as :func:`plgraph.viz.render_svg`)."""
    return layout_to_figure(compute_layout(graph, overlay, **options))
