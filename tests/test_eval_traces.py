"""``plgraph.eval.traces``: the Johnson (2002) metric as ``evaluation/ptb-trace-eval.py``
computes it.  The script is Python 2, so the oracle is hand work: every expected item and
count below was worked out by hand from the trees and the script's code (word indices
count the words left after the script's edits; they are written out next to each tree).
Each quirk of the script has its own test, marked "reference quirk"."""
from __future__ import annotations

import json
import re
import types

import pytest

from plgraph.errors import InputError
from plgraph.eval.traces import (
    get_reference,
    py2_str,
    read_trace_file,
    remove_function_tags,
    traces,
    tree_items,
)
from plgraph.ptb.reader import read_ptb_string


def T(text: str):
    """One tree read as the script reads it (no homogenising)."""
    (s,) = read_ptb_string(text, clean=False)
    return s.tree


def items(text: str, **kw):
    got, problems, _ = tree_items(T(text), **kw)
    return got, problems


# wh-relative with a null operator.  Words: books 0, I 1, read 2.
WH_REL = "(ROOT (NP (NP (NNS books)) (SBAR (WHNP-1 (-NONE- 0)) (S (NP-SBJ (PRP I)) (VP (VBD read) (NP (-NONE- *T*-1)))))))"
WH_REL_ITEMS = [("no-link_0_WHNP", 1), ("*T*_WHNP_NP", 2, (1, 3))]


# ---------------------------------------------------------------------------------------
# string helpers of the script
# ---------------------------------------------------------------------------------------
def test_get_reference_as_the_script():
    assert get_reference("NP-1") == "1"
    assert get_reference("*T*-12") == "12"
    assert get_reference("*") is None and get_reference("0") is None and get_reference("*U*") is None
    assert get_reference("NP=2", "=") == "2" and get_reference("NP=2") is None
    assert get_reference("NP=1-3") == "3" and get_reference("NP=1-3", "=") == "1"
    # the script's scan gives "" for -NONE- (a key no null word can have)
    assert get_reference("-NONE-") == ""


def test_remove_function_tags_keeps_indices():
    # reference quirk: function tags removed keeping -N/=N (only all-digit segments stay)
    assert remove_function_tags("NP-SBJ-1") == "NP-1"
    assert remove_function_tags("S-TPC-1") == "S-1"
    assert remove_function_tags("PP-LOC=2") == "PP=2"
    assert remove_function_tags("NP-SBJ=1-3") == "NP=1-3"
    assert remove_function_tags("ADJP-PRD") == "ADJP"
    assert remove_function_tags("-NONE-") == "-NONE-" and remove_function_tags("-LRB-") == "-LRB-"
    assert remove_function_tags("PRP$") == "PRP$" and remove_function_tags("") == ""


def test_py2_number_format():
    assert py2_str(200.0 / 3) == "66.6666666667"
    assert py2_str(400.0 / 3) == "133.333333333"
    assert py2_str(100.0) == "100.0" and py2_str(0.0) == "0.0" and py2_str(0) == "0"


# ---------------------------------------------------------------------------------------
# items
# ---------------------------------------------------------------------------------------
def test_null_antecedent_span_climbs():
    # reference quirk: a null antecedent's span climbs to a word-spanning ancestor:
    # WHNP-1 spans nothing, its SBAR spans "I read" = (1, 3)
    got, problems = items(WH_REL)
    assert got == WH_REL_ITEMS and problems == []


def test_position_is_left_index_of_lowest_word_spanning_ancestor():
    # reference quirk: position = left word index of the lowest word-spanning ancestor.
    # Words: John 0, tried 1, to 2, go 3.  *-1's NP spans nothing, its S spans "to go".
    got, _ = items("(S (NP-SBJ-1 (NNP John)) (VP (VBD tried) (S (NP-SBJ (-NONE- *-1)) (VP (TO to) (VP (VB go))))))")
    assert got == [("*_NP_NP", 2, (0, 1))]
    # the same null placed after "go": its lowest word-spanning ancestor is the VP of "go"
    got, _ = items("(S (NP-SBJ-1 (NNP John)) (VP (VBD tried) (S (VP (TO to) (VP (VB go) (NP (-NONE- *-1)))))))")
    assert got == [("*_NP_NP", 3, (0, 1))]


