"""SVG rendering of a :class:`~plgraph.viz.layout.Layout`.

Every drawn edge is exactly one ``<path>`` whose ``class`` names its kind
(``edge structural`` or ``edge trace``) plus any of ``crossing``, ``violation``,
``cycle``, ``self-loop``, ``right``, ``wrong``, ``missing``; arrowheads are
markers drawn with ``<polygon>``, so counting ``<path>`` elements counts edges.
The output is deterministic (same input, same bytes).
"""
from __future__ import annotations

from html import escape

from ..graph import Graph
from .layout import Layout, arc_anchor_y, compute_layout

_STYLE = (
    "text{font-family:DejaVu Sans,Helvetica,Arial,sans-serif}"
    ".word{font-size:%gpx;fill:#111}.tag{font-size:%gpx;fill:#777}"
    ".spine{font-size:%gpx;fill:#2b4a6f}.spine.null{fill:#aaa;font-style:italic}"
    ".label{font-size:%gpx}.edge{fill:none;stroke-width:1.4}.edge.trace{stroke-dasharray:5,3}"
    ".edge.crossing{stroke-width:2.2}.edge.violation{stroke:#ff7f0e !important;stroke-width:3}"
    ".edge.cycle{stroke:#c0392b !important;stroke-width:3}"
    ".edge.missing{stroke-dasharray:2,3}.root{font-weight:bold;fill:#555}"
)


def _f(v: float) -> str:
    return f"{v:.1f}"


def layout_to_svg(layout: Layout) -> str:
    opt = layout.options
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plgraph" width="{_f(layout.width)}" '
           f'height="{_f(layout.height)}" viewBox="0 0 {_f(layout.width)} {_f(layout.height)}">']
    if layout.title:
        out.append(f"<title>{escape(layout.title)}</title>")
    out.append("<style>" + _STYLE % (opt["word_font"], opt["tag_font"], opt["spine_font"], opt["label_font"])
               + "</style>")
    colours = sorted({a.colour for a in layout.arcs})
    out.append("<defs>")
    for k, colour in enumerate(colours):
        out.append(f'<marker id="arrow{k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
                   f'orient="auto-start-reverse"><polygon points="0,0 10,5 0,10" fill="{colour}"/></marker>')
    out.append("</defs>")
    marker = {c: k for k, c in enumerate(colours)}
    # words, tags, spines
    for w in layout.words:
        cls = "word root" if w.is_root else "word"
        out.append(f'<text class="{cls}" x="{_f(w.x)}" y="{_f(layout.baseline)}" text-anchor="middle">'
                   f"{escape(w.word)}</text>")
        if w.tag:
            out.append(f'<text class="tag" x="{_f(w.x)}" y="{_f(layout.baseline + opt["tag_font"] + 3)}" '
                       f'text-anchor="middle">{escape(w.tag)}</text>')
        y = layout.baseline + opt["tag_font"] + 5
        for text, is_null in w.spine:
            y += opt["spine_font"] + 3
            out.append(f'<text class="spine{" null" if is_null else ""}" x="{_f(w.x)}" y="{_f(y)}" '
                       f'text-anchor="middle">{escape(text)}</text>')
    # edges
    for a in layout.arcs:
        cls = " ".join(["edge", a.kind] + a.classes)
        data = (f'data-edge="{a.edge}" data-child="{a.child}" data-parent="{a.parent}" '
                f'data-label="{escape(a.label, quote=True)}"')
        if a.child == a.parent:
            y = layout.below_base - 8
            x = a.x_child
            d = f"M{_f(x - 5)},{_f(y)} C{_f(x - 14)},{_f(y + 16)} {_f(x + 14)},{_f(y + 16)} {_f(x + 5)},{_f(y)}"
        else:
            y0, apex = arc_anchor_y(layout, a)
            ctrl = y0 + (apex - y0) / 0.75
            d = (f"M{_f(a.x_parent)},{_f(y0)} C{_f(a.x_parent)},{_f(ctrl)} {_f(a.x_child)},{_f(ctrl)} "
                 f"{_f(a.x_child)},{_f(y0)}")
        out.append(f'<path class="{cls}" {data} d="{d}" stroke="{a.colour}" '
                   f'marker-end="url(#arrow{marker[a.colour]})"/>')
    # labels on white boxes
    if opt["show_labels"]:
        for a in layout.arcs:
            if a.child == a.parent:
                x, y = a.x_child, layout.below_base + 14
                out.append(f'<text class="label" x="{_f(x)}" y="{_f(y)}" text-anchor="middle" '
                           f'fill="{a.colour}">{escape(a.label)}</text>')
                continue
            x0, y0, w, h = a.label_box
            out.append(f'<rect x="{_f(x0)}" y="{_f(y0)}" width="{_f(w)}" height="{_f(h)}" fill="white" '
                       f'fill-opacity="0.9"/>')
            out.append(f'<text class="label" x="{_f(x0 + w / 2)}" y="{_f(y0 + h - opt["label_pad"] - 1)}" '
                       f'text-anchor="middle" fill="{a.colour}">{escape(a.label)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def render_svg(graph: Graph, overlay: Graph | None = None, **options) -> str:
    """SVG drawing of ``graph`` as a string.

    Options (all keyword): ``show_nulls``, ``show_labels``, ``show_spines``,
    ``show_traces`` (bools, default True), ``root`` (``"end"``/``"start"``),
    ``highlight`` (mark crossing, 1EC-violating and cycle edges), font sizes
    and spacings (see :data:`plgraph.viz.layout.DEFAULTS`).  With ``overlay``
    (e.g. a parser's output for the same words) the edges are coloured
    ``right``, ``wrong`` (only in the overlay) or ``missing`` (only in ``graph``).
    """
    return layout_to_svg(compute_layout(graph, overlay, **options))
