"""Shared fixtures.  Corpora are found through plgraph's own resolver; a test
whose corpus is missing is skipped with a message saying how to get it."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from plgraph.data import CORPORA, find_corpus  # noqa: E402
from plgraph.errors import CorpusNotFoundError  # noqa: E402


def corpus_or_skip(name: str) -> Path:
    try:
        return find_corpus(name)
    except CorpusNotFoundError:
        pytest.skip(f"corpus {name!r} not found; to get it: {CORPORA[name].how_to_get}")


@pytest.fixture(scope="session")
def sample_dir() -> Path:
    return corpus_or_skip("ptb-sample")


@pytest.fixture(scope="session")
def reference_shp_dir() -> Path:
    return corpus_or_skip("reference-shp")


@pytest.fixture(scope="session")
def sample_trees(sample_dir):
    """Every tree of the PTB sample (cleaned), read once per session."""
    from plgraph.corpora import iter_trees
    from plgraph.data import sample_files

    bad: list = []
    trees = list(iter_trees(sample_files("all"), progress=False, bad=bad))
    assert not bad, bad
    return trees


@pytest.fixture(scope="session")
def sample_graphs(sample_trees):
    from plgraph.convert import tree_to_graph

    return [tree_to_graph(t.tree, sid=t.id) for t in sample_trees]


@pytest.fixture(scope="session")
def parser_base(sample_graphs):
    """What the pass-2 and pass-3 tests start from: the sample's train and dev graphs, the
    quick-mode coarse models (shared cache), the train split's edge labels and its rules
    seen at least once."""
    from plgraph.data import SAMPLE_SPLITS
    from plgraph.parser.labels import LabelVocab
    from plgraph.pruners.pipeline import notebook_models
    from plgraph.rules.usage import count_rules

    def part(name):
        lo, hi = SAMPLE_SPLITS[name]
        return [g for g in sample_graphs if lo <= int(g.id[4:8]) <= hi]

    class _S:               # what count_rules reads
        def __init__(self, g):
            self.id, self.graph = g.id, g

    train, dev = part("train"), part("dev")
    rules = count_rules([_S(g) for g in train]).pruned(1)
    return dict(train=train, dev=dev, pr=notebook_models(quick=True), vocab=LabelVocab.from_graphs(train), rules=rules)


# -- corpora of the dependency-parser tests ------------------------------------------------
@pytest.fixture(scope="session")
def ewt_dir() -> Path:
    return corpus_or_skip("ud-english-ewt")


@pytest.fixture(scope="session")
def ewt_dev(ewt_dir):
    """UD English-EWT dev sentences, read once per session."""
    from plgraph.dep.conll import read_conll

    return read_conll(ewt_dir / "en_ewt-ud-dev.conllu")


@pytest.fixture(scope="session")
def ewt_train_small(ewt_dir):
    """The first 600 sentences of UD English-EWT train."""
    from plgraph.dep.conll import read_conll

    return read_conll(ewt_dir / "en_ewt-ud-train.conllu")[:600]


@pytest.fixture(scope="session")
def conll2007_dir() -> Path:
    return corpus_or_skip("conll2007")


def pytest_configure(config):
    os.environ.setdefault("MPLBACKEND", "Agg")