def test_antecedent_is_last_node_carrying_index():
    # reference quirk: the antecedent is the LAST node (post-order) carrying -N.
    # Words: John 0, told 1, Mary 2, to 3, go 4: both NP-SBJ-1 and NP-1 carry 1; Mary's is later
    got, _ = items("(S (NP-SBJ-1 (NNP John)) (VP (VBD told) (NP-1 (NNP Mary)) (S (NP-SBJ (-NONE- *-1)) "
                   "(VP (TO to) (VP (VB go))))))")
    assert got == [("*_NP_NP", 3, (2, 3))]
    # nested: the outer NP-1 comes after the inner one in post-order.  Words: John 0, of 1,
    # Troy 2, tried 3, to 4, go 5
    got, _ = items("(S (NP-1 (NP-1 (NNP John)) (PP (IN of) (NP (NNP Troy)))) (VP (VBD tried) "
                   "(S (NP (-NONE- *-1)) (VP (TO to) (VP (VB go))))))")
    assert got == [("*_NP_NP", 4, (0, 3))]


def test_unindexed_null_label_only_when_parent_spans_nothing():
    # ("no-link_" + word + "_" + parent label if the parent spans nothing, else "").
    # Words: $ 0, 5 1.  *U* sits in an NP that spans words; * in an NP that spans none.
    got, _ = items("(S (NP (-NONE- *)) (VP (VBD cost) (NP ($ $) (CD 5) (-NONE- *U*))))")
    assert got == [("no-link_*_NP", 0), ("no-link_*U*_", 1)]


def test_prt_is_advp():
    # reference quirk: PRT -> ADVP.  Words: how 0, he 1, did 2.
    gold = "(SBAR (WHADVP-1 (WRB how)) (S (NP (PRP he)) (VP (VBD did) (ADVP (-NONE- *T*-1)))))"
    test = gold.replace("(ADVP (-NONE-", "(PRT (-NONE-")
    assert items(test)[0] == items(gold)[0] == [("*T*_WHADVP_ADVP", 2, (0, 1))]
    r = traces([gold], [test])
    assert r.per_sentence == [[1, 1, 1]]
    other = traces([gold], [gold.replace("(ADVP (-NONE-", "(PP (-NONE-")])
    assert other.per_sentence == [[0, 1, 1]]


def test_punctuation_removed_with_words_and_empty_parents():
    # reference quirk: labels # '' , . `` : are removed with their words (positions count
    # the rest), a parent left spanning nothing is removed, and a constituent that held a
    # null and a comma now spans nothing.  After removal: John 0, tried 1, to 2, go 3.
    # ("--" tagged NN is re-tagged ":" by the reader's cleaning and removed too.)
    tree = ("(S (`` ``) (NP-SBJ-1 (NNP John)) (PRN (, ,)) (NN --) (VP (VBD tried) (S (NP-SBJ (-NONE- *-1)) "
            "(VP (TO to) (VP (VB go) (NP (-NONE- *) (, ,)))))) (. .) ('' ''))")
    got, problems = items(tree)
    assert got == [("no-link_*_NP", 3), ("*_NP_NP", 2, (0, 1))] and problems == []
    # an antecedent left empty by the removal disappears: *T*-2 dangles.  Words: John 0,
    # said 1, left 2
    got, problems = items("(S (NP-SBJ (NNP John)) (VP (VBD said) (PRN-2 (: --)) (SBAR (-NONE- 0) "
                          "(S (NP (-NONE- *T*-2)) (VP (VBD left))))))")
    assert got == [("no-link_0_", 2), ("*T*__NP", 2, None)]
    assert len(problems) == 1 and "KeyError" in problems[0]
    # "#" goes with its word: 100 is word 0
    got, _ = items("(S (NP (# #) (CD 100) (-NONE- *U*)) (VP (VBD fell)))")
    assert got == [("no-link_*U*_", 0)]


