"""Lexicalised graph -> Penn Treebank tree with null elements and co-indices.

Follows the reference (``pstree.tree_from_shp``):

1. every word's spine becomes a vertical chain of constituents over its
   pre-terminal; null subtrees are built from their spine notation;
2. structural edges are attached in order of increasing length (ties in word
   order): the child's top constituent goes under the named node of the
   parent's spine, raised to a higher node when a word in between already
   attached there (keeps brackets nested for parser output); left dependents
   are prepended, right dependents appended;
3. null subtrees go back into their host constituent — at the recorded position
   when the graph carries :class:`~plgraph.graph.NullRecord` entries (graphs made
   by :func:`tree_to_graph`, SHP files written by plgraph), otherwise by the
   reference's heuristic;
4. co-indices are added for every trace edge and every recorded orphan index.

With the recorded positions a round trip reproduces the input tree exactly up to
the numbering of indices (:func:`canonical_indices`); the reference converter
loses where nulls sit and gets about 96% of trees back.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ConversionError
from ..graph import Graph, TRACE
from ..ptb.clean import coindex_of
from ..spine import NullNode, parse_spine
from ..tree import Tree, NONE_LABEL

_INDEX_SUFFIX = re.compile(r"((?:[-=]\d+)+)$")
_ONE_SUFFIX = re.compile(r"([-=])(\d+)")


def _null_tree(node: NullNode, nullmap: dict) -> Tree:
    """The PTB subtree of a null spine element (iterative: any depth)."""

    def make(nn: NullNode) -> Tree:
        if nn.word is not None:
            return Tree(NONE_LABEL, word=nn.word)
        t = Tree(nn.label)
        nullmap[nn.name] = t
        return t

    root = make(node)
    stack = [(node, root)]
    while stack:
        nn, t = stack.pop()
        for child in nn.children:
            ct = make(child)
            t.append(ct)
            if child.word is None:
                stack.append((child, ct))
    return root


def _heuristic_position(host: Tree, null: Tree) -> int:
    """The reference converter's guess of where a null subtree goes in its host."""
    kids = host.children
    pos = len(kids)
    if null.label.startswith("ADVP"):
        pass
    elif host.label.startswith("SBAR") or null.label.startswith("NP-SBJ"):
        pos = 0
    else:
        npos = 0
        for sub in kids:
            npos += 1
            if sub.label.startswith("VB"):
                pos = npos
            if sub.label.startswith("LST"):
                pos = npos + 1
                break
            if sub.label.startswith("VP"):
                pos = max(0, npos - 1)
                break
    if len(kids) > pos:
        lab = kids[pos].label
        if lab.startswith("-L") or lab in (",", "LST", "``"):
            pos += 1
    return min(pos, len(kids))


def _parse_ptb_fragment(text: str, word: int, sid) -> Tree:
    """The recorded PTB text of a dropped null subtree (one tree of null elements)."""
    from ..errors import PTBFormatError
    from ..ptb.reader import read_ptb_string

    try:
        items = read_ptb_string(text, "<null record>", clean=False)
    except PTBFormatError as err:
        raise ConversionError(f"word {word}: recorded null element {text!r} cannot be read: {err.reason}",
                              sentence=sid) from None
    tree = items[0].tree
    if len(items) != 1 or tree.words():
        raise ConversionError(f"word {word}: recorded null element {text!r} is not one tree of null elements",
                              sentence=sid)
    return tree


def graph_to_tree(graph: Graph, *, use_null_positions: bool = True) -> Tree:
    """Rebuild the PTB tree of ``graph`` (``ROOT`` on top, spans computed).

    Problems in parser output (a missing spine node, an unknown null node) do
    not stop the conversion: the closest sensible choice is made and a message
    is appended to ``graph.warnings``.

    Raises :class:`ConversionError` (naming ``graph.id``) when the graph cannot
    give a tree: structural edges that are not one tree under ROOT (a head
    cycle, a word that is its own head, a second root word, a word with no or
    two heads), edges outside 1..n, a spine that cannot be parsed, or a rebuilt
    tree whose words are not exactly ``graph.words`` in order.  The output never
    silently loses or reorders a word.
    """
    _check_graph(graph)
    chains = _spine_chains(graph)
    root = _attach_structure(graph, chains)
    fragments = _place_nulls(graph, chains, use_null_positions)
    _coindex(graph, chains, fragments)
    root.compute_spans()
    rebuilt = root.words()
    if rebuilt != list(graph.words):
        raise ConversionError(_word_mismatch(graph.words, rebuilt), sentence=graph.id)
    return root


