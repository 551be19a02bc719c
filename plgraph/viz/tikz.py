"""TikZ export (the ``tikz-dependency`` package) for papers."""
from __future__ import annotations

from ..graph import Graph, STRUCTURAL
from .layout import TRACE_COLOURS, OTHER_TRACE_COLOUR
from .text import display_token

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _tex(text: str) -> str:
    return "".join(_SPECIAL.get(ch, ch) for ch in text)


def render_tikz(graph: Graph, show_traces: bool = True, show_labels: bool = True, root: str = "end") -> str:
    """A ``dependency`` environment: structural edges above, trace edges below
    (dashed, coloured by type); ROOT is a column at the end (or start).  Words are
    shown as text (``(`` for ``-LRB-``, ``5/8`` for ``5\\/8``; TeX typesets the
    treebank's ```` and ``''`` as quotes itself)."""
    n = len(graph.words)
    order = list(range(1, n + 1)) + [0] if root == "end" else [0] + list(range(1, n + 1))
    col = {idx: k + 1 for k, idx in enumerate(order)}
    words = [r"\textsc{root}" if i == 0 else _tex(display_token(graph.words[i - 1], quotes=False)) for i in order]
    tags = ["" if i == 0 else _tex(graph.tags[i - 1]) for i in order]
    colours = sorted({t for t in graph.trace[graph.kind != STRUCTURAL]} if show_traces else set())
    lines = [r"% requires \usepackage{tikz-dependency}"]
    for t in colours:
        hexcol = TRACE_COLOURS.get(t, OTHER_TRACE_COLOUR).lstrip("#").upper()
        lines.append(rf"\definecolor{{trace{_name(t)}}}{{HTML}}{{{hexcol}}}")
    lines += [r"\begin{dependency}[theme=simple]", r"\begin{deptext}[column sep=0.5em]",
              " \\& ".join(words) + r" \\", r"{\scriptsize " + r"} \& {\scriptsize ".join(tags) + r"} \\",
              r"\end{deptext}"]
    for c, p, k, lab, tr in zip(graph.child.tolist(), graph.parent.tolist(), graph.kind.tolist(),
                                graph.label.tolist(), graph.trace.tolist()):
        text = _tex(lab if k == STRUCTURAL else tr) if show_labels else ""
        if k == STRUCTURAL:
            lines.append(rf"\depedge{{{col[p]}}}{{{col[c]}}}{{{text}}}")
        elif show_traces and c != p:
            lines.append(rf"\depedge[edge below, dashed, edge style={{trace{_name(tr)}}}, "
                         rf"label style={{text=trace{_name(tr)}}}]{{{col[p]}}}{{{col[c]}}}{{{text}}}")
    lines.append(r"\end{dependency}")
    return "\n".join(lines) + "\n"


def _name(trace: str) -> str:
    return "".join(ch if ch.isalpha() else {"*": "S", "=": "Gap"}.get(ch, "X") for ch in trace)
