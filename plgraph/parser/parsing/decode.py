"""A decode as a :class:`~plgraph.graph.Graph`, and the reference's fallback parse.

The thesis is silent on decoding; here the chart's back-pointers give
labelled edges ``{(child, parent, "S"|"T"): label id}`` in chart positions (words
``0..n-1``, ROOT ``n``) and one spine identity per word (:func:`plgraph.encoding.spine_identity`:
the spine string, then ``|``-separated self-loop traces).  :func:`decoded_graph` maps them
back to the graph's conventions (words ``1..n``, ROOT ``0``):

* an edge's ``label`` / ``parent_null`` are the :class:`~plgraph.parser.scoring.labels.Label`'s
  parent node and its null flag, ``child_label`` / ``child_null`` its child node, ``trace``
  its trace type (``_`` for structural edges);
* every self-loop of a spine identity (``parentnode:T|F:childnode:T|F:type``) becomes a
  trace edge from the word to itself, as :attr:`Graph.spine_traces` reads them.

:func:`fallback_graph` is the reference's ``evaluation/fix-no-tag.py`` replacement of a
sentence the parser could not parse: a flat, head-final NP (every word attaches to the
last word's ``NP_0``; the last word has spine ``NP`` and attaches to ``ROOT_0``).
"""
from __future__ import annotations

from ...graph import STRUCTURAL, TRACE, Graph
from ..scoring.labels import LabelVocab

#: what :func:`fallback_graph` builds (the reference's ``fix-no-tag.py``)
FALLBACK_SPINE = "NP"


def _loop_edge(word: int, text: str) -> tuple:
    """The self-loop trace edge of word ``word`` (1-based) written ``text`` in a spine identity."""
    parts = text.split(":")
    if len(parts) < 5 or parts[1] not in "TF" or parts[3] not in "TF":
        raise ValueError(f"word {word}: cannot read the self-loop trace {text!r} of its spine identity")
    parent, pn, child, cn = parts[:4]
    return (word, word, TRACE, parent, pn == "T", child, cn == "T", ":".join(parts[4:]))


def decoded_graph(words, tags, edges: dict, spine_identities, vocab: LabelVocab, *, sid: str | None = None,
                  options: dict | None = None) -> Graph:
    """The :class:`Graph` of a decode (module docstring).  ``edges``: ``{(c, p, "S"|"T"):
    label id}`` in chart positions (ROOT = ``len(words)``); ``spine_identities``: one
    identity string per word; ``options``: the conversion options the model was trained
    on (``Graph.options``, read by :func:`~plgraph.convert.graph_to_tree`)."""
    n = len(words)
    if len(tags) != n or len(spine_identities) != n:
        raise ValueError(f"sentence {sid}: {n} words, {len(tags)} tags, {len(spine_identities)} spines")
    spines, out = [], []
    for w, ident in enumerate(spine_identities):
        spine, *loops = str(ident).split("|")
        spines.append(spine)
        out.extend(_loop_edge(w + 1, text) for text in loops)
    for (c, p, kind), lab_id in sorted(edges.items(), key=lambda e: (e[0][2], e[0][0], e[0][1])):
        lab = vocab.labels[int(lab_id)]
        child, parent = int(c) + 1, (0 if int(p) == n else int(p) + 1)
        k = STRUCTURAL if kind == "S" else TRACE
        out.append((child, parent, k, lab.parent, lab.parent_null, lab.child, lab.child_null,
                    "_" if k == STRUCTURAL else lab.trace))
    # structural edges first, in word order, as tree_to_graph writes them
    out.sort(key=lambda e: (e[2], e[0] if e[2] == STRUCTURAL else 0))
    return Graph.from_edges(words, tags, spines, out, id=sid, options=dict(options or {}))


def fallback_graph(words, tags, *, sid: str | None = None, options: dict | None = None) -> Graph:
    """The reference's replacement of an unparsed sentence (module docstring)."""
    n = len(words)
    if n == 0:
        raise ValueError(f"sentence {sid}: no words")
    spines = ["_"] * (n - 1) + [FALLBACK_SPINE]
    edges = [(w, n, STRUCTURAL, "NP_0", False, "_", False, "_") for w in range(1, n)]
    edges.append((n, 0, STRUCTURAL, "ROOT_0", False, "NP_0", False, "_"))
    return Graph.from_edges(words, tags, spines, edges, id=sid, options=dict(options or {}))


__all__ = ["decoded_graph", "fallback_graph", "FALLBACK_SPINE"]
