"""Notebooks whose corpus is missing are skipped (the collection hook of conftest.py):
which corpora each notebook needs, and the skip decision with and without the data."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import (corpora_needed, missing_corpora_reason, notebook_corpora,
                      pytest_collection_modifyitems)
from plgraph import data

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


@pytest.fixture
def no_data(tmp_path, monkeypatch):
    """Every place the resolver looks is empty: PLGRAPH_DATA, shared/data, NLTK's path."""
    monkeypatch.setenv("PLGRAPH_DATA", str(tmp_path / "empty"))
    monkeypatch.setattr(data, "SHARED_DATA", tmp_path / "no-shared-data")
    monkeypatch.setattr(data, "_nltk_paths", lambda: [])
    return tmp_path


@pytest.mark.parametrize("name, corpora", [
    ("01_coverage.ipynb", ["ptb-sample"]),
    ("02_problematic_structures.ipynb", ["ptb-sample"]),
    ("03_rules_and_pruning.ipynb", ["ptb-sample"]),
    ("04_training_curves.ipynb", ["ptb-sample"]),        # notebook_models trains on the sample
    ("05_arc_explorer.ipynb", ["ptb-sample"]),
    ("06_language_models.ipynb", ["brown"]),             # kenlm_parity_brown; the others are optional
    ("07_dependency_parsing.ipynb", ["conll2007", "ud-basque-bdt-r1.4", "ud-english-ewt"]),
    ("08_graph_parsing.ipynb", ["ptb-sample"]),
])
def test_corpora_of_the_real_notebooks(name, corpora):
    assert notebook_corpora(NOTEBOOKS / name) == corpora


def test_corpora_needed_reads_calls_not_words():
    assert corpora_needed('x = find_corpus("ud-russian-gsd")\ny = find_corpus()') == ["ptb-sample", "ud-russian-gsd"]
    assert corpora_needed("d = LMData.load('ptb'); r = lm_corpus('ru-taiga')") == ["lm-ptb", "lm-ru-taiga"]
    assert corpora_needed("names = X.available_corpora(); X.corpus_summary(d)") == []
    assert corpora_needed('find_corpus("no-such-corpus")') == []


def test_unreadable_notebook_needs_nothing(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{not json")
    assert notebook_corpora(bad) == []
    assert notebook_corpora(tmp_path / "absent.ipynb") == []


def test_reason_names_the_missing_corpus_and_how_to_get_it(no_data):
    reason = missing_corpora_reason(notebook_corpora(NOTEBOOKS / "01_coverage.ipynb"))
    assert reason.startswith("corpus 'ptb-sample' not found. Tried:\n  PLGRAPH_DATA: ")
    assert reason.endswith(f"To get it: {data.CORPORA['ptb-sample'].how_to_get}.")


def test_reason_lists_every_missing_corpus(no_data):
    reason = missing_corpora_reason(["conll2007", "ud-english-ewt"])
    assert [line.split(" not found")[0] for line in reason.splitlines() if line.startswith("corpus ")] == \
        ["corpus 'conll2007'", "corpus 'ud-english-ewt'"]
    assert reason.endswith(f"To get it: {data.CORPORA['ud-english-ewt'].how_to_get}.")


def test_no_reason_when_the_corpus_is_found(no_data):
    folder = no_data / "empty" / "nltk_data" / "corpora" / "treebank" / "combined"
    folder.mkdir(parents=True)
    (folder / "wsj_0001.mrg").write_text("( (S (NP-SBJ (NNP Bob)) (VP (VBD left)) (. .)))\n")
    assert missing_corpora_reason(["ptb-sample"]) is None
    assert missing_corpora_reason([]) is None


class _Item:
    """What the hook reads of a collected item: its path and add_marker."""

    def __init__(self, path):
        self.path, self.markers = Path(path), []

    def add_marker(self, marker):
        self.markers.append(marker)


def test_hook_skips_only_notebooks_whose_corpus_is_missing(no_data):
    plain = no_data / "plain.ipynb"
    plain.write_text(json.dumps({"cells": [{"cell_type": "code", "source": ["print(1)\n"]}]}))
    needy, free, test = _Item(NOTEBOOKS / "05_arc_explorer.ipynb"), _Item(plain), _Item(__file__)
    pytest_collection_modifyitems(None, [needy, free, test])
    assert free.markers == [] and test.markers == []
    [mark] = needy.markers
    assert mark.name == "skip"
    assert mark.kwargs["reason"].startswith("notebook needs data: corpus 'ptb-sample' not found.")
