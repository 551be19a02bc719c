"""Penn Treebank tree -> lexicalised graph (spines, structural and trace edges).

Follows the reference converter (``reprint_trees.py -i p -o hr -e hj0 -h j1``)
so that the SHP written for a tree matches
the reference output field for field.  On top of the reference it records, for
exact round trips, where each null subtree sat inside its host constituent and
which co-indices produced no edge (:class:`~plgraph.graph.NullRecord`,
:class:`~plgraph.graph.OrphanIndex`).

Bad input (a reference index with no antecedent, a gapping index with no
correlate, an index used twice) is converted as the reference does — the
dangling null element is dropped, the extra index ignored — and reported in
``Graph.warnings``; with ``strict=True`` it raises :class:`ConversionError`.
"""
from __future__ import annotations

from dataclasses import dataclass, asdict

from ..errors import ConversionError
from ..graph import Graph, NullRecord, OrphanIndex, STRUCTURAL, TRACE
from ..heads import find_heads, normalise_rules
from ..ptb.clean import coindex_of, strip_coindex
from ..ptb.edits import collect_coindexation, gapping_shift as apply_gapping_shift
from ..tree import Tree, NONE_LABEL


@dataclass(frozen=True)
class ConversionOptions:
    """Representation choices (thesis §"Representation"; defaults = reference's
    documented configuration: modified head rules with first-conjunction
    coordination heads, flat coordination, null reversal on, gapping shift off)."""

    heads: str = "jkk1"
    null_reversal: bool = True
    gapping_shift: bool = False

    def normalised(self) -> "ConversionOptions":
        return ConversionOptions(normalise_rules(self.heads), bool(self.null_reversal), bool(self.gapping_shift))

    def as_dict(self) -> dict:
        return asdict(self)


DEFAULT_OPTIONS = ConversionOptions()


def _compress_null(node: Tree, counts: dict, names: dict, owner: dict, w: int, identities: dict,
                   lost: list) -> str | None:
    """Serialise a null subtree for a spine; ``None`` if nothing survives.

    Nodes are named in pre-order (``LABEL_count`` per label), dangling null
    leaves go to ``lost`` in word order.  Iterative, so any depth works."""
    results: dict[int, str | None] = {}
    stack = [(node, False)]
    while stack:
        cur, done = stack.pop()
        if cur.word is not None:
            num = coindex_of(cur.word)
            if num is None:
                results[id(cur)] = f"({cur.word})"
            elif num not in identities:
                lost.append(cur)
                results[id(cur)] = None
            else:
                results[id(cur)] = f"({strip_coindex(cur.word)})"
            continue
        label = strip_coindex(cur.label)
        if not done:
            c = counts.get(label, 0)
            counts[label] = c + 1
            names[cur] = f"{label}_{c}"
            owner[cur] = w
            stack.append((cur, True))
            stack.extend((child, False) for child in reversed(cur.children))
            continue
        parts = [results.pop(id(child)) for child in cur.children]
        parts = [part for part in parts if part is not None]
        results[id(cur)] = "(" + label + "_" + "_".join(parts) + ")" if parts else None
    return results[id(node)]


def _flag(b: bool) -> str:
    return "T" if b else "F"


def tree_to_graph(tree: Tree, options: ConversionOptions | None = None, *, sid: str | None = None,
                  strict: bool = False, heads: str | None = None, null_reversal: bool | None = None,
                  gapping_shift: bool | None = None) -> Graph:
    """Convert a cleaned PTB tree (``ROOT`` on top, spans computed) to a :class:`Graph`.

    Parameters
    ----------
    tree : Tree
        Output of :func:`plgraph.ptb.read_ptb` (cleaned and homogenised).  It is
        not modified unless ``gapping_shift`` is on, in which case a copy is edited.
    options : ConversionOptions, optional
        Representation choices; keyword arguments ``heads``, ``null_reversal``,
        ``gapping_shift`` override single fields.
    sid : str, optional
        Sentence id stored in the graph and used in error messages.
    strict : bool
        Raise :class:`ConversionError` on dangling or duplicated co-indices
        instead of converting as the reference converter does.
    """
    opts = options or DEFAULT_OPTIONS
    if heads is not None or null_reversal is not None or gapping_shift is not None:
        opts = ConversionOptions(
            opts.heads if heads is None else heads,
            opts.null_reversal if null_reversal is None else null_reversal,
            opts.gapping_shift if gapping_shift is None else gapping_shift,
        )
    opts = opts.normalised()
    if tree.label != "ROOT":
        raise ConversionError("tree must have a ROOT top node (read it with plgraph.ptb.read_ptb)", sentence=sid)
    if opts.gapping_shift:
        tree = tree.copy()
        apply_gapping_shift(tree)
    find_heads(tree, opts.heads)
    identities, gaps, refs, duplicates = collect_coindexation(tree)
    warnings: list[str] = []
    for num, node in duplicates:
        warnings.append(f"index {num} is used by two antecedents; ({node.label} ...) is ignored")

    sp = _spines(tree, identities)
    if not sp.words:
        raise ConversionError("sentence has no overt words", sentence=sid)
    for leaf in sp.lost:
        msg = f"null element {leaf.word} refers to index {coindex_of(leaf.word)} which no constituent carries; dropped"
        if strict:
            raise ConversionError(msg, sentence=sid)
        warnings.append(msg)
    if strict and duplicates:
        raise ConversionError(warnings[0], sentence=sid)

    edges = _structural_edges(sp, sid)
    trace_edges, orphans = _trace_edges(sp, identities, gaps, refs, opts, strict, sid, warnings)
    edges.extend(trace_edges)
    graph = Graph.from_edges(sp.words, sp.tags, sp.spines, edges, id=sid, options=opts.as_dict(), nulls=sp.null_records,
                             orphans=orphans, warnings=warnings, source_tree=tree)
    return graph


