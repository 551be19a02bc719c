"""SVG rendering of a :class:`~plgraph.viz.layout.Layout`.

Every drawn edge is exactly one ``<path>`` whose ``class`` names its kind
(``edge structural`` or ``edge trace``) plus any of ``crossing``, ``violation``,
``cycle``, ``self-loop``, ``right``, ``wrong``, ``missing`` (violation and
cycle edges keep their type colour over a band of the highlight colour, an
SVG ``<filter>``), with a ``<title>``
(the browser's tooltip) naming the edge; its arrowhead is one
``<polygon class="arrow">`` with the layout's fixed-size triangle (no SVG
markers, whose size would follow the stroke width), so counting ``<path>``
elements counts edges.  Labels are ``<text class="label structural">`` or
``<text class="label trace">`` (with the layout's ``font-size``) on a
``<rect class="label-box">``.  Words are drawn as text
(``(`` for ``-LRB-``), see :mod:`plgraph.viz.text`.  The output is
deterministic (same input, same bytes).
"""
from __future__ import annotations

from html import escape

from ..graph import Graph
from .layout import HALO_OPACITY, HALO_RADIUS, HIGHLIGHT_COLOURS, Layout, compute_layout

_STYLE = (
    "text{font-family:DejaVu Sans,Helvetica,Arial,sans-serif}"
    ".word{font-size:%gpx;fill:#111}.tag{font-size:%gpx;fill:#777}"
    ".spine{font-size:%gpx;fill:#2b4a6f}.spine.null{fill:#aaa;font-style:italic}"
    ".label.trace{font-weight:bold}.edge{fill:none}"
    ".root{font-weight:bold;fill:#555}"
)


def _f(v: float) -> str:
    return f"{v:.1f}"


def _points(pts) -> str:
    return " ".join(f"{_f(x)},{_f(y)}" for x, y in pts)


def layout_to_svg(layout: Layout) -> str:
    opt = layout.options
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plgraph" width="{_f(layout.width)}" '
           f'height="{_f(layout.height)}" viewBox="0 0 {_f(layout.width)} {_f(layout.height)}">']
    if layout.title:
        out.append(f"<title>{escape(layout.title)}</title>")
    out.append("<style>" + _STYLE % (opt["word_font"], opt["tag_font"], opt["spine_font"])
               + "</style>")
    halos = sorted({a.halo for a in layout.arcs if a.halo})
    if halos:  # a band of the highlight colour under the line (SVG 1.1 filter: works in any viewer)
        out.append("<defs>")
        for h in halos:
            out.append(f'<filter id="halo-{h}" filterUnits="userSpaceOnUse" x="0" y="0" '
                       f'width="{_f(layout.width)}" height="{_f(layout.height)}">'
                       f'<feMorphology in="SourceAlpha" operator="dilate" radius="{HALO_RADIUS:g}" result="band"/>'
                       f'<feFlood flood-color="{HIGHLIGHT_COLOURS[h]}" flood-opacity="{HALO_OPACITY:g}"/>'
                       f'<feComposite in2="band" operator="in" result="halo"/>'
                       f'<feMerge><feMergeNode in="halo"/><feMergeNode in="SourceGraphic"/></feMerge></filter>')
        out.append("</defs>")
    # words, tags, spines
    for w in layout.words:
        cls = "word root" if w.is_root else "word"
        out.append(f'<text class="{cls}" x="{_f(w.x)}" y="{_f(layout.baseline)}" text-anchor="middle">'
                   f"{escape(w.text or w.word)}</text>")
        if w.tag:
            out.append(f'<text class="tag" x="{_f(w.x)}" y="{_f(layout.baseline + opt["tag_font"] + 3)}" '
                       f'text-anchor="middle">{escape(w.tag)}</text>')
        y = layout.baseline + opt["tag_font"] + 5
        for text, is_null in w.spine:
            y += opt["spine_font"] + 3
            out.append(f'<text class="spine{" null" if is_null else ""}" x="{_f(w.x)}" y="{_f(y)}" '
                       f'text-anchor="middle">{escape(text)}</text>')
    # edges and their arrowheads
    for a in layout.arcs:
        cls = " ".join(["edge", a.kind] + a.classes)
        data = (f'data-edge="{a.edge}" data-child="{a.child}" data-parent="{a.parent}" '
                f'data-label="{escape(a.label, quote=True)}"')
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = a.path
        d = f"M{_f(x0)},{_f(y0)} C{_f(x1)},{_f(y1)} {_f(x2)},{_f(y2)} {_f(x3)},{_f(y3)}"
        dash = f' stroke-dasharray="{a.dash[0]:g},{a.dash[1]:g}"' if a.dash else ""
        halo = f' filter="url(#halo-{a.halo})"' if a.halo else ""
        out.append(f'<path class="{cls}" {data} d="{d}" stroke="{a.stroke}" stroke-width="{a.stroke_width:g}"'
                   f'{dash}{halo}><title>{escape(a.tooltip)}</title></path>')
        out.append(f'<polygon class="arrow" data-edge="{a.edge}" points="{_points(a.arrow)}" fill="{a.stroke}"'
                   f'{halo}/>')
    # labels on white boxes
    if opt["show_labels"]:
        for a in layout.arcs:
            x0, y0, w, h = a.label_box
            out.append(f'<rect class="label-box" x="{_f(x0)}" y="{_f(y0)}" width="{_f(w)}" height="{_f(h)}" '
                       f'fill="white" fill-opacity="0.9"/>')
            out.append(f'<text class="label {a.kind}" x="{_f(x0 + w / 2)}" '
                       f'y="{_f(y0 + h - opt["label_pad"] - 1)}" font-size="{a.font:g}" text-anchor="middle" '
                       f'fill="{a.colour}">{escape(a.label)}</text>')
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
