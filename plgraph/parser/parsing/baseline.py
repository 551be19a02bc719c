"""The pass-1 baseline: what the coarse passes alone give for a sentence.

:func:`baseline_graph` is pass 1's best projective tree (its labels are attachment
nodes) with each word's most probable spine (self loops dropped; a word heading others
whose spine is empty gets a one-level one,
:func:`~plgraph.convert.validity.with_head_spines`), no traces.  The parser falls back
to it when passes 2 and 3 give no tree; scored on its own it is the floor that passes 2
and 3 add to (:func:`plgraph.parser.analysis.evaluate.reference_points`).
"""
from __future__ import annotations

from ...graph import STRUCTURAL, Graph
from ...shp import top_node_name
from ...convert.validity import with_head_spines


def baseline_graph(pruners, words, tags, *, sid: str | None = None, options: dict | None = None,
                   pruned=None) -> Graph:
    """Pass 1's tree with the spine classifier's first spines (module docstring);
    ``pruned``: the sentence's :meth:`~plgraph.pruners.Pruners.prune` when the caller
    has it already (the parser's cascade has), else computed here."""
    from ...encoding import encode_graph

    g = Graph.from_edges(words, tags, ["_"] * len(words), [], id=sid)
    sd = encode_graph(g)
    enc = pruners.arc.encode([sd], pruners.normaliser)
    heads, labels = pruners.arc.model.parse_encoded(enc)
    hs, ls = pruners.arc.model.decode_labels(enc, heads, labels)[0]
    pruned = pruners.prune(g) if pruned is None else pruned
    items = pruners.spine.labels.items
    spines = [str(items[int(s[0])]).split("|", 1)[0] if len(s) else "_" for s in pruned.spines]
    edges = [(w + 1, int(h), STRUCTURAL, str(lab), False, top_node_name(spines[w]), False, "_")
             for w, (h, lab) in enumerate(zip(hs, ls))]
    return with_head_spines(Graph.from_edges(words, tags, spines, edges, id=sid, options=dict(options or {})))


__all__ = ["baseline_graph"]
