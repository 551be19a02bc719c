"""Layout of a graph drawing, computed as data (displaCy-style) and shared by
every renderer (SVG, matplotlib, TikZ colours, the explorer's legend).

Words sit on a baseline with their POS tag under them and, under that, their
spine as a small stack read downwards from the word (the first entry is the
lowest constituent the word heads; null elements greyed).  Words are shown as
text (:func:`plgraph.viz.text.display_token`: ``(`` for ``-LRB-``, ``5/8`` for
``5\\/8``).  Structural arcs are drawn above the words, trace arcs below the
spine stacks; arrowheads point at the child.

Contract (what the tests check on the layout data):

* **Levels** come from greedy stacking on the word centres: arcs are placed
  shortest first (self-loops first of all), each at the lowest level where
  neither its span nor its label box overlaps anything already placed at that
  level — so crossing arcs get distinct heights and **no two label boxes
  overlap** (self-loop labels included).
* **End points are spread** where several arcs meet one word on one side: each
  end gets a slot (:data:`ARROW_SLOT` wide for an arrowhead, :data:`END_SLOT`
  for a plain end, :data:`LOOP_SLOT` for a self-loop), ordered so that nested
  arcs stay nested (left-going arcs left, inner ones outermost; right-going
  arcs right); the column is widened when the slots need more room than the
  word and its gap give.  So arrowheads never overlap, and two arcs between the
  same two words (a two-edge cycle) are distinct nested curves.
* **Arrowheads** are triangles of fixed size (:data:`ARROW_LENGTH` by
  :data:`ARROW_WIDTH` layout px) whatever the line width; the line stops at the
  arrowhead's base.  ``ArcBox.path`` (a cubic Bézier) and ``ArcBox.arrow``
  (the triangle) are what renderers draw.
* Trace labels are bold, in ``trace_font`` (never smaller than the arc labels'
  ``label_font``: a lone ``*`` must stay legible).  Levels are at least one
  label box high apart, so boxes on different levels cannot overlap.
* Trace arcs end just under their own word's spine stack (not under the
  tallest stack of the sentence).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..graph import Graph, STRUCTURAL, TRACE
from ..spine import parse_spine
from ..structure import edge_problems
from .text import display_token

#: trace type -> colour (none of them is a highlight or compare colour)
TRACE_COLOURS = {
    "*": "#1f77b4", "*T*": "#9467bd", "*ICH*": "#8c564b", "*EXP*": "#bcbd22", "*RNR*": "#e377c2",
    "=": "#17becf", "*PPA*": "#2ca02c",
}
#: trace type -> legend name (glosses after the PTB bracketing guidelines)
TRACE_NAMES = {"*": "* (NP trace, PRO)", "*T*": "*T* (wh / A' trace)", "*ICH*": "*ICH* (interpret here)",
               "*EXP*": "*EXP* (expletive)", "*RNR*": "*RNR* (right node raising)", "=": "= (gapping)",
               "*PPA*": "*PPA* (predictable ambiguity)"}
OTHER_TRACE_COLOUR = "#7f7f7f"
STRUCTURAL_COLOUR = "#444444"
COMPARE_COLOURS = {"right": "#2e8b57", "wrong": "#d62728", "missing": "#9e9e9e"}
HIGHLIGHT_COLOURS = {"violation": "#ff7f0e", "cycle": "#c0392b"}
#: stroke widths: plain edge, crossing edge (1EC violations always cross)
STROKE_WIDTHS = {"plain": 1.4, "crossing": 2.2}
#: a 1EC-violation or cycle edge keeps its type colour and gets a band of the
#: highlight colour under it, this much wider than the line on each side
HALO_RADIUS = 3.0
HALO_OPACITY = 0.55
DASHES = {"trace": (5.0, 3.0), "missing": (2.0, 3.0)}
ARROW_LENGTH = 8.0
ARROW_WIDTH = 7.0
ARROW_SLOT = ARROW_WIDTH + 4.0
END_SLOT = 6.0
LOOP_SLOT = 12.0
LOOP_WIDTH = 8.0

DEFAULTS = dict(
    show_nulls=True, show_labels=True, show_spines=True, show_traces=True, root="end",
    word_font=14.0, tag_font=10.5, spine_font=9.5, label_font=10.0, trace_font=12.0, char_width=0.6,
    word_gap=18.0, margin=16.0, level_height=22.0, label_pad=2.5, highlight=True,
)


@dataclass
class WordBox:
    """A token column: ``index`` is 1-based (0 = ROOT); ``word`` the treebank
    token, ``text`` what is drawn."""

    index: int
    word: str
    tag: str
    x: float
    width: float
    spine: list  # (text, is_null) bottom to top
    is_root: bool = False
    text: str = ""


@dataclass
class ArcBox:
    """One drawn edge.

    ``edge`` indexes the graph's edge arrays (the overlay's for edges only the
    overlay has); ``kind`` is ``structural`` or ``trace``; ``side`` ``above`` or
    ``below``; ``x_child``/``x_parent`` the (spread) end points; ``level`` the
    stacking level (1 = lowest); ``classes`` extra CSS classes (``crossing``,
    ``violation``, ``cycle``, ``self-loop``, ``right``/``wrong``/``missing``).
    ``colour`` is the type (or compare) colour, used for the label; ``stroke``
    the line and arrowhead colour (the same); ``stroke_width`` and ``dash``
    (``None`` or (on, off)) the line style; ``halo`` ``None``, ``"violation"``
    or ``"cycle"``: the edge is drawn over a band of that highlight colour
    (:data:`HIGHLIGHT_COLOURS`), so a highlighted trace keeps its type colour
    (a violating gapping edge stays gapping-coloured).  ``path`` is the cubic Bézier (start, control, control, end),
    ``arrow`` the arrowhead triangle (tip, base corner, base corner),
    ``label_box`` (x, y, width, height) and ``font`` the label's font size.
    """

    edge: int
    kind: str
    child: int
    parent: int
    x_child: float
    x_parent: float
    side: str
    level: int
    label: str
    trace: str
    colour: str
    classes: list = field(default_factory=list)
    label_box: tuple = (0.0, 0.0, 0.0, 0.0)  # x, y, width, height
    stroke: str = ""
    stroke_width: float = STROKE_WIDTHS["plain"]
    dash: tuple | None = None
    path: tuple = ()
    arrow: tuple = ()
    font: float = 0.0
    tooltip: str = ""
    halo: str | None = None

    @property
    def lo(self) -> float:
        return min(self.x_child, self.x_parent)

    @property
    def hi(self) -> float:
        return max(self.x_child, self.x_parent)


@dataclass
class Layout:
    words: list
    arcs: list
    width: float
    height: float
    baseline: float        # y of the words
    below_base: float      # y where trace arcs start
    levels_above: int
    levels_below: int
    options: dict
    crossing: list         # pairs of edge indices that cross
    title: str = ""


def _text_width(text: str, size: float, cw: float) -> float:
    return len(text) * size * cw


def _spine_entries(spine: str, show_nulls: bool) -> list[tuple[str, bool]]:
    try:
        levels, dangling = parse_spine(spine)
    except ValueError:
        return [(spine, False)]
    out = []
    for level in levels:
        if show_nulls:
            for group in level.nulls:
                out.append((group.to_ptb().replace("-NONE- ", ""), True))
        out.append((level.name, False))
    return out


def _edge_key(g: Graph, e: int) -> tuple:
    return (int(g.child[e]), int(g.parent[e]), int(g.kind[e]), str(g.label[e]), str(g.trace[e]),
            str(g.child_label[e]) if g.kind[e] == TRACE else "")


def _word_name(graph: Graph, idx: int) -> str:
    return "ROOT" if idx == 0 else f"{display_token(graph.words[idx - 1])} ({idx})"


def _arcs(graph: Graph, overlay: Graph | None, opt: dict):
    """The drawn edges without geometry, and the classifier's crossing pairs."""
    probs = edge_problems(graph, opt["root"])
    crossing_set = {int(e) for pair in probs.crossing.tolist() for e in pair}
    if overlay is None:
        entries = [(graph, e, None) for e in range(graph.n_edges)]
    else:
        gold = {_edge_key(graph, e): e for e in range(graph.n_edges)}
        pred = {_edge_key(overlay, e): e for e in range(overlay.n_edges)}
        entries = [(graph, e, "right" if key in pred else "missing") for key, e in gold.items()]
        entries += [(overlay, e, "wrong") for key, e in pred.items() if key not in gold]
    arcs: list[ArcBox] = []
    for g, e, cmp in entries:
        kind = "structural" if g.kind[e] == STRUCTURAL else "trace"
        if kind == "trace" and not opt["show_traces"]:
            continue
        c, p = int(g.child[e]), int(g.parent[e])
        trace = str(g.trace[e])
        label = str(g.label[e]) if kind == "structural" else trace
        colour = STRUCTURAL_COLOUR if kind == "structural" else TRACE_COLOURS.get(trace, OTHER_TRACE_COLOUR)
        classes = ["self-loop"] if c == p else []
        width = STROKE_WIDTHS["plain"]
        dash = DASHES["trace"] if kind == "trace" else None
        stroke, halo = colour, None
        if cmp is not None:
            classes.append(cmp)
            colour = stroke = COMPARE_COLOURS[cmp]
            if cmp == "missing":
                dash = DASHES["missing"]
        elif opt["highlight"] and g is graph:
            if e in crossing_set:
                classes.append("crossing")
                width = STROKE_WIDTHS["crossing"]
            if probs.violating[e]:
                classes.append("violation")
                halo = "violation"
            if probs.on_cycle[e]:
                classes.append("cycle")
                halo = "cycle"
        if kind == "structural":
            tip = f"{label}: {_word_name(g, p)} \u2192 {_word_name(g, c)}"
        else:
            tip = (f"{trace} trace: {_word_name(g, p)} ({label}) \u2192 {_word_name(g, c)} "
                   f"({g.child_label[e]})")
        if classes:
            tip += " [" + ", ".join(classes) + "]"
        font = opt["label_font"] if kind == "structural" else max(opt["trace_font"], opt["label_font"])
        arcs.append(ArcBox(e, kind, c, p, 0.0, 0.0, "above" if kind == "structural" else "below", 0,
                           label, trace, colour, classes, stroke=stroke, stroke_width=width, dash=dash, halo=halo,
                           font=font, tooltip=tip))
    return arcs, probs


