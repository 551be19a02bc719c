"""A parsed graph as CoNLL-U, and back: :func:`graph_to_conllu`, :func:`conllu_to_graph`.

One token a line, as the CoNLL-U format lays them out (``ID FORM LEMMA UPOS XPOS FEATS
HEAD DEPREL DEPS MISC``), written and read by the ``conllu`` package:

* ``FORM`` the word in the treebank's form (``-LRB-``), ``XPOS`` its PTB tag; ``LEMMA``,
  ``UPOS`` and ``FEATS`` are empty (``_``);
* ``HEAD``/``DEPREL``: the word's structural edge -- the graph's tree;
* ``DEPS``: every edge of the word as ``head:label``, the structural one and the trace
  edges (a trace edge that starts and ends in one word's spine has the word itself as
  its head);
* ``MISC``: ``Spine=`` the word's spine (``|``, ``=`` and ``%`` written ``%7C``,
  ``%3D``, ``%25``);
* comments: ``sent_id``, ``text`` (the raw sentence, where there was one), ``status``
  and ``ptb`` (the PTB tree with null elements and co-indices).

The labels are plgraph's graph labels, not Universal Dependencies relations: an edge's
label names the node of the head's spine it attaches to (``VP_1``: the second ``VP`` up
the head's spine), then, after ``/``, the node of the dependent's spine that attaches
(omitted when it is the top of the dependent's spine with no null element), each with
``!`` when the node is a null element's; a trace edge's label begins with ``trace:``
and ends with ``/`` and its type (``*T*``, ``*``, ``*ICH*``, ``=``) -- so
``trace:NP_0!/WHNP_0/*T*``.  Trace edges go from the antecedent (the dependent) to
the null element's word (the head), as the graph stores them (:mod:`plgraph.graph`).
"""
from __future__ import annotations

from ...errors import InputError
from ...graph import STRUCTURAL, TRACE, Graph

_MISC_ESCAPES = (("%", "%25"), ("|", "%7C"), ("=", "%3D"))
TRACE_PREFIX = "trace:"


def _node(name: str, null: bool) -> str:
    return name + ("!" if null else "")


def _unnode(text: str) -> tuple[str, bool]:
    return (text[:-1], True) if text.endswith("!") else (text, False)


def edge_label(kind: int, label: str, parent_null: bool, child_label: str, child_null: bool, trace: str) -> str:
    """An edge's CoNLL-U label (module docstring)."""
    head = _node(label, parent_null)
    if kind == TRACE:
        return f"{TRACE_PREFIX}{head}/{_node(child_label, child_null)}/{trace}"
    if child_label != "_" or child_null:
        return f"{head}/{_node(child_label, child_null)}"
    return head


def parse_edge_label(text: str) -> tuple:
    """``(kind, label, parent_null, child_label, child_null, trace)`` of a label of
    :func:`edge_label`; ValueError for anything else."""
    if text.startswith(TRACE_PREFIX):
        parts = text[len(TRACE_PREFIX):].split("/", 2)
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"not a trace edge label: {text!r}")
        (label, pn), (child, cn) = _unnode(parts[0]), _unnode(parts[1])
        return TRACE, label, pn, child, cn, parts[2]
    parts = text.split("/")
    if len(parts) > 2 or not all(parts):
        raise ValueError(f"not an edge label: {text!r}")
    label, pn = _unnode(parts[0])
    child, cn = _unnode(parts[1]) if len(parts) == 2 else ("_", False)
    return STRUCTURAL, label, pn, child, cn, "_"


def _escape(value: str) -> str:
    for a, b in _MISC_ESCAPES:
        value = value.replace(a, b)
    return value


def _unescape(value: str) -> str:
    for a, b in reversed(_MISC_ESCAPES):
        value = value.replace(b, a)
    return value


def graph_to_conllu(graph: Graph, *, sid: str | None = None, text: str | None = None, status: str | None = None,
                    ptb: str | None = None) -> str:
    """``graph`` as one CoNLL-U sentence (module docstring), ending in a blank line."""
    from conllu.models import Token, TokenList

    n = len(graph.words)
    deps = [[] for _ in range(n)]
    head = [None] * n
    rel = [None] * n
    for c, p, k, lab, pn, cl, cn, tr in graph.edge_tuples():
        label = edge_label(k, lab, pn, cl, cn, tr)
        deps[c - 1].append((label, int(p)))
        if k == STRUCTURAL:
            head[c - 1], rel[c - 1] = int(p), label
    tokens = [Token({"id": i + 1, "form": w, "lemma": None, "upos": None, "xpos": t, "feats": None,
                     "head": head[i], "deprel": rel[i], "deps": sorted(deps[i], key=lambda d: (d[1], d[0])) or None,
                     "misc": {"Spine": _escape(s)}})
              for i, (w, t, s) in enumerate(zip(graph.words, graph.tags, graph.spines))]
    meta = {}
    for key, value in (("sent_id", sid if sid is not None else graph.id), ("text", text), ("status", status),
                       ("ptb", ptb)):
        if value:
            meta[key] = " ".join(str(value).split())
    return TokenList(tokens, metadata=meta).serialize()


def conllu_to_graph(tokenlist, where: str = "CoNLL-U") -> Graph:
    """The :class:`~plgraph.graph.Graph` of one sentence of :func:`graph_to_conllu`, as the
    ``conllu`` package reads it (a ``TokenList``); InputError naming ``where`` and the
    token for a field that is not plgraph's."""
    words, tags, spines, edges = [], [], [], []
    for k, tok in enumerate(tokenlist, 1):
        if not isinstance(tok["id"], int) or tok["id"] != k:
            raise InputError(f"token {k}: ID {tok['id']!r} (plgraph writes 1, 2, ... and no empty nodes)",
                             source=where)
        words.append(tok["form"])
        tags.append(tok["xpos"] or "_")
        misc = tok["misc"] or {}
        if "Spine" not in misc:
            raise InputError(f"token {k}: no Spine= in MISC", source=where)
        spines.append(_unescape(misc["Spine"] or "_"))
        deps = tok["deps"]
        if not isinstance(deps, list):
            raise InputError(f"token {k}: DEPS {deps!r} is not a list of head:label", source=where)
        for label, head in deps:
            try:
                kind, lab, pn, cl, cn, tr = parse_edge_label(label)
            except ValueError as err:
                raise InputError(f"token {k}: {err}", source=where) from None
            edges.append((k, int(head), kind, lab, pn, cl, cn, tr))
    return Graph.from_edges(words, tags, spines, edges, id=tokenlist.metadata.get("sent_id"))


def read_conllu(text: str, where: str = "CoNLL-U") -> list:
    """Every sentence of a CoNLL-U text of :func:`graph_to_conllu` as a graph, None for
    the placeholder of an unreadable sentence (comment ``status = unreadable``,
    :mod:`plgraph.parser.parsing.output`), so that item N is sentence N; InputError naming
    ``where`` for text the ``conllu`` package cannot read or fields that are not plgraph's."""
    import conllu
    from conllu.exceptions import ParseException

    try:
        sentences = conllu.parse(text)
    except (ParseException, ValueError) as err:
        raise InputError(f"not CoNLL-U: {err}", source=where) from None
    return [None if t.metadata.get("status") == "unreadable" else conllu_to_graph(t, f"{where} sentence {k}")
            for k, t in enumerate(sentences, 1)]


__all__ = ["TRACE_PREFIX", "conllu_to_graph", "edge_label", "graph_to_conllu", "parse_edge_label", "read_conllu"]