@dataclass
class _Spines:
    """The overt words of a tree with their ``tags`` and ``spines``; every spine node's
    symbol name (``names``: node -> ``LABEL_count`` within its word's spine) and word
    (``owner``: node -> 0-based word index); each word's maximal projection (``tops``);
    where the null elements sat (``null_records``) and the null leaves dropped for an
    index no constituent carries (``lost``)."""

    words: list
    tags: list
    spines: list
    names: dict
    owner: dict
    tops: list
    null_records: list
    lost: list


def _spines(tree: Tree, identities: dict) -> _Spines:
    """Words, spines and symbol names of a headed tree (:class:`_Spines`)."""
    words: list[str] = []
    tags: list[str] = []
    spines: list[str] = []
    names: dict = {}     # node -> LABEL_count within its word's spine
    owner: dict = {}     # node -> 0-based word index whose spine holds it
    tops: list[Tree] = []
    null_records: list[NullRecord] = []
    lost: list[Tree] = []
    word_index = 0
    for pre in tree.subtrees():
        if pre.word is None or pre.label == NONE_LABEL:
            continue
        w = word_index
        word_index += 1
        words.append(pre.word)
        tags.append(pre.label)
        chain: list[str] = []
        counts: dict[str, int] = {}
        null_counts: dict[str, int] = {}
        top = pre
        cur = pre.parent
        while cur is not None and cur.head == w:
            if cur.parent is not None:
                label = strip_coindex(cur.label)
                c = counts.get(label, 0)
                counts[label] = c + 1
                name = f"{label}_{c}"
                names[cur] = name
                owner[cur] = w
                piece = ""
                k = 0
                for child in cur.children:
                    if child.start != child.end:
                        k += 1
                        continue
                    n_lost = len(lost)
                    text = _compress_null(child, null_counts, names, owner, w, identities, lost)
                    if text is not None:
                        piece += text + "_"
                        null_records.append(NullRecord(w + 1, name, k))
                    elif len(lost) > n_lost:
                        null_records.append(NullRecord(w + 1, name, k, _null_ptb(child)))
                chain.append(piece + label)
                top = cur
            cur = cur.parent
        spines.append("_".join(chain) if chain else "_")
        tops.append(top)
    return _Spines(words, tags, spines, names, owner, tops, null_records, lost)


def _structural_edges(sp: _Spines, sid) -> list:
    """Each word's maximal projection attached to its parent (edge tuples of
    :meth:`Graph.from_edges`)."""
    names = sp.names
    edges = []
    for w, top in enumerate(sp.tops):
        up = top.parent
        child_label = names.get(top, "_") if top.word is None else "_"
        if up.parent is None:  # ROOT
            if up.head != w:
                raise ConversionError("ROOT has more than one constituent", sentence=sid)
            edges.append((w + 1, 0, STRUCTURAL, "ROOT_0", False, child_label, False, "_"))
        else:
            edges.append((w + 1, up.head + 1, STRUCTURAL, names[up], False, child_label, False, "_"))
    return edges


def _trace_edges(sp: _Spines, identities: dict, gaps: dict, refs: dict, opts, strict: bool, sid,
                 warnings: list) -> tuple[list, list]:
    """``(trace edges sorted as the reference writes them, orphan indices)``: one edge
    for every co-indexed pair (reversed between two null elements when
    ``opts.null_reversal``, always for gapping); a warning (an error when ``strict``)
    for a gapping index without correlate."""
    names, owner = sp.names, sp.owner
    def locate(node: Tree):
        name = names.get(node)
        if name is None:
            raise ConversionError(f"co-indexed node ({node.label} ...) is not part of any spine", sentence=sid)
        return owner[node] + 1, name, node.start == node.end

    trace_groups = []
    orphans: list[OrphanIndex] = []
    for group, table in (("=", gaps), ("ref", refs)):
        for num, nodes in table.items():
            antecedent = identities.get(num)
            if antecedent is None:
                if group == "=":
                    msg = f"gapping index ={num} has no correlate (no -{num} constituent)"
                    if strict:
                        raise ConversionError(msg, sentence=sid)
                    warnings.append(msg)
                    for node in nodes:
                        if node in names:
                            wi, name, isnull = locate(node)
                            orphans.append(OrphanIndex(wi, name, isnull, "="))
                continue
            a_word, a_name, a_null = locate(antecedent)
            for node in nodes:
                if group == "=":
                    ttype = "="
                    pnode = node
                else:
                    ttype = strip_coindex(node.word)
                    pnode = node.parent
                r_word, r_name, r_null = locate(pnode)
                reverse = ttype == "=" or (opts.null_reversal and a_null and r_null)
                if reverse:
                    edge = (r_word, a_word, TRACE, a_name, a_null, r_name, r_null, ttype)
                else:
                    edge = (a_word, r_word, TRACE, r_name, r_null, a_name, a_null, ttype)
                group_text = f"{edge[1]} {edge[3]} {_flag(edge[4])} {edge[5]} {_flag(edge[6])} {ttype}"
                trace_groups.append((edge[0], group_text, edge))
    used = set(gaps) | set(refs)
    for num, node in identities.items():
        if num not in used and node in names:
            wi, name, isnull = locate(node)
            orphans.append(OrphanIndex(wi, name, isnull, "-"))
    trace_groups.sort(key=lambda x: (x[0], x[1]))
    return [e for _, _, e in trace_groups], orphans


def _null_ptb(node: Tree) -> str:
    return node.to_string()
