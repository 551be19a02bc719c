"""The interactive explorer (ipywidgets only: works in JupyterLab and Voilà).

``explore(corpus)`` returns an :class:`Explorer`; displaying it shows the
controls, a colour legend and the drawing.  All logic is in Python and can be
driven without a browser: set ``explorer.sentence.value`` (a sentence id),
``explorer.search.value`` (text), ``explorer.zoom.value`` (``"fit"`` or a
factor), call ``explorer.next()`` / ``explorer.previous()`` /
``explorer.save()``; ``explorer.svg`` is the current drawing at full size (what
Save writes), ``explorer.ids`` the ids the filters let through, and
``explorer.caption`` the current sentence as plain text.

Save writes ``graph_<full sentence id>.svg`` and ``.png`` (``_compare`` added
in compare mode) into the explorer's folder: ``outdir`` if given, else
:func:`default_figures_dir`.
"""
from __future__ import annotations

import os
import re
from html import escape
from pathlib import Path

from ..files.atomic import atomic_text, atomic_write_with
from ..errors import PlgraphError
from ..graph import Graph
from ..structure import classify
from .layout import compute_layout
from .legend import legend_html
from .svg import layout_to_svg
from .text import display_text

CLASSES = ("all", "tree", "projective graph", "1EC", "non-1EC", "cyclic")
_CATEGORY = {"tree": "projective tree", "projective graph": "projective graph", "1EC": "one-endpoint crossing"}
#: the "errors" filter's types (an overlay graph against the explored one)
ERROR_FILTERS = ("attachment", "attachment node", "spine", "missing trace", "extra trace")
ZOOMS = (("fit width", "fit"), ("50%", 0.5), ("75%", 0.75), ("100%", 1.0), ("150%", 1.5), ("200%", 2.0))
_PREVIEW_CHARS = 60


def default_figures_dir() -> Path:
    """Where Save writes when no ``outdir`` is given.

    ``$PLGRAPH_FIGURES`` if set; else the ``figures/`` folder of the plgraph
    checkout this package was imported from (found from the package's location,
    not the kernel's working directory, so a notebook in ``notebooks/`` saves
    next to the other figures); else, for an installed (non-checkout) plgraph,
    ``figures/`` under the working directory."""
    env = os.environ.get("PLGRAPH_FIGURES")
    if env:
        return Path(env).expanduser()
    repo = Path(__file__).resolve().parents[2]
    if (repo / "pyproject.toml").is_file() and (repo / "plgraph" / "viz").is_dir():
        return repo / "figures"
    return Path.cwd() / "figures"