@dataclass
class _Chains:
    """Every word's spine as a chain of constituents over its pre-terminal: the chain's
    ``tops``, its non-null nodes by name (``nonnull``), its null nodes by name
    (``nullmap``) and, in spine order, the null subtrees each non-null node hosts
    (``hosted``: ``(host, host name, null tree)``)."""

    tops: list
    nonnull: list
    nullmap: list
    hosted: list


def _spine_chains(graph: Graph) -> _Chains:
    """Step 1 (module docstring): the constituent chain of every word's spine."""
    n = len(graph.words)
    tops: list[Tree] = []
    nonnull: list[dict] = []
    nullmap: list[dict] = []
    hosted: list[list[tuple[Tree, str, Tree]]] = []  # per word: (host, host name, null tree) in spine order
    for i in range(n):
        leaf = Tree(graph.tags[i], word=graph.words[i])
        try:
            levels, dangling = parse_spine(graph.spines[i])
        except ValueError as exc:
            raise ConversionError(f"word {i + 1}: {exc}", sentence=graph.id) from None
        except RecursionError:
            raise ConversionError(f"word {i + 1}: spine nests null elements too deeply to read",
                                  sentence=graph.id) from None
        names: dict[str, Tree] = {}
        nulls: dict[str, Tree] = {}
        groups = []
        prev = leaf
        for level in levels:
            node = Tree(level.label, [prev])
            names[level.name] = node
            for group in level.nulls:
                groups.append((node, level.name, _null_tree(group, nulls)))
            prev = node
        if dangling:
            graph.warnings.append(f"word {i + 1}: null elements above the top of spine {graph.spines[i]!r} dropped")
        tops.append(prev)
        nonnull.append(names)
        nullmap.append(nulls)
        hosted.append(groups)
    return _Chains(tops, nonnull, nullmap, hosted)


def _attach_structure(graph: Graph, chains: _Chains) -> Tree:
    """Step 2: the structural edges attached, shortest first; the ``ROOT`` over the
    root words' chains."""
    tops, nonnull = chains.tops, chains.nonnull
    heads = [(int(c), int(p), str(lab)) for c, p, k, lab in
             zip(graph.child.tolist(), graph.parent.tolist(), graph.kind.tolist(), graph.label.tolist()) if k != TRACE]
    root_children = []
    decisions: dict[int, Tree] = {}
    for c, p, lab in sorted(heads, key=lambda e: (abs(e[0] - e[1]), e[0])):
        top = tops[c - 1]
        if p == 0:
            root_children.append((c, top))
            continue
        target = nonnull[p - 1].get(lab)
        if target is None:
            graph.warnings.append(f"word {c}: parent node {lab} is not in the spine of word {p}; using its top")
            target = tops[p - 1]
        target = _raised_target(target, [decisions.get(o) for o in range(min(c, p) + 1, max(c, p))],
                                graph.id)
        top.parent = target
        if c < p:
            target.children.insert(0, top)
        else:
            target.children.append(top)
        decisions[c] = target
    if not root_children:
        raise ConversionError("no word is attached to ROOT", sentence=graph.id)
    root_children.sort(key=lambda x: x[0])
    root = Tree("ROOT", [t for _, t in root_children])
    return root