def test_function_tags_removed_keeping_indices_in_items():
    # reference quirk: function tags removed keeping -N/=N: S-TPC-1 is still antecedent 1.
    # Words: He 0, left 1, she 2, said 3.  SBAR and S span nothing -> position of VP "said".
    got, _ = items("(S (S-TPC-1 (NP-SBJ (PRP He)) (VP (VBD left))) (NP-SBJ (PRP she)) "
                   "(VP (VBD said) (SBAR (-NONE- 0) (S (-NONE- *T*-1)))))")
    assert got == [("no-link_0_SBAR", 3), ("*T*_S_S", 3, (0, 2))]
    # a test tree with other function tags scores the same
    r = traces(["(S (S-TPC-1 (NP-SBJ (PRP He)) (VP (VBD left))) (NP-SBJ (PRP she)) (VP (VBD said) "
                "(SBAR (-NONE- 0) (S (-NONE- *T*-1)))))"],
               ["(S (S-ADV-1 (NP (PRP He)) (VP (VBD left))) (NP (PRP she)) (VP (VBD said) "
                "(SBAR-PRP (-NONE- 0) (S (-NONE- *T*-1)))))"])
    assert r.per_sentence == [[2, 2, 2]]


GAPPING = ("(S (S (NP-SBJ-1 (NNP John)) (VP (VBD ate) (NP-2 (NNS apples)))) (CC and) "
           "(S (NP-SBJ=1 (NNP Mary)) (VP (NP=2 (NNS pears)))))")


def test_gapping_items():
    # reference quirk: gapping items ("gap", span, label before "=", correlate span,
    # correlate label before "-"); NP-SBJ=1 loses its function tag.  Words: John 0, ate 1,
    # apples 2, and 3, Mary 4, pears 5.
    got, problems = items(GAPPING)
    assert got == [("gap", (4, 5), "NP", (0, 1), "NP"), ("gap", (5, 6), "NP", (2, 3), "NP")]
    assert problems == []
    # the labels are cut at the first "-" only: NP-SBJ=1-3 (function tag removed: NP=1-3)
    # as an antecedent is "NP=1" (a pattern of the sample).  Words: A 0,
    # left 1, and 2, B 3, was 4, hit 5
    got, _ = items("(S (S (NP-SBJ-1 (NNP A)) (VP (VBD left))) (CC and) (S (NP-SBJ=1-3 (NNP B)) "
                   "(VP (VBD was) (VP (VBN hit) (NP (-NONE- *-3))))))")
    assert got == [("gap", (3, 4), "NP", (0, 1), "NP"), ("*_NP=1_NP", 5, (3, 4))]
    # a gapping index with no -N node: the script raises KeyError; plgraph scores it
    got, problems = items(GAPPING.replace("(NP-2 (NNS apples))", "(NP (NNS apples))"))
    assert got == [("gap", (4, 5), "NP", (0, 1), "NP"), ("gap", (5, 6), "NP", None, "")]
    assert len(problems) == 1 and "=2" in problems[0] and "KeyError" in problems[0]


def test_null_only():
    # reference quirk: --null_only scores every null as a no-link item, gapping not at all
    got, _ = items(WH_REL, null_only=True)
    assert got == [("no-link_0_WHNP", 1), ("no-link_*T*_NP", 2)]
    assert items(GAPPING, null_only=True)[0] == []
    r = traces([WH_REL], [WH_REL.replace("WHNP-1", "WHNP-2")], null_only=True)
    assert r.per_sentence == [[2, 2, 2]] and r.problems[0].side == "test"
    assert "even with --null_only" in r.problems[0].reason


def test_dangling_coindex_is_scored_and_reported():
    # the script raises KeyError here; plgraph scores an item with an empty antecedent
    # label and no span and lists the sentence.  Words: left 0.
    tree = "(S (NP-SBJ (-NONE- *-5)) (VP (VBD left)))"
    got, problems = items(tree)
    assert got == [("*__NP", 0, None)]
    r = traces([WH_REL, tree], [WH_REL, tree])
    assert r.per_sentence == [[2, 2, 2], [1, 1, 1]]
    assert [(p.position, p.side) for p in r.problems] == [(1, "gold"), (1, "test")]
    assert "KeyError" in r.problems[0].reason
    assert r.sentences.loc[1, "problem"].startswith("gold: co-index -5")


def test_tree_without_words():
    # the script raises AttributeError (no word-spanning ancestor); plgraph uses the root
    got, problems = items("(S (NP (-NONE- *)))")
    assert got == [("no-link_*_NP", 0)] and "AttributeError" in problems[0]


