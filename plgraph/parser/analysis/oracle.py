"""The oracle parse: the best graph the parser can output for a sentence.

:func:`oracle_graph` is the gold graph as the chart holds it
(:func:`plgraph.parser.scoring.pass2.gold_graph`: representable edges only, no trace into
ROOT, one edge of a kind per ordered pair, labels the model's vocabulary knows) with the
gold spines (self-loop traces included), mapped back by
:func:`~plgraph.parser.parsing.decode.decoded_graph`.  A word whose structural edge is lost
that way (its label unseen in training) keeps its gold edge, so the oracle is a tree; it
is optimistic by those few edges and by gold spines the spine classifier never proposes.
Its scores against gold are the **model's ceiling** (the representation and the label
set), beside the conversion's own ceiling
(:func:`plgraph.eval.ceiling.representation_ceiling`, which keeps every gold edge).
"""
from __future__ import annotations

import numpy as np

from ...graph import STRUCTURAL, Graph
from ..parsing.decode import decoded_graph
from ..scoring.labels import LabelVocab


def oracle_graph(graph: Graph, vocab: LabelVocab) -> Graph:
    """The oracle parse of ``graph`` under ``vocab`` (module docstring)."""
    from ...encoding import spine_identity
    from ..scoring.pass2 import gold_graph

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


__all__ = ["oracle_graph"]
