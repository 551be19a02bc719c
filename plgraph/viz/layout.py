"""Layout of a graph drawing, computed as data (displaCy-style) and shared by
every renderer (SVG, matplotlib, TikZ).

Words sit on a baseline with their POS tag under them and, under that, their
spine as a small stack read downwards from the word (the first entry is the
lowest constituent the word heads; null elements greyed).  Structural arcs are
drawn above the words, trace arcs below the spine stacks; arrowheads point at
the child.  Arc heights come from greedy stacking: arcs are placed shortest
first, each at the lowest level where neither its span nor its label box
overlaps anything already placed at that level — so crossing arcs get distinct
heights and no two labels overlap.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..graph import Graph, STRUCTURAL, TRACE
from ..spine import parse_spine
from ..structure import edge_problems

TRACE_COLOURS = {
    "*": "#1f77b4", "*T*": "#d62728", "*ICH*": "#9467bd", "*EXP*": "#8c564b", "*RNR*": "#e377c2",
    "=": "#2ca02c", "*PPA*": "#bcbd22",
}
OTHER_TRACE_COLOUR = "#7f7f7f"
STRUCTURAL_COLOUR = "#444444"
COMPARE_COLOURS = {"right": "#2e8b57", "wrong": "#d62728", "missing": "#9e9e9e"}

DEFAULTS = dict(
    show_nulls=True, show_labels=True, show_spines=True, show_traces=True, root="end",
    word_font=14.0, tag_font=10.5, spine_font=9.5, label_font=9.0, char_width=0.6,
    word_gap=18.0, margin=16.0, level_height=22.0, label_pad=2.5, highlight=True,
)


@dataclass
class WordBox:
    """A token column: ``index`` is 1-based (0 = ROOT)."""

    index: int
    word: str
    tag: str
    x: float
    width: float
    spine: list  # (text, is_null) bottom to top
    is_root: bool = False


@dataclass
class ArcBox:
    """One drawn edge.

    ``edge`` indexes the graph's edge arrays (the overlay's for edges only the
    overlay has); ``kind`` is ``structural`` or ``trace``; ``side`` ``above`` or
    ``below``; ``x_child``/``x_parent`` the end points; ``level`` the stacking
    level (1 = lowest); ``classes`` extra CSS classes (``crossing``,
    ``violation``, ``cycle``, ``self-loop``, ``right``/``wrong``/``missing``).
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
    # -- columns ---------------------------------------------------------------------------
    columns = []
    order = list(range(1, n + 1)) + [0] if opt["root"] == "end" else [0] + list(range(1, n + 1))
    for idx in order:
        if idx == 0:
            word, tag, spine = "ROOT", "", []
        else:
            word, tag = graph.words[idx - 1], graph.tags[idx - 1]
            spine = _spine_entries(graph.spines[idx - 1], opt["show_nulls"]) if opt["show_spines"] else []
        width = max([_text_width(word, opt["word_font"], cw), _text_width(tag, opt["tag_font"], cw), 18.0]
                    + [_text_width(t, opt["spine_font"], cw) for t, _ in spine])
        columns.append(WordBox(idx, word, tag, 0.0, width, spine, idx == 0))
    x = opt["margin"]
    for col in columns:
        col.x = x + col.width / 2
        x += col.width + opt["word_gap"]
    total_width = x - opt["word_gap"] + opt["margin"]
    xs = {col.index: col.x for col in columns}

    # -- edges: the graph's, plus the overlay's with right/wrong/missing classes -------------
    probs = edge_problems(graph, opt["root"])
    crossing_set = set()
    for a, b in probs.crossing.tolist():
        crossing_set.add(a)
        crossing_set.add(b)
    entries = []  # (source graph, edge index, compare class)
    if overlay is None:
        entries = [(graph, e, None) for e in range(graph.n_edges)]
    else:
        gold = {_edge_key(graph, e): e for e in range(graph.n_edges)}
        pred = {_edge_key(overlay, e): e for e in range(overlay.n_edges)}
        for key, e in gold.items():
            entries.append((graph, e, "right" if key in pred else "missing"))
        for key, e in pred.items():
            if key not in gold:
                entries.append((overlay, e, "wrong"))
    arcs: list[ArcBox] = []
    for g, e, cmp in entries:
        kind = "structural" if g.kind[e] == STRUCTURAL else "trace"
        if kind == "trace" and not opt["show_traces"]:
            continue
        c, p = int(g.child[e]), int(g.parent[e])
        trace = str(g.trace[e])
        label = str(g.label[e]) if kind == "structural" else trace
        colour = STRUCTURAL_COLOUR if kind == "structural" else TRACE_COLOURS.get(trace, OTHER_TRACE_COLOUR)
        classes = []
        if c == p:
            classes.append("self-loop")
        if cmp is not None:
            classes.append(cmp)
            colour = COMPARE_COLOURS[cmp]
        elif opt["highlight"] and g is graph:
            if e in crossing_set:
                classes.append("crossing")
            if probs.violating[e]:
                classes.append("violation")
            if probs.on_cycle[e]:
                classes.append("cycle")
        arcs.append(ArcBox(e, kind, c, p, xs[c], xs[p], "above" if kind == "structural" else "below", 0,
                           label, trace, colour, classes))

    # spread the end points of the arcs meeting at a word
    ends: dict[tuple, list] = {}
    for a in arcs:
        if a.child == a.parent:
            continue
        ends.setdefault((a.child, a.side), []).append((a, "x_child", xs[a.parent]))
        ends.setdefault((a.parent, a.side), []).append((a, "x_parent", xs[a.child]))
    for (w, _), lst in ends.items():
        lst.sort(key=lambda t: t[2])
        k = len(lst)
        for rank, (a, attr, _) in enumerate(lst):
            setattr(a, attr, xs[w] + (rank - (k - 1) / 2) * min(5.0, 30.0 / max(k, 1)))

    # -- greedy stacking --------------------------------------------------------------------
    label_h = opt["label_font"] + 2 * opt["label_pad"]
    levels = {"above": [], "below": []}
    for a in sorted(arcs, key=lambda a: (a.hi - a.lo, a.lo, a.edge)):
        if a.child == a.parent:
            a.level = 1
            continue
        lw = _text_width(a.label, opt["label_font"], cw) + 2 * opt["label_pad"] if opt["show_labels"] else 0.0
        mid = (a.lo + a.hi) / 2
        extent = (min(a.lo, mid - lw / 2) - 2, max(a.hi, mid + lw / 2) + 2)
        placed = levels[a.side]
        level = 1
        while True:
            busy = [ext for lv, ext in placed if lv == level]
            if all(extent[1] <= b[0] or extent[0] >= b[1] for b in busy):
                break
            level += 1
        a.level = level
        placed.append((level, extent))
        a.label_box = (mid - lw / 2, 0.0, lw, label_h)
    levels_above = max([a.level for a in arcs if a.side == "above"], default=0)
    levels_below = max([a.level for a in arcs if a.side == "below" and a.child != a.parent], default=0)
    has_loops = any(a.child == a.parent for a in arcs)

    # -- vertical positions -------------------------------------------------------------------
    lh = opt["level_height"]
    top = opt["margin"] + levels_above * lh + (label_h / 2 if levels_above else 0)
    baseline = top + opt["word_font"]
    spine_rows = max((len(c.spine) for c in columns), default=0)
    below_base = baseline + opt["tag_font"] + 8 + spine_rows * (opt["spine_font"] + 3) + 6
    if has_loops:
        below_base += 10
    height = below_base + levels_below * lh + (label_h / 2 + 4 if levels_below else 0) + opt["margin"]
    for a in arcs:
        if not opt["show_labels"]:
            continue
        x0, _, w, h = a.label_box
        if a.side == "above":
            y = baseline - opt["word_font"] - 4 - a.level * lh
        else:
            y = below_base + a.level * lh
        a.label_box = (x0, y - h / 2, w, h)
    title = graph.id or ""
    return Layout(columns, arcs, total_width, height, baseline, below_base, levels_above, levels_below, opt,
                  [tuple(p) for p in probs.crossing.tolist()], title)


def arc_anchor_y(layout: Layout, arc: ArcBox) -> tuple[float, float]:
    """(y of the arc's end points, y of its apex)."""
    opt = layout.options
    lh = opt["level_height"]
    if arc.side == "above":
        y0 = layout.baseline - opt["word_font"] - 2
        return y0, y0 - arc.level * lh - 4
    y0 = layout.below_base - 4
    return y0, y0 + arc.level * lh + 4


def layout_edges(layout: Layout) -> np.ndarray:
    """Edge indices drawn, in drawing order (for tests)."""
    return np.array([a.edge for a in layout.arcs], dtype=np.int64)