def test_trees_are_not_modified():
    tree = T("(S (NP-SBJ (-NONE- *)) (PRT|ADVP (RP up)) (NN {) (VP (VBD left)) (. .))")
    before = tree.to_string()
    traces([tree], [tree])
    assert tree.to_string() == before


# ---------------------------------------------------------------------------------------
# scoring and report
# ---------------------------------------------------------------------------------------
def test_membership_not_multiset_precision_above_100():
    # reference quirk: a gold item is matched if it appears anywhere in the test list.
    # Both nulls give ("no-link_*_NP", 0); the test has it once: matched 2, test 1.
    gold = "(S (NP (-NONE- *)) (NP (-NONE- *)) (VP (VBD left)))"
    test = "(S (NP (-NONE- *)) (VP (VBD left)))"
    r = traces([gold], [test])
    assert r.per_sentence == [[2, 2, 1]]
    assert r.all["precision"] == 200.0 and r.all["recall"] == 100.0
    assert r.by_type["no-link_*_NP"]["matched"] == 2
    # "all" sorts before "no-link_*_NP" (same gold count, then by name), as the script sorts
    assert r.report() == ("all 2 2 1 200.0 100.0 133.333333333\n"
                          "no-link_*_NP 2 2 1 200.0 100.0 133.333333333\n")


def test_report_as_the_script_prints_it():
    gold = [WH_REL, "(S (NP-SBJ (-NONE- *)) (VP (VBD left)))",
            "(S (NP-SBJ-1 (NNP Al)) (VP (VBD was) (VP (VBN hit) (NP (-NONE- *-1)))))"]
    test = [WH_REL, "(S (NP (-NONE- *)) (VP (VBD left) (NP (-NONE- *?*))))",
            "(S (NP-SBJ (NNP Al)) (VP (VBD was) (VP (VBN hit))))"]
    r = traces(gold, test)
    assert r.per_sentence == [[2, 2, 2], [1, 1, 2], [0, 1, 0]]
    # sorted by (gold count, type); a type with no match prints F as the integer 0
    assert r.report() == (
        "no-link_*?*_NP 0 0 1 0.0 0.0 0\n"
        "*T*_WHNP_NP 1 1 1 100.0 100.0 100.0\n"
        "*_NP_NP 0 1 0 0.0 0.0 0\n"
        "no-link_*_NP 1 1 1 100.0 100.0 100.0\n"
        "no-link_0_WHNP 1 1 1 100.0 100.0 100.0\n"
        "all 3 4 4 75.0 75.0 75.0\n")
    assert r.all == {"matched": 3, "gold": 4, "test": 4, "precision": 75.0, "recall": 75.0, "f1": 75.0}
    assert list(r.by_type) == ["no-link_*?*_NP", "*T*_WHNP_NP", "*_NP_NP", "no-link_*_NP", "no-link_0_WHNP"]
    assert r.by_type["*_NP_NP"] == {"matched": 0, "gold": 1, "test": 0, "precision": 0.0, "recall": 0.0,
                                    "f1": 0.0}
    frame = r.sentences
    assert list(frame["matched"]) == [2, 1, 0] and list(frame["test"]) == [2, 2, 0]
    assert frame.loc[0, "matched_items"] == "('no-link_0_WHNP', 1); ('*T*_WHNP_NP', 2, (1, 3))"
    assert frame.loc[1, "test_items"] == "('no-link_*_NP', 0); ('no-link_*?*_NP', 0)"
    assert list(frame["same_words"]) == [True, True, True]
    # words a 0, b 1, c 2: gold items (*, 0), (*?*, 1), (*U*, 2); the test has the first two
    two_thirds = traces(["(S (NP (-NONE- *)) (VP (VBD a) (PP (IN b) (NP (-NONE- *?*))) "
                         "(PP (IN c) (NP (-NONE- *U*)))))"],
                        ["(S (NP (-NONE- *)) (VP (VBD a) (PP (IN b) (NP (-NONE- *?*)))))"])
    assert two_thirds.report().splitlines()[-1] == "all 2 3 2 100.0 66.6666666667 80.0"