def _place_nulls(graph: Graph, chains: _Chains, use_null_positions: bool) -> list:
    """Step 3: every null subtree put into its host, at its recorded position or by the
    reference's heuristic; the recorded null fragments the converter had dropped
    (dangling indices), for :func:`_coindex`."""
    nonnull, hosted = chains.nonnull, chains.hosted
    n = len(graph.words)
    records: dict[int, list] = {}
    if use_null_positions:
        for rec in graph.nulls:
            records.setdefault(rec.word, []).append(rec)
    inserted: set = set()
    fragments: list[Tree] = []  # recorded nulls the converter had dropped (dangling indices)
    for i in range(n):
        groups = hosted[i]
        recs = records.get(i + 1)
        plan = None
        if recs is not None:
            plan = []
            gi = 0
            for rec in recs:
                if rec.text is not None:
                    host = nonnull[i].get(rec.host)
                    if host is None:
                        plan = None
                        break
                    fragment = _parse_ptb_fragment(rec.text, i + 1, graph.id)
                    fragments.append(fragment)
                    plan.append((host, fragment, rec.k))
                    continue
                if gi >= len(groups) or groups[gi][1] != rec.host:
                    plan = None
                    break
                plan.append((groups[gi][0], groups[gi][2], rec.k))
                gi += 1
            if plan is not None and gi != len(groups):
                plan = None
            if plan is None:
                graph.warnings.append(f"word {i + 1}: recorded null positions do not fit the spine; guessing")
        if plan is None:
            for host, _, null in groups:
                host.children.insert(_heuristic_position(host, null), null)
                null.parent = host
            continue
        for host, null, k in plan:
            pos = 0
            seen = 0
            kids = host.children
            while pos < len(kids) and seen < k:
                if id(kids[pos]) not in inserted:
                    seen += 1
                pos += 1
            while pos < len(kids) and id(kids[pos]) in inserted:
                pos += 1
            kids.insert(pos, null)
            null.parent = host
            inserted.add(id(null))
    return fragments


def _coindex(graph: Graph, chains: _Chains, fragments: list) -> None:
    """Step 4: co-indices for every trace edge and every recorded orphan index; the
    dangling indices of dropped null ``fragments`` renumbered past them."""
    nonnull, nullmap = chains.nonnull, chains.nullmap
    reversal = graph.options.get("null_reversal", True)
    next_index = 1

    def node_at(word: int, name: str, is_null: bool):
        table = nullmap[word - 1] if is_null else nonnull[word - 1]
        node = table.get(name)
        if node is None:
            graph.warnings.append(f"word {word}: no {'null ' if is_null else ''}node {name} in its spine")
        return node

    def identity(node: Tree) -> str:
        nonlocal next_index
        num = coindex_of(node.label)
        if num is None:
            num = str(next_index)
            next_index += 1
            node.label += f"-{num}"
        return num

    for c, p, k, lab, pn, cl, cn, tr in graph.edge_tuples():
        if k != TRACE:
            continue
        child_node = node_at(c, cl, cn)
        parent_node = node_at(p, lab, pn)
        if child_node is None or parent_node is None:
            continue
        if tr == "=":
            num = identity(parent_node)
            child_node.label += f"={num}"
            continue
        if reversal and pn and cn:
            antecedent, reference = parent_node, child_node
        else:
            antecedent, reference = child_node, parent_node
        num = identity(antecedent)
        leaf = _reference_leaf(reference, tr)
        if leaf is None:
            graph.warnings.append(f"no null element {tr} under {reference.label} for a {tr} edge {c}->{p}")
            continue
        leaf.word += f"-{num}"
    for orph in graph.orphans:
        node = node_at(orph.word, orph.node, orph.null)
        if node is None:
            continue
        if orph.kind == "=":
            node.label += f"={next_index}"
            next_index += 1
        elif coindex_of(node.label) is None:
            node.label += f"-{next_index}"
            next_index += 1
    # dangling indices of dropped nulls: give them numbers no edge uses
    for fragment in fragments:
        renamed: dict[str, str] = {}
        for sub in fragment.subtrees():
            attr = "word" if sub.word is not None else "label"
            text = getattr(sub, attr)
            m = _INDEX_SUFFIX.search(text)
            if not m:
                continue
            parts = []
            for sep, num in _ONE_SUFFIX.findall(m.group(1)):
                if num not in renamed:
                    renamed[num] = str(next_index)
                    next_index += 1
                parts.append(sep + renamed[num])
            setattr(sub, attr, text[: m.start()] + "".join(parts))


