"""Is a graph one that :func:`~plgraph.convert.graph_to_tree` turns into a tree without guessing?

A parser's graph (of any cascade step: the chart, a relaxed chart, pass 2, pass 1, the
fallback) is **valid** when

1. every spine reads, with no null element above its top node;
2. every structural edge attaches to a non-null node of its parent's spine (``ROOT_0``
   for ROOT) and leaves from the top node of its child's spine (``_`` for an empty one);
3. every trace edge names an existing node at both ends (null or not, as its flags
   say); an ordinary trace's reference end is a null node (the antecedent end is the
   child, or with null reversal (:class:`~plgraph.convert.ConversionOptions`) the
   parent of a null-to-null edge);
4. every ordinary trace edge finds a ``-NONE-`` leaf of its own under its reference
   node, taken as :func:`~plgraph.convert.graph_to_tree` takes it (the leaf of the
   edge's type directly below, else anywhere below, else any free leaf directly below),
   edges in graph order -- two edges into a null node with one leaf leave the second
   without a null element.

Gold graphs of the treebank are valid; parser output may not be: its labels and spines
are chosen separately in the fallback steps, and the chart does not count null leaves.
:func:`graph_problems` lists what is wrong, :func:`repair_graph` makes the smallest
changes that give a valid graph (each named): a structural edge to a missing node goes
to the top of its parent's spine (as :func:`~plgraph.convert.graph_to_tree` would place
it), a word that heads others but has an empty spine gets a one-level one
(:func:`with_head_spines`), a trace edge that names a missing node or finds no free null
leaf is dropped, dangling null elements are dropped from their spine.  When trace edges
compete for one null leaf, the edges between two words take the leaves first, in graph
order, and a spine's self-loop traces (part of a word's spine, chosen apart from the
chart's edges) after them, so a self-loop gives way; the repaired graph lists its edges in
that order (plgraph's choice, made on the dev split: the experiment record of
2026-12-07).  A valid graph's
tree has every co-index matched: :func:`coindex_problems` checks a tree for an index that
nothing refers to and for a null element or gapping index without its antecedent.

The thesis is silent on invalid parser output; the reference
converter crashes on it.  This is plgraph's.
"""
from __future__ import annotations

from collections import Counter

from ..graph import STRUCTURAL, TRACE, Graph
from ..ptb.clean import coindex_of, gap_index_of
from ..spine import NullNode, parse_spine
from ..tree import Tree

#: the node every edge into ROOT attaches to
ROOT_NODE = "ROOT_0"
#: the trace type of gapping edges (no null element)
GAPPING = "="


class _Spine:
    """The nodes of one word's spine: non-null names, null nodes by name (with their
    leaves), the top node; ``problem`` when the spine cannot be used as it is."""

    __slots__ = ("nonnull", "nulls", "top", "dangling", "problem")

    def __init__(self, spine: str):
        self.nonnull: set = set()
        self.nulls: dict = {}
        self.top = "_"
        self.dangling = 0
        self.problem = None
        try:
            levels, dangling = parse_spine(spine)
        except (ValueError, RecursionError) as err:
            self.problem = f"spine {spine!r} cannot be read ({err})"
            return
        for level in levels:
            self.nonnull.add(level.name)
            for group in level.nulls:
                for node in group.walk():
                    if node.name:
                        self.nulls[node.name] = node
        if levels:
            self.top = levels[-1].name
        self.dangling = len(dangling)

    def has(self, name: str, null: bool) -> bool:
        return name in self.nulls if null else name in self.nonnull


def _free_leaf(node: NullNode, trace: str, used: set):
    """The leaf :func:`~plgraph.convert.graph_to_tree` indexes for a ``trace`` edge into
    the null node ``node`` (its ``_reference_leaf``), or None; ``used``: ids of leaves
    taken by earlier edges."""
    free = [c for c in node.children if c.word is not None and id(c) not in used]
    for leaf in free:
        if leaf.word == trace:
            return leaf
    for leaf in node.walk():
        if leaf.word == trace and id(leaf) not in used:
            return leaf
    return free[0] if free else None


def _edge_name(c: int, p: int, trace: str) -> str:
    return f"{trace} edge {c}->{p}" if trace != "_" else f"structural edge {c}->{p}"


