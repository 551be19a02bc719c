"""The interactive explorer (ipywidgets only: works in JupyterLab and Voilà).

``explore(corpus)`` returns an :class:`Explorer`; displaying it shows the
controls and the drawing.  All logic is in Python and can be driven without a
browser: set ``explorer.sentence.value``, toggle ``explorer.show_nulls.value``,
call ``explorer.save()``; ``explorer.svg`` is the current drawing.
"""
from __future__ import annotations

from pathlib import Path

from ..atomic import atomic_text, atomic_write_with
from ..graph import Graph
from ..structure import classify
from .svg import render_svg

CLASSES = ("all", "tree", "projective graph", "1EC", "non-1EC", "cyclic")
_CATEGORY = {"tree": "projective tree", "projective graph": "projective graph", "1EC": "one-endpoint crossing"}


def _as_graphs(items) -> list[Graph]:
    out = []
    for it in items:
        g = it if isinstance(it, Graph) else getattr(it, "graph", None)
        if g is None:
            raise TypeError(f"expected Graph or Sentence objects, got {type(it).__name__}")
        out.append(g)
    return out


class Explorer:
    """Sentence browser with structure/trace filters, drawing toggles and Save.

    Parameters
    ----------
    items : iterable of Graph or Sentence (e.g. a :class:`plgraph.Corpus`)
    overlay : iterable of Graph, optional
        Graphs over the same words (e.g. a parser's output), matched by id;
        shown with right/wrong/missing colouring when "compare" is ticked.
    outdir : folder where "Save" writes SVG and PNG (default ``figures/``).
    """

    def __init__(self, items, overlay=None, outdir="figures"):
        import ipywidgets as W

        self.graphs = _as_graphs(items)
        if not self.graphs:
            raise ValueError("nothing to explore: no graphs given")
        self.by_id = {g.id or str(k): g for k, g in enumerate(self.graphs)}
        self.overlay = {g.id: g for g in _as_graphs(overlay)} if overlay is not None else {}
        self.outdir = Path(outdir)
        self.structures = {sid: classify(g) for sid, g in self.by_id.items()}
        types = sorted({str(t) for g in self.graphs for t, k, c, p in
                        zip(g.trace, g.kind, g.child, g.parent) if k == 1 and c != p})
        self.structure = W.Dropdown(options=CLASSES, value="all", description="structure")
        self.trace_type = W.Dropdown(options=("any",) + tuple(types), value="any", description="trace type")
        self.sentence = W.Dropdown(options=list(self.by_id), description="sentence",
                                   layout=W.Layout(width="320px"))
        self.show_nulls = W.Checkbox(value=True, description="nulls", indent=False)
        self.show_labels = W.Checkbox(value=True, description="labels", indent=False)
        self.show_spines = W.Checkbox(value=True, description="spines", indent=False)
        self.show_traces = W.Checkbox(value=True, description="traces", indent=False)
        self.compare = W.Checkbox(value=False, description="compare with overlay", indent=False,
                                  disabled=not self.overlay)
        self.save_button = W.Button(description="Save", icon="download", tooltip="write SVG and PNG to " + str(outdir))
        self.status = W.HTML()
        self.text = W.HTML()
        self.canvas = W.HTML(layout=W.Layout(overflow="auto"))
        for w in (self.structure, self.trace_type):
            w.observe(self._refilter, names="value")
        for w in (self.sentence, self.show_nulls, self.show_labels, self.show_spines, self.show_traces, self.compare):
            w.observe(self._redraw, names="value")
        self.save_button.on_click(lambda _: self.save())
        self.widget = W.VBox([
            W.HBox([self.structure, self.trace_type, self.sentence]),
            W.HBox([self.show_nulls, self.show_labels, self.show_spines, self.show_traces, self.compare,
                    self.save_button]),
            self.text, self.canvas, self.status,
        ])
        self.svg = ""
        self._redraw()

    # -- filtering -----------------------------------------------------------------------
    def matches(self, sid: str) -> bool:
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
        return True

    def _refilter(self, _=None):
        ids = [sid for sid in self.by_id if self.matches(sid)]
        current = self.sentence.value
        self.sentence.options = ids
        if ids:
            self.sentence.value = current if current in ids else ids[0]
        self.status.value = f"{len(ids)} of {len(self.by_id)} sentences match"
        self._redraw()

    # -- drawing ---------------------------------------------------------------------------
    def options(self) -> dict:
        return dict(show_nulls=self.show_nulls.value, show_labels=self.show_labels.value,
                    show_spines=self.show_spines.value, show_traces=self.show_traces.value)

    def current(self) -> Graph | None:
        sid = self.sentence.value
        return self.by_id.get(sid) if sid is not None else None

    def _redraw(self, _=None):
        g = self.current()
        if g is None:
            self.svg = ""
            self.canvas.value = "<i>no sentence matches the filters</i>"
            self.text.value = ""
            return
        overlay = self.overlay.get(g.id) if self.compare.value else None
        self.svg = render_svg(g, overlay, **self.options())
        s = self.structures[g.id or self.sentence.value]
        kind = s.category + (", cyclic" if s.cyclic else "") + ("" if s.one_endpoint_crossing else ", not 1EC")
        self.text.value = f"<b>{g.id}</b> ({kind}): {' '.join(g.words)}"
        self.canvas.value = self.svg

    def save(self) -> list[Path]:
        """Write the current drawing to ``outdir/<id>.svg`` and ``.png``."""
        import matplotlib

        from .mpl import render_figure

        g = self.current()
        if g is None:
            return []
        self.outdir.mkdir(parents=True, exist_ok=True)
        base = self.outdir / f"graph_{g.id or 'sentence'}"
        svg_path = base.with_suffix(".svg")
        atomic_text(svg_path, self.svg)
        overlay = self.overlay.get(g.id) if self.compare.value else None
        fig = render_figure(g, overlay, **self.options())
        png_path = base.with_suffix(".png")
        atomic_write_with(png_path, lambda tmp: fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None}))
        matplotlib.pyplot.close(fig)
        self.status.value = f"saved {svg_path} and {png_path}"
        return [svg_path, png_path]

    def _ipython_display_(self):  # pragma: no cover - notebook display
        from IPython.display import display

        display(self.widget)


def explore(corpus_or_graphs, overlay=None, outdir="figures") -> Explorer:
    """Open the explorer on a corpus, a list of sentences or a list of graphs."""
    return Explorer(corpus_or_graphs, overlay, outdir)
