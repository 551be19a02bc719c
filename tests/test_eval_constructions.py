"""Trace accuracy by construction (plgraph.eval.constructions): hand-made trees of each
construction, every Johnson item classified exactly once, and the scores."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from plgraph.eval.constructions import (CONSTRUCTIONS, by_construction, construction_counts, format_constructions,
                                        tree_constructions)
from plgraph.ptb.reader import read_ptb_string

WHO = "(ROOT (SBARQ (WHNP-1 (WP Who)) (SQ (VBD did) (NP-SBJ (PRP you)) (VP (VB see) (NP (-NONE- *T*-1)))) (. ?)))"
KNOW = ("(ROOT (S (NP-SBJ (PRP I)) (VP (VBP know) (SBAR (WHNP-1 (WP who)) (S (NP-SBJ-2 (PRP she)) (VP (VBD wanted) "
        "(S (NP-SBJ (-NONE- *-2)) (VP (TO to) (VP (VB see) (NP (-NONE- *T*-1))))))))) (. .)))")
RELATIVE = ("(ROOT (S (NP-SBJ (NP (DT the) (NN man)) (SBAR (WHNP-1 (-NONE- 0)) (S (NP-SBJ (PRP I)) (VP (VBD saw) "
            "(NP (-NONE- *T*-1)))))) (VP (VBD left)) (. .)))")
PASSIVE = ("(ROOT (S (NP-SBJ-1 (NNS charges)) (VP (VBD were) (VP (VBN filed) (NP (-NONE- *-1)) (S-PRP (NP-SBJ "
           "(-NONE- *)) (VP (TO to) (VP (VB win) (NP (QP ($ $) (CD 5)) (-NONE- *U*))))))) (. .)))")
TOPIC = ("(ROOT (SINV (S-TPC-1 (NP-SBJ (PRP It)) (VP (VBZ works))) (, ,) (VP (VBD said) (S (-NONE- *T*-1))) "
         "(NP-SBJ (PRP he)) (. .)))")


def parsed(text):
    return read_ptb_string(text, clean=False)[0].tree


@pytest.mark.parametrize("text, want", [
    (WHO, ["wh-question"]),
    (KNOW, ["raising/control", "embedded wh"]),
    (RELATIVE, ["0", "relative clause"]),
    (PASSIVE, ["PRO (no index)", "*U*", "passive"]),
    (TOPIC, ["topicalisation"]),
])
def test_hand_made_trees_of_each_construction(text, want):
    items, constructions = tree_constructions(parsed(text))
    assert sorted(constructions) == sorted(want) and len(items) == len(want)


def test_every_johnson_item_of_the_dev_split_is_in_one_construction(sample_dir):
    import plgraph
    from plgraph.eval.traces import traces

    trees = [s.tree for s in plgraph.corpus("dev").sentences()]
    counts = construction_counts(trees)
    assert list(counts) == list(CONSTRUCTIONS)
    assert sum(counts.values()) == traces(trees, trees).all["gold"]
    assert counts["passive"] > 50 and counts["relative clause"] > 30 and counts["wh-question"] < 10
    same = by_construction(trees, trees)
    assert all(s["recall"] == 100.0 and s["precision"] == 100.0 for s in same.values())
    assert {c: s["gold"] for c, s in same.items()} == {c: n for c, n in counts.items() if n}


def test_a_parse_that_misses_the_trace_scores_zero_recall_on_its_construction():
    wrong = WHO.replace("(VP (VB see) (NP (-NONE- *T*-1)))", "(VP (VB see))")
    doc = by_construction([parsed(WHO), parsed(PASSIVE)], [parsed(wrong), None])
    assert doc["wh-question"] == {"matched": 0, "gold": 1, "test": 0, "precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert doc["passive"]["gold"] == 1 and doc["passive"]["matched"] == 0       # a failed parse counts as missed
    subject = WHO.replace("(NP-SBJ (PRP you)) (VP (VB see) (NP (-NONE- *T*-1)))",
                          "(NP-SBJ (-NONE- *T*-1)) (VP (VB see) (NP (PRP you)))")
    moved = by_construction([parsed(WHO)], [parsed(subject)])["wh-question"]
    assert (moved["gold"], moved["test"], moved["matched"]) == (1, 1, 0)     # *T* in subject position: wrong
    table = format_constructions({"wh-question": moved}, {"wh-question": 21})
    assert table.splitlines()[1].split()[-1] == "21"


def test_construction_report_of_an_evaluation(sample_dir):
    import plgraph
    from plgraph.parser.analysis.evaluate import construction_report, format_evaluation

    dev = list(plgraph.corpus("dev").sentences())[:30]
    results = [SimpleNamespace(tree=s.tree) for s in dev]
    rep = construction_report(dev, results, dev[:10])
    assert rep["all"]["passive"]["recall"] == 100.0
    assert sum(rep["train_counts"].values()) == sum(s["gold"] for s in by_construction(
        [s.tree for s in dev[:10]], [s.tree for s in dev[:10]]).values())
    assert set(rep["len40"]) <= set(rep["all"])
