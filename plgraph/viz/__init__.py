"""Drawing lexicalised graphs: arc diagrams as SVG, matplotlib figures or TikZ,
and an interactive explorer widget.

``render_svg(graph, **options) -> str`` and ``explore(corpus_or_graphs)`` are
the entry points; the layout is plain data (:func:`compute_layout`), the legend
too (:func:`legend_entries`).  Importing it lets parsed sentences
(:class:`plgraph.parser.parsing.document.ParsedSentence`) draw themselves in notebooks."""
from .layout import DEFAULTS, Layout, compute_layout
from .legend import legend_entries, legend_html
from .mpl import render_figure
from .svg import render_svg
from .text import display_text, display_token
from .tikz import render_tikz
from .widget import Explorer, default_figures_dir, explore, figure_stem
from ..parser.parsing.document import set_drawing

set_drawing(render_svg)         # parsed sentences (plgraph.load()(text)) draw themselves in notebooks

__all__ = ["DEFAULTS", "Layout", "compute_layout", "render_figure", "render_svg", "render_tikz", "Explorer",
           "explore", "default_figures_dir", "figure_stem", "legend_entries", "legend_html", "display_text",
           "display_token"]
