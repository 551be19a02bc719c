"""Drawing lexicalised graphs: arc diagrams as SVG, matplotlib figures or TikZ,
and an interactive explorer widget.

``render_svg(graph, **options) -> str`` and ``explore(corpus_or_graphs)`` are
the entry points; the layout is plain data (:func:`compute_layout`)."""
from .layout import DEFAULTS, Layout, compute_layout
from .mpl import render_figure
from .svg import render_svg
from .tikz import render_tikz
from .widget import Explorer, explore

__all__ = ["DEFAULTS", "Layout", "compute_layout", "render_figure", "render_svg", "render_tikz", "Explorer",
           "explore"]
