"""The explorer's colour legend, as data and as a small HTML strip.

:func:`legend_entries` lists (name, colour, stroke width, dash) for what a
drawing can show: structural edges, each trace type asked for, crossing edges,
1EC violations and cycle edges — or, in compare mode, right / wrong / missing
(which then replace the type colours).  The styles are the layout's own
constants, so the legend cannot drift from the drawing.
"""
from __future__ import annotations

from html import escape

from .layout import (COMPARE_COLOURS, DASHES, HALO_OPACITY, HALO_RADIUS, HIGHLIGHT_COLOURS, OTHER_TRACE_COLOUR,
                     STROKE_WIDTHS, STRUCTURAL_COLOUR, TRACE_COLOURS, TRACE_NAMES)


def legend_entries(trace_types=(), compare: bool = False) -> list[tuple[str, str, float, tuple | None]]:
    """(name, colour, stroke width, dash or None) for each legend entry; for
    "1EC violation" and "cycle" the colour is the band's under the edge."""
    plain = STROKE_WIDTHS["plain"]
    if compare:
        return [("right (in both)", COMPARE_COLOURS["right"], plain, None),
                ("wrong (only in the overlay)", COMPARE_COLOURS["wrong"], plain, None),
                ("missing (only in the graph)", COMPARE_COLOURS["missing"], plain, DASHES["missing"]),
                ("trace (dashed)", COMPARE_COLOURS["right"], plain, DASHES["trace"])]
    out = [("structural", STRUCTURAL_COLOUR, plain, None)]
    for t in trace_types:
        out.append((TRACE_NAMES.get(t, t), TRACE_COLOURS.get(t, OTHER_TRACE_COLOUR), plain, DASHES["trace"]))
    out += [("crossing", STRUCTURAL_COLOUR, STROKE_WIDTHS["crossing"], None),
            ("1EC violation", HIGHLIGHT_COLOURS["violation"], STROKE_WIDTHS["crossing"], None),
            ("cycle", HIGHLIGHT_COLOURS["cycle"], STROKE_WIDTHS["crossing"], None)]
    return out


def legend_html(trace_types=(), compare: bool = False) -> str:
    """One ``<div class="plgraph-legend">`` with a line swatch per entry."""
    items = []
    halo = set(HIGHLIGHT_COLOURS.values())
    for name, colour, width, dash in legend_entries(trace_types, compare):
        dash_attr = f' stroke-dasharray="{dash[0]:g},{dash[1]:g}"' if dash else ""
        line = f'<line x1="1" y1="5" x2="25" y2="5" stroke="{colour}" stroke-width="{width:g}"{dash_attr}/>'
        if colour in halo and not compare:  # the band under an edge, as drawn
            line = (f'<line x1="1" y1="5" x2="25" y2="5" stroke="{colour}" stroke-opacity="{HALO_OPACITY:g}" '
                    f'stroke-width="{width + 2 * HALO_RADIUS:g}"/><line x1="1" y1="5" x2="25" y2="5" '
                    f'stroke="{STRUCTURAL_COLOUR}" stroke-width="{width:g}"/>')
        items.append(
            '<span class="plgraph-legend-item" style="display:inline-flex;align-items:center;margin-right:12px">'
            f'<svg class="swatch" width="26" height="10" style="margin-right:4px">{line}</svg>'
            f'<span style="color:{colour if colour != STRUCTURAL_COLOUR else "#222"}">{escape(name)}</span></span>')
    return ('<div class="plgraph-legend" style="font-size:12px;line-height:18px;display:flex;flex-wrap:wrap">'
            + "".join(items) + "</div>")