def _problems(graph: Graph, spines: list) -> list[tuple[int, str, str]]:
    """``(edge index or -1, what, message)`` of every problem (module docstring), with
    ``what`` one of ``spine``, ``dangling``, ``parent-node``, ``child-node``,
    ``empty-head``, ``trace-node``, ``reference``, ``no-leaf``."""
    out = []
    for w, sp in enumerate(spines, start=1):
        if sp.problem:
            out.append((-1, "spine", f"word {w}: {sp.problem}"))
        elif sp.dangling:
            out.append((-1, "dangling", f"word {w}: null elements above the top of spine {graph.spines[w - 1]!r}"))
    reversal = graph.options.get("null_reversal", True)
    used: set = set()
    n = len(spines)
    for e, (c, p, k, lab, pn, cl, cn, tr) in enumerate(graph.edge_tuples()):
        if not (1 <= c <= n and 0 <= p <= n) or (k == TRACE and p == 0):
            out.append((e, "trace-node" if k == TRACE else "parent-node", f"{_edge_name(c, p, tr)}: outside the words"))
            continue
        if k == STRUCTURAL:
            if p == 0:
                if lab != ROOT_NODE or pn:
                    out.append((e, "parent-node", f"{_edge_name(c, p, tr)}: attaches to {lab} of ROOT, not {ROOT_NODE}"))
            elif graph.spines[p - 1] == "_":
                out.append((e, "empty-head", f"{_edge_name(c, p, tr)}: word {p} heads it but has an empty spine"))
            elif pn or not spines[p - 1].has(lab, False):
                out.append((e, "parent-node", f"{_edge_name(c, p, tr)}: attaches to {'null ' if pn else ''}{lab}, "
                                              f"not a node of word {p}'s spine {graph.spines[p - 1]!r}"))
            if cl != spines[c - 1].top or cn:
                out.append((e, "child-node", f"{_edge_name(c, p, tr)}: leaves from {cl}, not from the top "
                                             f"{spines[c - 1].top} of word {c}'s spine {graph.spines[c - 1]!r}"))
            continue
        missing = [f"{'null ' if null else ''}{name} of word {word}" for word, name, null in ((p, lab, pn), (c, cl, cn))
                   if not spines[word - 1].has(name, null)]
        if missing:
            out.append((e, "trace-node", f"{_edge_name(c, p, tr)}: no {' and no '.join(missing)} in the spine"))
            continue
        if tr == GAPPING:
            continue
        ref_word, ref_name, ref_null = (c, cl, cn) if reversal and pn and cn else (p, lab, pn)
        if not ref_null:
            out.append((e, "reference", f"{_edge_name(c, p, tr)}: its reference {ref_name} of word {ref_word} is "
                                        f"not a null element"))
            continue
        node = spines[ref_word - 1].nulls[ref_name]
        leaf = _free_leaf(node, tr, used)
        if leaf is None:
            why = "is taken by an earlier trace edge" if _free_leaf(node, tr, set()) is not None else \
                "is not one a trace edge can take (none of its type, none directly below)"
            out.append((e, "no-leaf", f"{_edge_name(c, p, tr)}: the null element under {ref_name} of word "
                                      f"{ref_word} {why}"))
            continue
        used.add(id(leaf))
    return out


def graph_problems(graph: Graph) -> list[str]:
    """Every way ``graph`` is not valid (module docstring), one message each naming the
    word or edge; empty for a valid graph.  Structural edges must form one tree under
    ROOT (:meth:`Graph.structural_problem`), which is checked first: a graph whose
    structural edges are not a tree gets that problem alone."""
    tree_problem = graph.structural_problem()
    if tree_problem is not None:
        return [tree_problem[1]]
    return [msg for _, _, msg in _problems(graph, [_Spine(s) for s in graph.spines])]


def _without_dangling(spine: str) -> str:
    """``spine`` without the null elements above its top node."""
    from ..spine import split_top

    parts = split_top(spine)
    while parts and parts[-1].startswith("("):
        parts.pop()
    return "_".join(parts) or "_"


def with_head_spines(graph: Graph) -> Graph:
    """``graph`` with a one-level spine for every word whose spine is empty (``_``) but
    that parents structural edges: the category of the node its first dependent attaches
    to (``NP_0`` -> ``NP``).  A child cannot hang from a bare pre-terminal, so such a graph
    gives no tree; graphs the chart builds never need this (its labels fit both spines),
    the fallbacks built with a classifier's spines do.  plgraph's repair, not the
    reference's."""
    need: dict[int, str] = {}
    for c, p, k, lab in zip(graph.child.tolist(), graph.parent.tolist(), graph.kind.tolist(), graph.label.tolist()):
        if k == STRUCTURAL and p > 0 and graph.spines[p - 1] == "_":
            need.setdefault(p, str(lab).rsplit("_", 1)[0] or "X")
    if not need:
        return graph
    spines = [need.get(w + 1, sp) for w, sp in enumerate(graph.spines)]
    out = []
    for e in graph.edge_tuples():
        c, p, k, lab, pn, cl, cn, tr = e
        if k == STRUCTURAL and p in need:
            lab, pn = f"{need[p]}_0", False
        if k == STRUCTURAL and c in need:
            cl, cn = f"{need[c]}_0", False
        out.append((c, p, k, lab, pn, cl, cn, tr))
    return _rebuilt(graph, spines, out)


