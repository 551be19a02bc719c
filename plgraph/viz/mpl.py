"""Matplotlib rendering of a layout (for ``figures/``): same geometry as the SVG."""
from __future__ import annotations

from ..graph import Graph
from .layout import Layout, arc_anchor_y, compute_layout


def layout_to_figure(layout: Layout, scale: float = 0.0139):
    """A matplotlib Figure of the layout (``scale`` inches per layout pixel)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, PathPatch, Rectangle
    from matplotlib.path import Path

    opt = layout.options
    fig = plt.figure(figsize=(max(layout.width * scale, 2.0), max(layout.height * scale, 1.0)))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, layout.width)
    ax.set_ylim(layout.height, 0)
    ax.axis("off")
    pt = 72 * scale  # points per layout pixel
    for w in layout.words:
        ax.text(w.x, layout.baseline, w.word, ha="center", va="baseline", fontsize=opt["word_font"] * pt,
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
        lw = 1.4
        if "crossing" in a.classes:
            lw = 2.2
        colour = a.colour
        if "violation" in a.classes:
            colour, lw = "#ff7f0e", 3
        if "cycle" in a.classes:
            colour, lw = "#c0392b", 3
        style = (0, (5, 3)) if a.kind == "trace" else "solid"
        if "missing" in a.classes:
            style = (0, (2, 3))
        if a.child == a.parent:
            y = layout.below_base - 8
            x = a.x_child
            verts = [(x - 5, y), (x - 14, y + 16), (x + 14, y + 16), (x + 5, y)]
        else:
            y0, apex = arc_anchor_y(layout, a)
            ctrl = y0 + (apex - y0) / 0.75
            verts = [(a.x_parent, y0), (a.x_parent, ctrl), (a.x_child, ctrl), (a.x_child, y0)]
        path = Path(verts, [Path.MOVETO, Path.CURVE4, Path.CURVE4, Path.CURVE4])
        ax.add_patch(PathPatch(path, fill=False, edgecolor=colour, linewidth=lw * pt * 1.2, linestyle=style))
        tip = verts[-1]
        ax.add_patch(FancyArrowPatch(verts[-2], tip, arrowstyle="-|>", mutation_scale=9 * pt * 1.5,
                                     color=colour, linewidth=0, shrinkA=0, shrinkB=0))
        if opt["show_labels"]:
            if a.child == a.parent:
                ax.text(a.x_child, layout.below_base + 14, a.label, ha="center", va="baseline",
                        fontsize=opt["label_font"] * pt, color=a.colour)
            else:
                x0, y0b, w, h = a.label_box
                ax.add_patch(Rectangle((x0, y0b), w, h, facecolor="white", edgecolor="none", alpha=0.9))
                ax.text(x0 + w / 2, y0b + h - opt["label_pad"] - 1, a.label, ha="center", va="baseline",
                        fontsize=opt["label_font"] * pt, color=a.colour)
    return fig


def render_figure(graph: Graph, overlay: Graph | None = None, **options):
    """Matplotlib Figure of ``graph`` (options as :func:`plgraph.viz.render_svg`)."""
    return layout_to_figure(compute_layout(graph, overlay, **options))
