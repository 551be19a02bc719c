"""Scoring parses: bracket scores (EVALB), empty nodes and traces (Johnson 2002), graph scores.

* :func:`evalb` -- bracket precision/recall exactly as the C program EVALB
  (Sekine & Collins, 2006 version) computes them (:mod:`plgraph.eval.evalb`);
* :func:`traces` -- the Johnson (2002) empty-node metric as the reference's
  ``evaluation/ptb-trace-eval.py`` computes it (:mod:`plgraph.eval.traces`);
* :func:`graphs` -- spines, structural edges and trace edges of SHP graphs, the
  categories of the reference's ``evaluation/shp-eval.py`` (:mod:`plgraph.eval.graphs`).

Each takes gold and test sentences in the same order and returns a result holding the
totals and a pandas DataFrame with one row per sentence; ``python -m plgraph eval
{trees,traces,graphs}`` runs them on files.
"""
from __future__ import annotations

# Eager imports: a submodule named like its function (``traces``) would otherwise shadow
# the function as a package attribute once imported.  pandas loads only on first use.
from .evalb import EvalbParams, EvalbResult, evalb, read_prm
from .graphs import graphs
from .traces import traces

__all__ = ["EvalbParams", "EvalbResult", "evalb", "graphs", "read_prm", "traces"]