def test_all_line_needs_gold_and_test_items():
    # the script prints "all" only when both totals are positive
    r = traces([WH_REL], ["(ROOT (NP (NP (NNS books)) (SBAR (S (NP-SBJ (PRP I)) (VP (VBD read))))))"])
    assert r.report() == "*T*_WHNP_NP 0 1 0 0.0 0.0 0\nno-link_0_WHNP 0 1 0 0.0 0.0 0\n"
    assert r.all["recall"] == 0.0 and r.all["gold"] == 2


def test_empty_test_tree_adds_to_no_total():
    # reference quirk: an empty test tree adds to no total (not even the gold count); its
    # row shows the gold items of the *unedited* gold tree.  Unedited words: `` 0, John 1,
    # tried 2, to 3, go 4, "," 5 -- so the no-link null keeps "" (its NP spans the comma).
    second = ("(S (`` ``) (NP-SBJ-1 (NNP John)) (VP (VBD tried) (S (NP-SBJ (-NONE- *-1)) "
              "(VP (TO to) (VP (VB go) (NP (-NONE- *) (, ,)))))))")
    for empty in (None, "", "()"):
        r = traces([WH_REL, second], [WH_REL, empty])
        assert r.per_sentence == [[2, 2, 2], [0, 2, 0]]
        assert r.all == {"matched": 2, "gold": 2, "test": 2, "precision": 100.0, "recall": 100.0, "f1": 100.0}
        assert r.n_empty_test == 1 and bool(r.sentences.loc[1, "empty_test"])
        assert r.sentences.loc[1, "gold_items"] == "('no-link_*_', 5); ('*_NP_NP', 3, (1, 2))"
    # all test trees empty: no line at all
    assert traces([WH_REL], [None]).report() == ""


def test_bad_api_input():
    with pytest.raises(InputError, match="gold .* has 2 sentences, test .* has 1"):
        traces([WH_REL, WH_REL], [WH_REL])
    with pytest.raises(InputError, match="gold tree is empty"):
        traces([None], [WH_REL])
    with pytest.raises(InputError, match="unbalanced"):
        traces([WH_REL], [WH_REL[:-1]])
    with pytest.raises(InputError, match="holds 2 trees"):
        traces([WH_REL], [WH_REL + WH_REL])


# ---------------------------------------------------------------------------------------
# the real PTB sample
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sample(sample_dir):
    from plgraph.data import sample_files

    files = sample_files("all")
    pairs = [p for f in files for p in read_trace_file(f, side="gold")]
    text = "".join(f.read_text() for f in files)
    return pairs, text


def _strip_nulls(tree):
    """Copy of ``tree`` without -NONE- leaves and without constituents left empty."""
    out = tree.copy()
    stack = [out]
    order = []
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(c for c in node.children if c.word is None)
    for node in reversed(order):  # children before parents
        node.children = [c for c in node.children
                         if (c.word is not None and c.label != "-NONE-") or (c.word is None and c.children)]
    return out


def test_gold_against_gold_is_100_on_the_sample(sample):
    pairs, text = sample
    ids = [sid for sid, _ in pairs]
    trees = [t for _, t in pairs]
    r = traces(trees, trees, ids=ids)
    assert len(trees) == 3914
    # independent count: one item per -NONE- leaf plus one per gapping label X=N
    n_null = text.count("(-NONE- ")
    n_gap = len(re.findall(r"\([^\s()-][^\s()]*=\d", text))
    assert r.all == {"matched": n_null + n_gap, "gold": n_null + n_gap, "test": n_null + n_gap,
                     "precision": 100.0, "recall": 100.0, "f1": 100.0}
    # the sample holds duplicate items (two *U* of one QP, ...): matched counts each gold
    # occurrence, test counts each too, so gold against gold stays exactly 100
    for typ, v in r.by_type.items():
        assert v["precision"] == v["recall"] == v["f1"] == 100.0, typ
    assert r.by_type["gap"]["gold"] == n_gap
    assert all(m == g == t for m, g, t in r.per_sentence)
    # the script would crash on three sample sentences (checked by hand: wsj_0118.55 has
    # *T*-2 and no -2 node, wsj_0118.69 *-1 and no -1, wsj_0137.50 ADJP-PRD=1 and no -1)
    assert sorted({(p.id, p.side) for p in r.problems}) == [
        ("wsj_0118.55", "gold"), ("wsj_0118.55", "test"), ("wsj_0118.69", "gold"), ("wsj_0118.69", "test"),
        ("wsj_0137.50", "gold"), ("wsj_0137.50", "test")]
    rn = traces(trees, trees, null_only=True)
    assert rn.all["gold"] == n_null and rn.all["f1"] == 100.0
    assert all(t.startswith("no-link_") for t in rn.by_type)