def _label_height(a: ArcBox, opt: dict) -> float:
    return a.font + 2 * opt["label_pad"]


def _slot(a: ArcBox, end: str) -> float:
    if a.child == a.parent:
        return LOOP_SLOT
    return ARROW_SLOT if end == "child" else END_SLOT


def _ends(arcs: list[ArcBox]) -> dict:
    """(word, side) -> [(arc, 'child' | 'parent' | 'loop')]."""
    ends: dict[tuple, list] = {}
    for a in arcs:
        if a.child == a.parent:
            ends.setdefault((a.child, a.side), []).append((a, "loop"))
        else:
            ends.setdefault((a.child, a.side), []).append((a, "child"))
            ends.setdefault((a.parent, a.side), []).append((a, "parent"))
    return ends


def compute_layout(graph: Graph, overlay: Graph | None = None, **options) -> Layout:
    """Layout of ``graph`` (and of the edges of ``overlay``, a second graph over
    the same words, coloured right/wrong/missing against ``graph``)."""
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown drawing options: {sorted(unknown)}")
    opt = dict(DEFAULTS, **options)
    if opt["root"] not in ("end", "start"):
        raise ValueError("root must be 'end' or 'start'")
    if overlay is not None and overlay.words != graph.words:
        raise ValueError("the overlay graph must have the same words as the graph")
    n = len(graph.words)
    cw = opt["char_width"]
    arcs, probs = _arcs(graph, overlay, opt)
    ends = _ends(arcs)
    needed: dict[int, float] = {}
    for (w, _), lst in ends.items():
        needed[w] = max(needed.get(w, 0.0), sum(_slot(a, end) for a, end in lst))

    # -- columns (widened where the arcs' end slots need the room) -----------------------------
    columns = []
    order = list(range(1, n + 1)) + [0] if opt["root"] == "end" else [0] + list(range(1, n + 1))
    for idx in order:
        if idx == 0:
            word, text, tag, spine = "ROOT", "ROOT", "", []
        else:
            word, tag = graph.words[idx - 1], graph.tags[idx - 1]
            text = display_token(word)
            spine = _spine_entries(graph.spines[idx - 1], opt["show_nulls"]) if opt["show_spines"] else []
        width = max([_text_width(text, opt["word_font"], cw), _text_width(tag, opt["tag_font"], cw), 18.0,
                     needed.get(idx, 0.0) - opt["word_gap"] + 6.0]
                    + [_text_width(t, opt["spine_font"], cw) for t, _ in spine])
        columns.append(WordBox(idx, word, tag, 0.0, width, spine, idx == 0, text))
    x = opt["margin"]
    for col in columns:
        col.x = x + col.width / 2
        x += col.width + opt["word_gap"]
    total_width = x - opt["word_gap"] + opt["margin"]
    xs = {col.index: col.x for col in columns}

    # -- greedy stacking on the word centres --------------------------------------------------
    levels: dict[str, list] = {"above": [], "below": []}
    mids = {}
    for a in sorted(arcs, key=lambda a: (abs(xs[a.child] - xs[a.parent]), xs[a.child] + xs[a.parent], a.edge)):
        lo, hi = sorted((xs[a.child], xs[a.parent]))
        lw = _text_width(a.label, a.font, cw) + 2 * opt["label_pad"] if opt["show_labels"] else 0.0
        mid = (lo + hi) / 2
        half = max(lw / 2, LOOP_SLOT / 2 if a.child == a.parent else 0.0)
        extent = (min(lo, mid - half) - 2, max(hi, mid + half) + 2)
        placed = levels[a.side]
        level = 1
        while any(lv == level and not (extent[1] <= b[0] or extent[0] >= b[1]) for lv, b in placed):
            level += 1
        a.level = level
        placed.append((level, extent))
        mids[id(a)] = (mid, lw)

    # -- spread the end points meeting at a word (nested arcs stay nested) ---------------------
    for (w, _), lst in ends.items():
        def key(item):
            a, end = item
            if end == "loop":
                return (1, 0, 0.0)
            other = xs[a.parent] if end == "child" else xs[a.child]
            if other < xs[w]:   # left-going: inner arcs leftmost
                return (0, a.level, -other)
            return (2, -a.level, other)  # right-going: outer arcs leftmost
        lst.sort(key=key)
        x = xs[w] - sum(_slot(a, end) for a, end in lst) / 2
        for a, end in lst:
            s = _slot(a, end)
            centre = x + s / 2
            if end == "loop":
                a.x_parent, a.x_child = centre - LOOP_WIDTH / 2, centre + LOOP_WIDTH / 2
            elif end == "child":
                a.x_child = centre
            else:
                a.x_parent = centre
            x += s
    levels_above = max([a.level for a in arcs if a.side == "above"], default=0)
    levels_below = max([a.level for a in arcs if a.side == "below"], default=0)

    # -- vertical positions, paths, arrowheads, label boxes -----------------------------------
    lh = max(opt["level_height"], max((_label_height(a, opt) for a in arcs), default=0.0) + 2)
    label_top = max((_label_height(a, opt) for a in arcs if a.side == "above"), default=0.0) / 2
    label_bottom = max((_label_height(a, opt) for a in arcs if a.side == "below"), default=0.0) / 2
    top = opt["margin"] + levels_above * lh + label_top
    baseline = top + opt["word_font"]
    spine_rows = max((len(c.spine) for c in columns), default=0)
    below_base = baseline + opt["tag_font"] + 8 + spine_rows * (opt["spine_font"] + 3) + 6
    height = below_base + levels_below * lh + (label_bottom + 4 if levels_below else 0) + opt["margin"]
    # trace arcs end just under their own word's spine stack
    under = {c.index: baseline + opt["tag_font"] + 8 + len(c.spine) * (opt["spine_font"] + 3) + 2 for c in columns}
    for a in arcs:
        if a.side == "above":
            sign, yp, yc = -1.0, baseline - opt["word_font"] - 2, baseline - opt["word_font"] - 2
            apex = yp - a.level * lh - 4
            y_label = baseline - opt["word_font"] - 4 - a.level * lh
        else:
            sign, yp, yc = 1.0, under[a.parent], under[a.child]
            apex = below_base - 4 + a.level * lh + 4
            y_label = below_base + a.level * lh
        base_y = yc + sign * ARROW_LENGTH
        end_y = base_y - sign * 0.5          # the line stops inside the arrowhead's base
        ctrl = (apex - (yp + end_y) / 8) / 0.75  # the curve passes through the apex at its middle
        a.path = ((a.x_parent, yp), (a.x_parent, ctrl), (a.x_child, ctrl), (a.x_child, end_y))
        a.arrow = ((a.x_child, yc), (a.x_child - ARROW_WIDTH / 2, base_y), (a.x_child + ARROW_WIDTH / 2, base_y))
        mid, lw = mids[id(a)]
        h = _label_height(a, opt)
        a.label_box = (mid - lw / 2, y_label - h / 2, lw, h) if opt["show_labels"] else (mid, y_label, 0.0, 0.0)
    title = graph.id or ""
    return Layout(columns, arcs, total_width, height, baseline, below_base, levels_above, levels_below, opt,
                  [tuple(p) for p in probs.crossing.tolist()], title)
