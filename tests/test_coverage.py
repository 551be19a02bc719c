"""Coverage tables on the PTB sample, checked against independent counts and the paper."""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import naive
from plgraph import paper
from plgraph.coverage import compute_coverage
from plgraph.structure import classify

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def result(sample_trees):
    return compute_coverage(sample_trees, progress=False)


def test_structure_table_adds_up(result):
    assert result.n_sentences == 3914 and not result.skipped
    total = sum(r["acyclic_n"] + r["cyclic_n"] for r in result.structure_table)
    assert total == 3914
    assert result.structure_table[0]["cyclic_n"] == 0  # a tree cannot have a cycle


def test_recoverable_share_close_to_paper(result):
    ours = sum(r["acyclic_pct"] for r in result.structure_table[:3])
    assert abs(ours - 97.17) < 1.0


def test_first_row_is_trees_without_nulls_counted_by_nltk(result, sample_dir):
    import nltk.data
    from nltk.corpus.reader import BracketParseCorpusReader

    root = str(sample_dir.parents[2])
    if root not in nltk.data.path:
        nltk.data.path.insert(0, root)
    trees = BracketParseCorpusReader(str(sample_dir), r"wsj_.*\.mrg").parsed_sents()
    no_null = sum(1 for t in trees if "-NONE-" not in {label for _, label in t.pos()})
    assert result.coverage_table[0]["sentences_pct"] == round(100 * no_null / len(trees), 2)


def test_coverage_grows_with_each_step(result):
    sent = [r["sentences_pct"] for r in result.coverage_table]
    edges = [r["edges_pct"] for r in result.coverage_table]
    assert sent == sorted(sent) and edges == sorted(edges)
    assert all(e >= s for s, e in zip(sent, edges))
    # rows 2-5 have the paper's order of magnitude: within 6 points of the paper
    for ours, pub in zip(sent[1:], paper.COVERAGE_TABLE[1:]):
        assert abs(ours - pub[1]) < 6


def test_classification_agrees_with_naive_on_random_sentences(sample_graphs):
    rng = random.Random(0)
    for g in rng.sample(sample_graphs, 300):
        s = classify(g)
        n = len(g.words)
        c = g.child - 1
        p = np.where(g.parent == 0, n, g.parent - 1)
        spans = [(min(a, b), max(a, b)) for a, b in zip(c.tolist(), p.tolist()) if a != b]
        proj, one_ec = naive.crossing_flags(spans)
        assert (s.projective, s.one_endpoint_crossing) == (proj, one_ec), g.id
        assert s.cyclic == naive.has_directed_cycle(list(zip(c.tolist(), p.tolist()))), g.id


def test_committed_figures_are_current(result):
    committed = ROOT / "figures" / "coverage.json"
    if not committed.exists():
        pytest.fail("figures/coverage.json is missing: run `make figures`")
    doc = json.loads(committed.read_text())
    assert doc["structure_table"] == result.structure_table, "run `make figures`"
    assert doc["coverage_table"] == result.coverage_table, "run `make figures`"