def figure_stem(sid: str, compare: bool = False) -> str:
    """File name (without extension) for a sentence's drawing: the full id, with
    anything but letters, digits, ``.``, ``_`` and ``-`` replaced by ``_``
    (``wsj_0141.22`` -> ``graph_wsj_0141.22``)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", sid or "sentence").lstrip(".") or "sentence"
    return f"graph_{safe}" + ("_compare" if compare else "")


def _as_graphs(items) -> list[Graph]:
    out = []
    for it in items:
        g = it if isinstance(it, Graph) else getattr(it, "graph", None)
        if g is None:
            raise TypeError(f"expected Graph or Sentence objects, got {type(it).__name__}")
        out.append(g)
    return out


def _preview(sid: str, text: str) -> str:
    if len(text) > _PREVIEW_CHARS:
        text = text[:_PREVIEW_CHARS].rsplit(" ", 1)[0] + " \u2026"
    return f"{sid} \u2014 {text}"


def _scaled(svg: str, width: float, height: float, zoom) -> str:
    """The SVG resized for display: ``zoom`` a factor, or ``"fit"`` (shrink to
    the area's width, never enlarge)."""
    head, rest = svg.split(">", 1)
    head = re.sub(r' width="[^"]*" height="[^"]*"', "", head, count=1)
    if zoom == "fit":
        size = f' width="100%" style="max-width:{width:.1f}px;height:auto;display:block"'
    else:
        size = f' width="{width * zoom:.1f}" height="{height * zoom:.1f}" style="display:block"'
    return head + size + ">" + rest


class Explorer:
    """Sentence browser with filters, search, previous / next, drawing toggles,
    zoom, a legend and Save.

    Parameters
    ----------
    items : iterable of Graph or Sentence (e.g. a :class:`plgraph.Corpus`)
    overlay : iterable of Graph, optional
        Graphs over the same words (e.g. a parser's output), matched by id;
        shown with right/wrong/missing colouring when "compare" is ticked, and
        filterable by error type (the "errors" dropdown: a sentence whose overlay
        has an error of that kind, :func:`plgraph.parser.analysis.errors.sentence_errors`;
        "exact": none).
    outdir : folder where "Save" writes SVG and PNG (default
        :func:`default_figures_dir`).
    """

    def __init__(self, items, overlay=None, outdir=None):
        import ipywidgets as W

        self.graphs = _as_graphs(items)
        if not self.graphs:
            raise ValueError("nothing to explore: no graphs given")
        self.by_id = {g.id or str(k): g for k, g in enumerate(self.graphs)}
        self.overlay = {g.id: g for g in _as_graphs(overlay)} if overlay is not None else {}
        self.outdir = Path(outdir) if outdir is not None else default_figures_dir()
        self.structures = {sid: classify(g) for sid, g in self.by_id.items()}
        self.texts = {sid: display_text(g.words) for sid, g in self.by_id.items()}
        self._haystack = {sid: (sid + "\n" + t).lower() for sid, t in self.texts.items()}
        self.trace_types = sorted({str(t) for g in self.graphs for t, k, c, p in
                                   zip(g.trace, g.kind, g.child, g.parent) if k == 1 and c != p})
        self.ids: list[str] = list(self.by_id)
        self.error_counts = self._error_counts()
        small = dict(width="auto", margin="0 14px 0 0")
        self.structure = W.Dropdown(options=CLASSES, value="all", description="structure",
                                    layout=W.Layout(width="230px"))
        self.trace_type = W.Dropdown(options=("any",) + tuple(self.trace_types), value="any",
                                     description="trace type", layout=W.Layout(width="230px"))
        self.errors = W.Dropdown(options=("any", "exact") + ERROR_FILTERS, value="any", description="errors",
                                 disabled=not self.overlay, layout=W.Layout(width="230px"))
        self.search = W.Text(value="", placeholder="words or id", description="search",
                             layout=W.Layout(width="280px"))
        self.count = W.Label()
        self.previous_button = W.Button(description="previous", icon="arrow-left", tooltip="previous match",
                                        layout=W.Layout(width="110px"))
        self.sentence = W.Dropdown(options=self._labelled(self.ids), description="sentence",
                                   layout=W.Layout(width="620px"))
        self.next_button = W.Button(description="next", icon="arrow-right", tooltip="next match",
                                    layout=W.Layout(width="110px"))
        self.show_nulls = W.Checkbox(value=True, description="nulls", indent=False, layout=W.Layout(**small))
        self.show_labels = W.Checkbox(value=True, description="labels", indent=False, layout=W.Layout(**small))
        self.show_spines = W.Checkbox(value=True, description="spines", indent=False, layout=W.Layout(**small))
        self.show_traces = W.Checkbox(value=True, description="traces", indent=False, layout=W.Layout(**small))
        self.compare = W.Checkbox(value=False, description="compare with overlay", indent=False,
                                  disabled=not self.overlay, layout=W.Layout(**small))
        self.zoom = W.Dropdown(options=ZOOMS, value=1.0, description="zoom", layout=W.Layout(width="170px"))
        self.save_button = W.Button(description="Save", icon="download",
                                    tooltip=f"write SVG and PNG to {self.outdir}")
        self.status = W.Label()
        self.text = W.HTML()
        self.legend = W.HTML()
        self.canvas = W.HTML(layout=W.Layout(width="100%"))
        self._quiet = False
        self._drawn = None
        for w in (self.structure, self.trace_type, self.errors, self.search):
            w.observe(self._refilter, names="value")
        for w in (self.sentence, self.show_nulls, self.show_labels, self.show_spines, self.show_traces,
                  self.compare):
            w.observe(self._redraw, names="value")
        self.zoom.observe(self._rezoom, names="value")
        self.previous_button.on_click(lambda _: self.previous())
        self.next_button.on_click(lambda _: self.next())
        self.save_button.on_click(self._save_clicked)
        row = dict(layout=W.Layout(flex_flow="row wrap", align_items="center"))
        self.widget = W.VBox([
            W.HBox([self.structure, self.trace_type] + ([self.errors] if self.overlay else [])
                   + [self.search, self.count], **row),
            W.HBox([self.previous_button, self.sentence, self.next_button], **row),
            W.HBox([self.show_nulls, self.show_labels, self.show_spines, self.show_traces, self.compare,
                    self.zoom, self.save_button], **row),
            self.text, self.legend, self.canvas, self.status,
        ])
        self.svg = ""
        self._size = (0.0, 0.0)
        self._refilter()

    # -- filtering and navigation -------------------------------------------------------------
    def _error_counts(self) -> dict:
        """Per sentence with an overlay graph over the same words: its error counts."""
        from ..parser.analysis.errors import sentence_errors

        out = {}
        for sid, g in self.by_id.items():
            o = self.overlay.get(sid)
            if o is not None and list(o.words) == list(g.words):
                out[sid] = sentence_errors(g, o)
        return out

    def _labelled(self, ids) -> list[tuple[str, str]]:
        return [(_preview(sid, self.texts[sid]), sid) for sid in ids]

    def matches(self, sid: str) -> bool:
        """Whether sentence ``sid`` passes the structure, trace-type, error and search filters."""
        s = self.structures[sid]
        want = self.structure.value
        if want == "non-1EC" and s.one_endpoint_crossing:
            return False
        if want == "cyclic" and not s.cyclic:
            return False
        if want in _CATEGORY and (s.category != _CATEGORY[want] or s.cyclic):
            return False
        if self.trace_type.value != "any":
            g = self.by_id[sid]
            if not any(t == self.trace_type.value and k == 1 and c != p
                       for t, k, c, p in zip(g.trace, g.kind, g.child, g.parent)):
                return False
        if self.errors.value != "any":
            counts = self.error_counts.get(sid)
            if counts is None:
                return False
            if self.errors.value == "exact" and any(counts.values()):
                return False
            if self.errors.value != "exact" and not counts.get(self.errors.value):
                return False
        query = " ".join(self.search.value.split()).lower()
        return not query or query in self._haystack[sid]

    def _refilter(self, _=None):
        ids = [sid for sid in self.by_id if self.matches(sid)]
        current = self.sentence.value
        self._quiet = True
        try:
            self.sentence.options = self._labelled(ids)
            self.sentence.value = (current if current in ids else ids[0]) if ids else None
        finally:
            self._quiet = False
        self.ids = ids
        self.count.value = f"{len(ids)} of {len(self.by_id)} match"
        self._redraw()

    def _step(self, delta: int) -> None:
        if not self.ids:
            return
        sid = self.sentence.value
        k = self.ids.index(sid) if sid in self.ids else -delta
        self.sentence.value = self.ids[min(max(k + delta, 0), len(self.ids) - 1)]

    def next(self) -> None:
        """Show the next sentence that matches the filters (stays on the last)."""
        self._step(1)

    def previous(self) -> None:
        """Show the previous sentence that matches the filters (stays on the first)."""
        self._step(-1)

    # -- drawing ---------------------------------------------------------------------------
    def options(self) -> dict:
        return dict(show_nulls=self.show_nulls.value, show_labels=self.show_labels.value,
                    show_spines=self.show_spines.value, show_traces=self.show_traces.value)

    def current(self) -> Graph | None:
        sid = self.sentence.value
        return self.by_id.get(sid) if sid is not None else None

    def _comparing(self, g: Graph) -> Graph | None:
        return self.overlay.get(g.id) if self.compare.value else None

    @property
    def caption(self) -> str:
        """The current sentence as plain text: id, structure, words."""
        sid = self.sentence.value
        if sid is None:
            return "no sentence matches the filters"
        return f"{sid} ({self._kind(sid)}): {self.texts[sid]}"

    def _kind(self, sid: str) -> str:
        s = self.structures[sid]
        return s.category + (", cyclic" if s.cyclic else "") + ("" if s.one_endpoint_crossing else ", not 1EC")

    def _redraw(self, _=None):
        if self._quiet:
            return
        sid = self.sentence.value
        k = self.ids.index(sid) if sid in self.ids else -1
        self.previous_button.disabled = k <= 0
        self.next_button.disabled = k < 0 or k >= len(self.ids) - 1
        if sid != self._drawn:  # a "saved ..." line belongs to the sentence it was saved from
            self.status.value = ""
            self._drawn = sid
        g = self.current()
        if g is None:
            self.svg = ""
            self.canvas.value = "<i>no sentence matches the filters</i>"
            self.text.value = ""
            return
        overlay = self._comparing(g)
        layout = compute_layout(g, overlay, **self.options())
        self.svg = layout_to_svg(layout)
        self._size = (layout.width, layout.height)
        self.text.value = (f"<b>{escape(sid)}</b> ({escape(self._kind(sid))}, {len(g.words)} words, "
                           f"{k + 1} of {len(self.ids)}): {escape(self.texts[sid])}")
        self.legend.value = legend_html(self.trace_types, compare=overlay is not None)
        self._rezoom()

    def _rezoom(self, _=None):
        if self.svg:
            self.canvas.value = ('<div class="plgraph-canvas" style="width:0;min-width:100%;overflow-x:auto">'
                                 + _scaled(self.svg, *self._size, self.zoom.value) + "</div>")

    # -- saving ---------------------------------------------------------------------------------
    def save_paths(self) -> list[Path]:
        """Where Save writes the current drawing: ``[svg, png]``."""
        g = self.current()
        if g is None:
            return []
        stem = figure_stem(self.sentence.value, self._comparing(g) is not None)
        return [self.outdir / f"{stem}.svg", self.outdir / f"{stem}.png"]

    def save(self) -> list[Path]:
        """Write the current drawing (full size) to ``outdir/graph_<id>.svg`` and ``.png``."""
        import matplotlib

        from .mpl import render_figure

        paths = self.save_paths()
        if not paths:
            return []
        g = self.current()
        svg_path, png_path = paths
        self.outdir.mkdir(parents=True, exist_ok=True)
        atomic_text(svg_path, self.svg)
        fig = render_figure(g, self._comparing(g), **self.options())
        try:
            atomic_write_with(png_path,
                              lambda tmp: fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None}))
        finally:
            matplotlib.pyplot.close(fig)
        self.status.value = f"saved {svg_path} and {png_path.name}"
        return paths

    def _save_clicked(self, _=None):
        try:
            self.save()
        except (PlgraphError, OSError) as exc:  # shown in the widget, not as a traceback
            self.status.value = f"could not save: {exc}"

    def _ipython_display_(self):  # pragma: no cover - notebook display
        from IPython.display import display

        display(self.widget)


def explore(corpus_or_graphs, overlay=None, outdir=None) -> Explorer:
    """Open the explorer on a corpus, a list of sentences or a list of graphs
    (``outdir``: Save's folder, default :func:`default_figures_dir`)."""
    return Explorer(corpus_or_graphs, overlay, outdir)