def _check_graph(graph: Graph) -> None:
    """Raise :class:`ConversionError` unless ``graph`` can be rebuilt as a tree."""
    n = len(graph.words)
    if n == 0:
        raise ConversionError("graph has no words", sentence=graph.id)
    if len(graph.tags) != n or len(graph.spines) != n:
        raise ConversionError(f"{n} words but {len(graph.tags)} tags and {len(graph.spines)} spines",
                              sentence=graph.id)
    problem = graph.structural_problem()
    if problem is not None:
        raise ConversionError(problem[1], sentence=graph.id)
    m = graph.kind == TRACE
    for c, p in zip(graph.child[m].tolist(), graph.parent[m].tolist()):
        if not (1 <= c <= n and 1 <= p <= n):
            raise ConversionError(f"trace edge {c}->{p} outside words 1..{n}", sentence=graph.id)
    for rec in list(graph.nulls) + list(graph.orphans):
        if not 1 <= rec.word <= n:
            raise ConversionError(f"recorded null position or index names word {rec.word}, outside 1..{n}",
                                  sentence=graph.id)


def _raised_target(target: Tree, between: list, sid) -> Tree:
    """Where a structural child goes: ``target`` (a node of its parent's spine),
    raised to the highest node that a word in between (``between``: the nodes
    those words attached to, in word order, ``None`` if not yet attached)
    attached to, when that node is ``target`` or above it -- keeps brackets nested.

    Equivalent to walking up from the current target for each word in between,
    in O(depth + words in between); a parent chain that loops raises
    :class:`ConversionError` instead of walking forever."""
    if all(node is None for node in between):
        return target
    level: dict[int, int] = {}
    up, depth = target, 0
    while up is not None:
        if id(up) in level:
            raise ConversionError("constituents form a cycle (structural edges are not a tree)", sentence=sid)
        level[id(up)] = depth
        up, depth = up.parent, depth + 1
    current = 0
    for node in between:
        if node is None:
            continue
        d = level.get(id(node))
        if d is not None and d >= current:
            current, target = d, node
    return target


def _word_mismatch(expected: list, got: list) -> str:
    """Message for a rebuilt tree whose overt words differ from the graph's."""
    first = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b), min(len(expected), len(got)))
    if len(got) == len(expected):
        return (f"rebuilt tree has the words in another order: position {first + 1} holds {got[first]!r} "
                f"instead of {expected[first]!r} (crossing structural edges give no tree over the sentence in order)")
    return (f"rebuilt tree has {len(got)} words instead of {len(expected)}, differing from word {first + 1} on")


def _reference_leaf(node: Tree, trace: str) -> Tree | None:
    """The un-indexed ``-NONE-`` leaf of type ``trace`` directly under ``node``
    (or, failing that, anywhere below it)."""
    for child in node.children:
        if child.word is not None and child.label == NONE_LABEL and child.word == trace:
            return child
    for sub in node.subtrees():
        if sub.word is not None and sub.label == NONE_LABEL and sub.word == trace:
            return sub
    for child in node.children:
        if child.word is not None and child.label == NONE_LABEL and coindex_of(child.word) is None:
            return child
    return None


def canonical_indices(tree: Tree) -> str:
    """Bracket string with co-indices renumbered 1, 2, ... in order of first
    appearance (pre-order over labels and null words), so that two trees that
    differ only in index numbering compare equal."""
    mapping: dict[str, str] = {}

    def renumber(text: str) -> str:
        m = _INDEX_SUFFIX.search(text)
        if not m:
            return text
        parts = []
        for sep, num in _ONE_SUFFIX.findall(m.group(1)):
            if num not in mapping:
                mapping[num] = str(len(mapping) + 1)
            parts.append(sep + mapping[num])
        return text[: m.start()] + "".join(parts)

    out: list[str] = []
    stack: list = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
            continue
        if node.word is not None:
            word = renumber(node.word) if node.label == NONE_LABEL else node.word
            out.append(f"({node.label} {word})")
            continue
        out.append("(" + renumber(node.label))
        stack.append(")")
        for child in reversed(node.children):
            stack.append(child)
            stack.append(" ")
    return "".join(out)