def _rebuilt(graph: Graph, spines, edges) -> Graph:
    """A new graph of ``graph``'s sentence (no conversion warnings yet)."""
    return Graph.from_edges(graph.words, graph.tags, spines, edges, id=graph.id, options=graph.options,
                            nulls=list(graph.nulls), orphans=list(graph.orphans))


def repair_graph(graph: Graph) -> tuple[Graph, list[str]]:
    """``(valid graph, repairs)``: ``graph`` itself and ``[]`` when it is valid, else a
    repaired copy (module docstring) and one message per change.  Structural edges that
    are not one tree under ROOT, and a spine that cannot be read, cannot be repaired
    here: such a graph comes back as it is, with no repairs, and
    :func:`~plgraph.convert.graph_to_tree` refuses it."""
    if graph.structural_problem() is not None:
        return graph, []
    spines = [_Spine(s) for s in graph.spines]
    if any(sp.problem for sp in spines):
        return graph, []
    problems = _problems(graph, spines)
    if not problems:
        return graph, []
    repairs = []
    if any(what == "empty-head" for _, what, _ in problems):
        repairs += [f"{msg}: gave it a one-level spine" for _, what, msg in problems if what == "empty-head"]
        graph = with_head_spines(graph)
    if any(what == "dangling" for _, what, _ in problems):
        repairs += [f"{msg}: dropped them" for _, what, msg in problems if what == "dangling"]
        graph = _rebuilt(graph, [_without_dangling(s) for s in graph.spines], graph.edge_tuples())
    if repairs:
        spines = [_Spine(s) for s in graph.spines]
        problems = _problems(graph, spines)
    if any(what == "no-leaf" for _, what, _ in problems):   # self-loop traces give way
        edges = graph.edge_tuples()
        graph = _rebuilt(graph, graph.spines, sorted(edges, key=lambda e: e[2] == TRACE and e[0] == e[1]))
        problems = _problems(graph, spines)
    bad: dict[int, list] = {}
    for e, what, msg in problems:
        bad.setdefault(e, []).append((what, msg))
    edges = []
    for e, (c, p, k, lab, pn, cl, cn, tr) in enumerate(graph.edge_tuples()):
        found = bad.get(e, [])
        if k == TRACE and found:        # it held no null leaf, so no other edge's leaf changes
            repairs.append(f"{found[0][1]}: dropped the edge")
            continue
        for what, msg in found:
            if what == "parent-node":
                lab, pn = (ROOT_NODE if p == 0 else spines[p - 1].top), False
                repairs.append(f"{msg}: attached to {lab}")
            elif what == "child-node":
                cl, cn = spines[c - 1].top, False
                repairs.append(f"{msg}: left from {cl}")
        edges.append((c, p, k, lab, pn, cl, cn, tr))
    return _rebuilt(graph, graph.spines, edges), repairs


def coindex_problems(tree: Tree) -> list[str]:
    """Co-indices of ``tree`` without their partner, one message each: an index on a
    constituent (``NP-SBJ-1``) that no null element (``*-1``) and no gapping index
    (``=1``) refers to, and a null element or gapping index whose antecedent is not in
    the tree.  Empty for every tree :func:`~plgraph.convert.graph_to_tree` makes of a
    valid graph."""
    antecedents: dict[str, str] = {}
    references: Counter = Counter()
    pending: list[tuple[str, str]] = []
    for node in tree.subtrees():
        if node.is_null_leaf():
            num = coindex_of(node.word)
            if num is not None:
                references[num] += 1
                pending.append((num, f"null element {node.word}"))
            continue
        num = coindex_of(node.label)
        if num is not None:
            antecedents.setdefault(num, node.label)
        gap = gap_index_of(node.label)
        if gap is not None:
            references[gap] += 1
            pending.append((gap, f"gapping index on {node.label}"))
    out = [f"{label}: no null element or gapping index refers to index {num}"
           for num, label in antecedents.items() if not references[num]]
    out += [f"{what}: no constituent carries index {num}" for num, what in pending if num not in antecedents]
    return out


def output_problems(graph: Graph, tree: Tree) -> list[str]:
    """What is wrong with a parser's output, a graph and the tree made of it: the
    graph's problems (:func:`graph_problems`) and the tree's unmatched co-indices
    (:func:`coindex_problems`).  Empty for every output of plgraph's parsers."""
    return graph_problems(graph) + coindex_problems(tree)


__all__ = ["graph_problems", "repair_graph", "coindex_problems", "output_problems", "with_head_spines", "ROOT_NODE"]