def test_nulls_removed_score_recall_zero(sample):
    pairs, _ = sample
    ids = [sid for sid, _ in pairs]
    trees = [t for _, t in pairs]
    r = traces(trees, [_strip_nulls(t) for t in trees], ids=ids)
    for typ, v in r.by_type.items():
        if typ != "gap":
            assert v["matched"] == 0 and v["recall"] == 0.0 and v["test"] == 0, typ
    # gapping has no null, except wsj_0098.15 whose correlate SBAR-ADV-3 is (-NONE- *NOT*):
    # stripped, the =3 node has no -3 node left and its item loses the correlate
    gap = r.by_type["gap"]
    assert gap["test"] == gap["gold"] and gap["matched"] == gap["gold"] - 1
    assert ("wsj_0098.15", "test") in {(p.id, p.side) for p in r.problems}


def test_one_index_changed_loses_exactly_its_item(sample):
    pairs, _ = sample
    by_id = dict(pairs)
    gold = by_id["wsj_0003.11"]
    text = gold.to_string()
    # after the edits: From 0, 1953 1, to 2, 1955 3, 9.8 4, billion 5, Kent 6, cigarettes 7,
    # with 8, the 9, filters 10, were 11, sold 12, the 13, company 14, said 15
    assert tree_items(gold)[0] == [("no-link_0_SBAR", 15), ("*_NP_NP", 12, (4, 11)), ("*T*_S_S", 15, (0, 13))]
    # *T*-1 (antecedent S-TPC-1) re-pointed at NP-SBJ-3
    r = traces([gold], [text.replace("*T*-1", "*T*-3")])
    assert r.per_sentence == [[2, 3, 3]]
    assert r.by_type["*T*_S_S"] == {"matched": 0, "gold": 1, "test": 0, "precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert r.by_type["*T*_NP_S"]["test"] == 1
    assert r.sentences.loc[0, "test_items"].endswith("('*T*_NP_S', 15, (4, 11))")
    # *-3 re-pointed at a missing index: the script crashes, plgraph scores and says so
    r = traces([gold], [text.replace("*-3", "*-9")])
    assert r.per_sentence == [[2, 3, 3]] and r.by_type["*__NP"]["test"] == 1
    assert [(p.side, "KeyError" in p.reason) for p in r.problems] == [("test", True)]
    # across the sample: changing one co-index to an unused number loses exactly one match
    changed = 0
    for sid, tree in pairs:
        nulls = [n for n in tree.subtrees() if n.label == "-NONE-" and re.fullmatch(r"\*T\*-\d+", n.word)]
        if not nulls:
            continue
        test = tree.copy()
        target = next(n for n in test.subtrees() if n.label == "-NONE-" and n.word == nulls[0].word)
        target.word = "*T*-99"
        gi = tree_items(tree)[0]
        lost = [it for it in gi if it not in tree_items(test)[0]]
        if len(lost) != 1 or gi.count(lost[0]) != 1:
            continue  # a duplicated item (rare): not this check's case
        r = traces([tree], [test])
        m, g, t = r.per_sentence[0]
        assert (m, g, t) == (len(gi) - 1, len(gi), len(gi)), sid
        assert lost[0][0].startswith("*T*_")
        changed += 1
    assert changed > 1000


# ---------------------------------------------------------------------------------------
# files and the command line
# ---------------------------------------------------------------------------------------
def test_read_layouts(tmp_path):
    multi = tmp_path / "multi.mrg"
    multi.write_text("\n( (S\n   (NP (-NONE- *))\n   (VP (VBD left))))\n\n(ROOT (S (NP (NNP Al)) (VP (VBD went))))\n"
                     "(TOP (S (NP (NNP Bo)) (VP (VBD sat))))\n\n")
    got = read_trace_file(multi)
    assert [sid for sid, _ in got] == ["multi.0", "multi.1", "multi.2"]
    assert got[0][1].label == "" and got[2][1].label == "TOP"  # no homogenising, as the script
    lines = tmp_path / "lines.ptb"
    lines.write_text("(S (NP (NNP Al)) (VP (VBD went)))\n\n(S (NP (NNP Bo)) (VP (VBD sat))) ()\n"
                     "(S (NP (NNP Cy)) (VP (VBD ran)))\n\n\n")
    got = read_trace_file(lines)
    assert [t is None for _, t in got] == [False, True, False, True, False]
    assert got[4][1].words() == ["Cy", "ran"]
    with pytest.raises(InputError, match="gold tree is empty"):
        read_trace_file(lines, side="gold")


def _run(argv, capsys):
    from plgraph.cli import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_scores_and_writes_json(tmp_path, capsys):
    gold = tmp_path / "gold.ptb"
    test = tmp_path / "test.ptb"
    gold.write_text(WH_REL + "\n" + "(S (NP-SBJ (-NONE- *-5)) (VP (VBD left)))\n")
    test.write_text(WH_REL.replace("*T*-1", "*T*-3") + "\n()\n")
    out_json = tmp_path / "sub" / "scores.json"
    code, out, err = _run(["eval", "traces", str(gold), str(test), "--json", str(out_json)], capsys)
    assert code == 0
    # words books 0, I 1, read 2: the test's *T*-3 dangles; the second test tree is empty
    assert out == ("*T*__NP 0 0 1 0.0 0.0 0\n"
                   "*T*_WHNP_NP 0 1 0 0.0 0.0 0\n"
                   "no-link_0_WHNP 1 1 1 100.0 100.0 100.0\n"
                   "all 1 2 2 50.0 50.0 50.0\n")
    assert "2 sentence(s) scored where the reference script crashes" in err
    assert "gold.0 (test, sentence 1)" in err and "gold.1 (gold, sentence 2)" in err
    assert "1 empty test tree" in err
    doc = json.loads(out_json.read_text())
    assert {"all", "by_type", "per_sentence"} <= set(doc)
    assert set(doc["all"]) == {"matched", "gold", "test", "precision", "recall", "f1"}
    assert doc["per_sentence"] == [[1, 2, 2], [0, 1, 0]]
    assert set(doc["by_type"]["no-link_0_WHNP"]) == set(doc["all"])
    code, out, _ = _run(["eval", "traces", str(gold), str(gold), "--null-only"], capsys)
    assert code == 0 and out.splitlines()[-1] == "all 3 3 3 100.0 100.0 100.0"


def test_cli_bad_input(tmp_path, capsys):
    good = tmp_path / "good.ptb"
    good.write_text(WH_REL + "\n" + WH_REL + "\n")
    short = tmp_path / "short.ptb"
    short.write_text(WH_REL + "\n")
    broken = tmp_path / "broken.ptb"
    broken.write_text(WH_REL + "\n" + WH_REL[:-2] + "\n")
    code, out, err = _run(["eval", "traces", str(good), str(short)], capsys)
    assert code == 2 and out == ""
    assert err.startswith("plgraph eval: error: ") and f"has 2 trees, test {short} has 1" in err
    assert "sentence good.1" in err
    code, _, err = _run(["eval", "traces", str(good), str(broken)], capsys)
    assert code == 2 and f"{broken}:2" in err and "sentence broken.1" in err and "unbalanced" in err
    code, _, err = _run(["eval", "traces", str(short), str(tmp_path / "missing.ptb")], capsys)
    assert code == 2 and "missing.ptb" in err
    code, _, err = _run(["eval", "traces", str(short), str(short), "--json", str(tmp_path)], capsys)
    assert code == 2 and "plgraph eval: error:" in err


def test_cli_direct(tmp_path, capsys):
    from plgraph.eval.traces import cli_main

    f = tmp_path / "g.ptb"
    f.write_text(GAPPING + "\n")
    args = types.SimpleNamespace(gold=str(f), test=str(f), null_only=False, json=None)
    assert cli_main(args) == 0
    assert capsys.readouterr().out == "all 2 2 2 100.0 100.0 100.0\ngap 2 2 2 100.0 100.0 100.0\n"
