"""Two reference points for a parser's scores: an oracle above it and a baseline below.

* :func:`oracle_graph` -- the best graph the parser can output for a sentence: the gold
  graph as the chart holds it (:func:`plgraph.parser.pass2.gold_graph`: representable
  edges only, no trace into ROOT, one edge of a kind per ordered pair, labels the model's
  vocabulary knows) with the gold spines (self-loop traces included), mapped back by
  :func:`~plgraph.parser.decode.decoded_graph`.  A word whose structural edge is lost
  that way (its label unseen in training) keeps its gold edge, so the oracle is a tree; it
  is optimistic by those few edges and by gold spines the spine classifier never
  proposes.  Its scores against gold are the **model's ceiling** (the representation and
  the label set), beside the conversion's own ceiling
  (:func:`plgraph.eval.ceiling.representation_ceiling`, which keeps every gold edge).
* :func:`baseline_graph` -- what the coarse passes alone give: pass 1's best projective
  tree (its labels are attachment nodes) with each word's most probable spine (self
  loops dropped; a word heading others whose spine is empty gets a one-level one,
  :func:`~plgraph.parser.decode.with_head_spines`), no traces.  The value of passes 2 and 3 is the gap above it.
"""
from __future__ import annotations

import numpy as np

from ..graph import STRUCTURAL, Graph
from ..shp import top_node_name
from .decode import decoded_graph, with_head_spines
from .labels import LabelVocab


def oracle_graph(graph: Graph, vocab: LabelVocab) -> Graph:
    """The oracle parse of ``graph`` under ``vocab`` (module docstring)."""
    from ..encoding import spine_identity
    from .pass2 import gold_graph

    G, _unseen = gold_graph(graph, vocab)
    edges = {}
    for X, kind in ((G.s, "S"), (G.t, "T")):
        for c, p in zip(*np.nonzero(X >= 0)):
            edges[(int(c), int(p), kind)] = int(X[c, p])
    n = len(graph)
    g = decoded_graph(graph.words, graph.tags, edges, [spine_identity(graph, w) for w in range(n)], vocab,
                      sid=graph.id, options=graph.options)
    have = set(g.child[g.kind == STRUCTURAL].tolist())
    lost = [e for e in graph.edge_tuples() if e[2] == STRUCTURAL and e[0] not in have]
    if lost:
        g = Graph.from_edges(g.words, g.tags, g.spines, lost + g.edge_tuples(), id=g.id, options=g.options)
    return g


def baseline_graph(pruners, words, tags, *, sid: str | None = None, options: dict | None = None) -> Graph:
    """Pass 1's tree with the spine classifier's first spines (module docstring)."""
    from ..encoding import encode_graph

    g = Graph.from_edges(words, tags, ["_"] * len(words), [], id=sid)
    sd = encode_graph(g)
    enc = pruners.arc.encode([sd], pruners.normaliser)
    heads, labels = pruners.arc.model.parse_encoded(enc)
    hs, ls = pruners.arc.model.decode_labels(enc, heads, labels)[0]
    pruned = pruners.prune(g)
    items = pruners.spine.labels.items
    spines = [str(items[int(s[0])]).split("|", 1)[0] if len(s) else "_" for s in pruned.spines]
    edges = [(w + 1, int(h), STRUCTURAL, str(lab), False, top_node_name(spines[w]), False, "_")
             for w, (h, lab) in enumerate(zip(hs, ls))]
    return with_head_spines(Graph.from_edges(words, tags, spines, edges, id=sid, options=dict(options or {})))


__all__ = ["oracle_graph", "baseline_graph"]
