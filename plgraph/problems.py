"""Why is a sentence not representable?  A rule-based detector of the causes the
thesis names for cyclic and non-1EC graphs (thesis §"Problematic Structures").

For a cyclic or non-1EC sentence the *culprits* are the trace edges the greedy
repair (:func:`plgraph.structure.representable_mask`) removes — restricted,
for the cycle question, to removed edges on a directed cycle, and for the 1EC
question to removed edges that violate 1EC or cross a violating edge.  Causes,
checked in this order:

``NP said in a quotation``
    a ``*T*`` edge from a clause (S, SINV, SQ, SBARQ, FRAG) to a verb: the verb's
    null complement is co-indexed with the quoted clause, while the verb itself
    attaches inside that clause ("..., he said, ...");
``*EXP*`` / ``*ICH*``
    pseudo-attachment: an expletive or an "interpret constituent here" trace;
``gapping``
    a gapping edge (``=``);
``other``
    anything else (PRO/raising ``*`` chains, right-node raising, ``*T*`` from
    non-clauses ...).

The thesis's manual analysis of 20 cyclic and 20 non-1EC WSJ sentences is in
:data:`THESIS_MANUAL_COUNTS`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .graph import Graph, TRACE
from .ptb.clean import base_label
from .structure import classify, edge_problems, representable_mask

CAUSES = ("NP said in a quotation", "*EXP*", "*ICH*", "gapping", "other")
CLAUSES = frozenset(["S", "SINV", "SQ", "SBARQ", "FRAG", "SBAR"])
#: thesis: 20 cyclic and 20 non-1EC sentences inspected by hand
THESIS_MANUAL_COUNTS = {
    "cycle": {"NP said in a quotation": 11, "*EXP*": 5, "*ICH*": 4},
    "non-1EC": {"*EXP*": 3, "*ICH*": 5, "NP said in a quotation": 2, "gapping": 1, "list": 1, "other": 8},
}


@dataclass
class Problem:
    """A sentence whose graph is cyclic and/or not one-endpoint-crossing."""

    id: str
    kind: str              # "cycle" or "non-1EC"
    cause: str
    culprits: list         # edge indices into the graph's arrays
    description: list      # human-readable culprit edges


def _cause_of(graph: Graph, edges) -> str:
    found = set()
    for e in edges:
        t = str(graph.trace[e])
        clause = base_label(str(graph.child_label[e]).rsplit("_", 1)[0]) in CLAUSES
        verb = graph.tags[int(graph.parent[e]) - 1].startswith("VB")
        if t == "*T*" and clause and verb:
            found.add("NP said in a quotation")
        elif t in ("*EXP*", "*ICH*"):
            found.add(t)
        elif t == "=":
            found.add("gapping")
        else:
            found.add("other")
    for cause in CAUSES:
        if cause in found:
            return cause
    return "other"


def describe_edge(graph: Graph, e: int) -> str:
    c, p = int(graph.child[e]), int(graph.parent[e])
    return (f"{graph.words[c - 1]}/{graph.child_label[e]} -{graph.trace[e]}-> "
            f"{graph.words[p - 1]}/{graph.label[e]}")


def diagnose(graph: Graph) -> list[Problem]:
    """The problems of one graph (empty if it is acyclic and 1EC)."""
    s = classify(graph)
    if s.representable:
        return []
    removed = ~representable_mask(graph)
    probs = edge_problems(graph)
    out = []
    if s.cyclic:
        culprits = [int(e) for e in np.flatnonzero(removed & probs.on_cycle)]
        out.append(Problem(graph.id, "cycle", _cause_of(graph, culprits), culprits,
                           [describe_edge(graph, e) for e in culprits]))
    if not s.one_endpoint_crossing:
        crossing_violation = np.zeros(graph.n_edges, bool)
        for a, b in probs.crossing.tolist():
            if probs.violating[a]:
                crossing_violation[b] = True
            if probs.violating[b]:
                crossing_violation[a] = True
        culprits = [int(e) for e in np.flatnonzero(removed & (probs.violating | crossing_violation)
                                                   & (graph.kind == TRACE))]
        out.append(Problem(graph.id, "non-1EC", _cause_of(graph, culprits), culprits,
                           [describe_edge(graph, e) for e in culprits]))
    return out


def find_problems(graphs) -> list[Problem]:
    """Problems of every graph (a graph that is both cyclic and non-1EC gives two)."""
    out = []
    for g in graphs:
        out.extend(diagnose(g))
    return out


def cause_table(problems) -> "object":
    """Counts by kind and cause beside the thesis's manual analysis (pandas DataFrame)."""
    import pandas as pd

    rows = []
    for kind in ("cycle", "non-1EC"):
        ours = [p.cause for p in problems if p.kind == kind]
        total = max(len(ours), 1)
        thesis = THESIS_MANUAL_COUNTS[kind]
        for cause in CAUSES + ("list",):
            n = ours.count(cause)
            s = thesis.get(cause, 0)
            if cause == "list" and not s:
                continue
            rows.append({"kind": kind, "cause": cause, "sentences": n, "%": round(100 * n / total, 1),
                         "seed (of 20)": s, "seed %": round(100 * s / 20, 1)})
    return pd.DataFrame(rows)
