"""Slow full-corpus checks, run by `make check-full` (deselected by `make test`).

Set PLGRAPH_PTB to a full LDC Penn Treebank (section folders 00-24) to include it.
"""
from __future__ import annotations

import os

import pytest

from plgraph.convert import ConversionOptions, canonical_indices, graph_to_tree, tree_to_graph
from plgraph.shp import format_shp, read_shp_string

pytestmark = pytest.mark.slow

CONFIGS = [ConversionOptions("jkk1", True, False), ConversionOptions("jkk1", False, False),
           ConversionOptions("jkk1", True, True), ConversionOptions("collins", True, False),
           ConversionOptions("collins", False, False), ConversionOptions("jkk2", True, True)]


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: f"{o.heads}-rev{int(o.null_reversal)}-gap{int(o.gapping_shift)}")
def test_round_trip_every_configuration(sample_trees, options):
    graphs = [tree_to_graph(t.tree, options, sid=t.id) for t in sample_trees]
    back = read_shp_string("".join(format_shp(g) for g in graphs))
    failures = []
    for g, h in zip(graphs, back):
        # with gapping shift the graph represents the edited tree
        if canonical_indices(graph_to_tree(h)) != canonical_indices(g.source_tree):
            failures.append(g.id)
    assert len(failures) / len(graphs) <= 0.005, failures


def test_ldc_treebank_coverage():
    ptb = os.environ.get("PLGRAPH_PTB")
    if not ptb:
        pytest.skip("set PLGRAPH_PTB to a full LDC Penn Treebank (WSJ section folders 00-24) to run this")
    from plgraph.corpora import iter_trees
    from plgraph.coverage import compute_coverage
    from plgraph.data import ldc_files

    bad: list = []
    trees = list(iter_trees(ldc_files(ptb, "train"), bad=bad))
    result = compute_coverage(trees)
    assert result.n_sentences > 39000
    recoverable = sum(r["acyclic_pct"] for r in result.structure_table[:3])
    assert abs(recoverable - 97.17) < 0.5
