"""The representation's ceiling: gold tree -> graph -> tree scored against gold.

The expected values are facts of the representation checked by hand, not outputs of the
code under test: overt brackets are kept in the spines (so evalb is 100), nulls are kept
with their host (so the null-only Johnson score is 100), and the one sentence of the dev
split that loses Johnson items is wsj_0163.3, whose gold label ``NP-SBJ=1-3`` puts the
gapping index first; graph_to_tree writes ``NP-SBJ-2=1``, and the reference script's
label cutting depends on that order (gold: type ``*_NP=1_NP``, gap label ``NP``; output:
``*_NP_NP`` and ``NP-2``).
"""
from __future__ import annotations

import json

import pytest

import plgraph
from plgraph.cli import main
from plgraph.eval.ceiling import representation_ceiling, round_trip


@pytest.fixture(scope="module")
def dev(sample_dir):
    return plgraph.corpus("dev").sentences()


@pytest.fixture(scope="module")
def dev_ceiling(dev):
    return representation_ceiling(dev)


def test_overt_brackets_survive_the_round_trip(dev_ceiling):
    assert dev_ceiling["failures"] == []
    for key in ("evalb_top", "evalb_root_counted", "evalb_raw_top"):
        for part in ("all", "len40"):
            s = dev_ceiling[key][part]
            assert (s["recall"], s["precision"], s["errors"], s["skipped"]) == (100.0, 100.0, 0, 0), (key, part)
    # the counted ROOT adds exactly one bracket per sentence
    top, root = dev_ceiling["evalb_top"]["all"], dev_ceiling["evalb_root_counted"]["all"]
    assert root["gold_brackets"] - top["gold_brackets"] == dev_ceiling["sentences"] == 433


def test_nulls_survive_with_their_host(dev_ceiling):
    s = dev_ceiling["traces_null_only"]
    assert s["matched"] == s["gold"] == s["test"] and s["f1"] == 100.0


def test_the_only_johnson_loss_on_dev_is_the_label_order_of_wsj_0163_3(dev):
    from plgraph.eval import traces

    gold, test, *_ = round_trip(dev)
    result = traces(gold, test, ids=[s.id for s in dev])
    frame = result.sentences
    lost = frame[frame.matched < frame.gold]
    assert lost.id.tolist() == ["wsj_0163.3"]
    row = lost.iloc[0]
    assert (row.matched, row.gold, row.test) == (2, 4, 4)
    assert "NP-SBJ=1-3" in dev[[s.id for s in dev].index("wsj_0163.3")].tree.to_string()
    assert "NP-SBJ-2=1" in test[[s.id for s in dev].index("wsj_0163.3")].to_string()
    assert "('*_NP=1_NP', 12, (7, 12))" in row.gold_items and "('*_NP_NP', 12, (7, 12))" in row.test_items


def test_gold_null_positions_keep_every_spine(dev, dev_ceiling):
    exact = representation_ceiling(dev, use_null_positions=True)
    assert exact["graphs"]["labeled_spine"]["f1"] == 100.0
    heuristic = dev_ceiling["graphs"]["labeled_spine"]
    # the heuristic moves one null inside its host: one spine of 10,627 differs
    assert heuristic["gold"] - heuristic["matched"] == 1
    for cat in ("labeled_edge", "unlabeled_edge", "unlabeled_trace"):
        assert dev_ceiling["graphs"][cat]["f1"] == 100.0, cat


def test_cli_prints_the_table_and_writes_json(sample_dir, tmp_path, capsys):
    out = tmp_path / "c.json"
    assert main(["eval", "ceiling", "--split", "dev", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("sentences 433, round trips failed 0")
    assert "evalb, TOP root" in text and "Johnson (2002), null only" in text
    doc = json.loads(out.read_text())
    assert {"evalb_top", "evalb_root_counted", "evalb_raw_top", "traces", "traces_null_only", "graphs"} <= set(doc)


def test_cli_unwritable_json_is_an_error(sample_dir, tmp_path, capsys):
    assert main(["eval", "ceiling", "--split", "dev", "--json", str(tmp_path)]) == 2
    assert "plgraph eval: error:" in capsys.readouterr().err
