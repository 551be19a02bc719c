"""Graph scores (plgraph.eval.graphs): the categories of the reference's evaluation/shp-eval.py
plus trace edges as the seed counts them.

Oracles: hand-checked SHP fixtures (counts worked out by hand from reading shp-eval.py), counts
taken straight from the raw text of the reference SHP files, independent counts from the Graph
edge arrays, and figures printed by the reference script itself (noted where used).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from plgraph.errors import InputError
from plgraph.eval.graphs import CATEGORIES, REFERENCE_CATEGORIES, graphs, prf
from plgraph.graph import STRUCTURAL, TRACE, Graph
from plgraph.shp import read_shp, read_shp_string, write_shp

# ---------------------------------------------------------------------------------------
# hand-checked fixture
# ---------------------------------------------------------------------------------------
# Sentence fx.0: word 1 has two trace groups to word 4 (same target, other node and type),
# word 4 a self loop.  Sentence fx.1 has no traces.  Sentence fx.2 gets a spurious trace
# in the test.
GOLD = """\
# SentID fx.0
1 Who  WP  WHNP      4 SBAR_0 4 NP_0 T WHNP_0 F *T* 4 S_0 F WHNP_0 F *ICH*
2 did  VBD _         4 VP_0
3 John NNP NP-SBJ    4 S_0
4 see  VB  VP_S_SBAR 0 ROOT_0 4 NP-SBJ_0 T NP_0 T *

# SentID fx.1
1 Hello UH INTJ 0 ROOT_0
2 .     .  _    1 INTJ_0

# SentID fx.2
1 It    PRP NP-SBJ 2 S_0
2 rains VBZ VP_S   0 ROOT_0
"""
# fx.0: word 2 moves to word 3 (labelled and unlabelled edge lost), word 3 keeps its parent
# but attaches to another node (labelled edge lost only) and has another spine; word 2's
# tag differs (tags are not scored); the *ICH* group and the self loop are gone.
TEST = """\
# SentID fx.0
1 Who  WP  WHNP      4 SBAR_0 4 NP_0 T WHNP_0 F *T*
2 did  VBZ _         3 VP_0
3 John NNP NP        4 VP_0
4 see  VB  VP_S_SBAR 0 ROOT_0

# SentID fx.1
1 Hello UH INTJ 0 ROOT_0
2 .     .  _    1 INTJ_0

# SentID fx.2
1 It    PRP NP-SBJ 2 S_0    2 S_0 F NP-SBJ_0 F *
2 rains VBZ VP_S   0 ROOT_0
"""

# Worked out by hand from shp-eval.py's read_parse/main loops:
#   fx.0 spines WHNP _ NP-SBJ VP_S_SBAR vs WHNP _ NP VP_S_SBAR: 3 of 4
#        edges "1 4 SBAR_0" "2 4 VP_0" "3 4 S_0" "4 0 ROOT_0" vs "... 2 3 VP_0, 3 4 VP_0 ...": 2 of 4
#        unlabelled "1 4" "2 4" "3 4" "4 0" vs "1 4" "2 3" "3 4" "4 0": 3 of 4
#        labelled traces gold 3 (two on word 1, the self loop on word 4), test 1, matched 1 (*T*)
#        unlabelled traces gold ["1 4", "1 4"] + ["4 4"], test ["1 4"]: matched 2 (reference quirk)
#        seed unlabelled {(1, 4)} vs {(1, 4)}: 1/1/1 (self loop 4->4 not counted, duplicate collapsed)
#        seed labelled {(1,4,NP_0), (1,4,S_0)} vs {(1,4,NP_0)}: 1/2/1
#   fx.1 2/2 everywhere on spines and edges, no traces
#   fx.2 spines and edges 2/2; test adds one trace "1 2 S_0 F NP-SBJ_0 F *": labelled and
#        unlabelled traces 0/0/1, seed 0/0/1 each
HAND_TOTALS = {
    "labeled_spine": (7, 8, 8),
    "labeled_edge": (6, 8, 8),
    "labeled_trace": (1, 3, 2),
    "unlabeled_edge": (7, 8, 8),
    "unlabeled_trace": (2, 3, 2),
    "seed_unlabeled_trace_edge": (1, 1, 2),
    "seed_labeled_trace_edge": (1, 2, 2),
}
HAND_REPORT = """\
labeled spine       7    8    8    87.5 87.5 87.5
labeled edge       6    8    8    75.0 75.0 75.0
labeled trace       1    3    2    50.0 33.3 40.0
unlabeled edge       7    8    8    87.5 87.5 87.5
unlabeled trace       2    3    2    100.0 66.7 80.0
Processed 3
seed unlabeled-trace-edge       1    1    2    50.0 100.0 66.7
seed labeled-trace-edge       1    2    2    50.0 50.0 50.0
"""


@pytest.fixture
def hand():
    return read_shp_string(GOLD, "gold.shp"), read_shp_string(TEST, "test.shp")


def _counts(result, cat):
    t = result.totals[cat]
    return t["matched"], t["gold"], t["test"]


def test_hand_fixture_totals(hand):
    res = graphs(*hand)
    for cat in CATEGORIES:
        assert _counts(res, cat) == HAND_TOTALS[cat], cat
    t = res.totals["labeled_trace"]
    assert t["precision"] == 50.0 and t["recall"] == pytest.approx(100 / 3) and t["f1"] == pytest.approx(40.0)


def test_hand_fixture_report_is_the_reference_layout(hand):
    # "{prefix} {word}    {m:>4} {g:>4} {a:>4}    {p:.1f} {r:.1f} {f:.1f}", labelled block, unlabelled
    # block, "Processed N", then the seed-style rows in the same layout
    assert graphs(*hand).report() == HAND_REPORT


def test_hand_fixture_per_sentence(hand):
    df = graphs(*hand).sentences
    assert list(df["id"]) == ["fx.0", "fx.1", "fx.2"]
    assert list(df["position"]) == [0, 1, 2] and list(df["words"]) == [4, 2, 2]
    row = df.iloc[0]
    assert (row.labeled_spine_matched, row.labeled_spine_gold, row.labeled_spine_test) == (3, 4, 4)
    assert (row.labeled_edge_matched, row.unlabeled_edge_matched) == (2, 3)
    assert (row.labeled_trace_matched, row.labeled_trace_gold, row.labeled_trace_test) == (1, 3, 1)
    assert (row.seed_labeled_trace_edge_matched, row.seed_labeled_trace_edge_gold,
            row.seed_labeled_trace_edge_test) == (1, 2, 1)
    last = df.iloc[2]
    assert (last.unlabeled_trace_matched, last.unlabeled_trace_gold, last.unlabeled_trace_test) == (0, 0, 1)


def test_reference_quirk_list_membership_lets_precision_pass_100(hand):
    # reference quirk: shp-eval.py tests `trace in aparse[i][2]` for every gold item, so the two
    # gold items "1 4" of fx.0 both match the single test item "1 4": 2 matched of 1 test item
    res = graphs(hand[0][:1], hand[1][:1])
    assert _counts(res, "unlabeled_trace") == (2, 3, 1)
    assert res.totals["unlabeled_trace"]["precision"] == 200.0
    # the seed's set semantics collapse the duplicate and drop the self loop 4 -> 4
    assert _counts(res, "seed_unlabeled_trace_edge") == (1, 1, 1)


def test_reference_quirk_duplicate_labelled_groups():
    # reference quirk: two identical 6-field groups on one gold line, one in the test: both match
    words, tags, spines = ["a", "b"], ["DT", "NN"], ["_", "NP"]
    s = [(1, 2, STRUCTURAL, "NP_0", False, "_", False, "_"), (2, 0, STRUCTURAL, "ROOT_0", False, "NP_0", False, "_")]
    tr = (1, 2, TRACE, "NP_0", True, "DT_0", False, "*")
    g = Graph.from_edges(words, tags, spines, s + [tr, tr], id="d.0")
    t = Graph.from_edges(words, tags, spines, s + [tr], id="d.0")
    res = graphs([g], [t])
    assert _counts(res, "labeled_trace") == (2, 2, 1)
    assert res.totals["labeled_trace"]["precision"] == 200.0 and res.totals["labeled_trace"]["recall"] == 100.0
    assert _counts(res, "seed_labeled_trace_edge") == (1, 1, 1)


def test_reference_quirk_zero_denominators_give_zero():
    # reference quirk: results() sets p = 0.0 when there are no test items and r = 0.0 when there
    # are no gold items, f = 0.0 when p + r == 0 -- no "undefined"
    assert prf(0, 5, 0) == (0.0, 0.0, 0.0)
    assert prf(0, 0, 3) == (0.0, 0.0, 0.0)
    assert prf(0, 0, 0) == (0.0, 0.0, 0.0)
    assert prf(3, 4, 6) == pytest.approx((50.0, 75.0, 60.0))


def test_sentences_without_traces_score_trace_zero_against_themselves(hand):
    # reference quirk (as above): gold against gold on fx.1 alone has 0 trace items, so P/R/F 0.0
    res = graphs(hand[0][1:2], hand[0][1:2])
    assert res.totals["labeled_spine"]["f1"] == 100.0
    for cat in ("labeled_trace", "unlabeled_trace") + tuple(CATEGORIES[5:]):
        assert res.totals[cat] == {"matched": 0, "gold": 0, "test": 0, "precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_last_block_without_blank_line_is_scored(hand):
    # plgraph differs from the reference here: shp-eval.py's read_parse returns (None, None) at the
    # end of the file before it sees a blank line, so it drops a last block with none after it
    # (the reference SHP files end so: the script prints "Processed 232" for their 233 blocks)
    gold = read_shp_string(GOLD.rstrip("\n"), "gold.shp")
    assert len(gold) == 3 and graphs(gold, hand[1]).n_sentences == 3


# ---------------------------------------------------------------------------------------
# mismatched inputs
# ---------------------------------------------------------------------------------------
def test_different_sentence_counts_name_both_files_and_the_sentence(hand):
    # shp-eval.py prints "Failed on gold ... test None" and stops with the partial scores; plgraph errors
    with pytest.raises(InputError) as err:
        graphs(hand[0], hand[1][:2], gold_name="g.shp", test_name="t.shp")
    text = str(err.value)
    assert "g.shp" in text and "t.shp" in text and "3 sentences" in text and "has 2" in text
    assert "fx.2" in text and "block 3" in text


def test_different_words_name_both_files_and_the_sentence(hand):
    # shp-eval.py never reads the words: it scores position by position; plgraph errors
    bad = read_shp_string(TEST.replace("John", "Mary"), "t.shp")
    with pytest.raises(InputError) as err:
        graphs(hand[0], bad, gold_name="g.shp", test_name="t.shp")
    text = str(err.value)
    assert "g.shp" in text and "t.shp" in text and "fx.0" in text and "block 1" in text
    assert "word 3 is 'John' in gold, 'Mary' in test" in text
    short = read_shp_string(TEST.replace("2 .     .  _    1 INTJ_0\n", ""), "t.shp")
    with pytest.raises(InputError, match=r"fx.1, block 2.*gold has 2 words, test 1"):
        graphs(hand[0], short, gold_name="g.shp", test_name="t.shp")


# ---------------------------------------------------------------------------------------
# real data
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sample_all(sample_dir):
    import plgraph

    return plgraph.corpus("all").graphs()


def _independent_counts(gs):
    """Gold-side counts straight from the Graph arrays (not via the SHP items)."""
    words = sum(len(g.words) for g in gs)
    groups = sum(int((g.kind == TRACE).sum()) for g in gs)
    seed_u = seed_l = 0
    for g in gs:
        m = (g.kind == TRACE) & (g.child != g.parent)
        seed_u += len(set(zip(g.child[m].tolist(), g.parent[m].tolist())))
        seed_l += len(set(zip(g.child[m].tolist(), g.parent[m].tolist(), g.label[m].tolist())))
    return {"labeled_spine": words, "labeled_edge": words, "unlabeled_edge": words, "labeled_trace": groups,
            "unlabeled_trace": groups, "seed_unlabeled_trace_edge": seed_u, "seed_labeled_trace_edge": seed_l}


def _assert_all_100(res, expected_gold):
    for cat in CATEGORIES:
        t = res.totals[cat]
        assert t["matched"] == t["gold"] == t["test"] == expected_gold[cat], cat
        assert (t["precision"], t["recall"], t["f1"]) == (100.0, 100.0, 100.0), cat


def test_gold_against_gold_is_100_on_the_whole_sample(sample_all):
    assert len(sample_all) == 3914
    expected = _independent_counts(sample_all)
    assert expected["labeled_trace"] > 3000 and expected["seed_unlabeled_trace_edge"] > 3000
    res = graphs(sample_all, sample_all)
    _assert_all_100(res, expected)
    assert res.n_sentences == 3914


def test_gold_against_gold_is_100_on_the_reference_shp(reference_shp_dir):
    files = sorted(Path(reference_shp_dir).glob("*.shp"))
    assert len(files) == 4
    for path in files:
        text = path.read_text(encoding="utf-8")
        token = [line.split() for line in text.splitlines() if line.strip() and not line.startswith("#")]
        gs = read_shp(path)
        assert len(gs) == text.count("# SentID") == 233
        expected = _independent_counts(gs)
        # oracle from the raw text: one spine and edge per token line, one trace per 6-field group
        assert expected["labeled_spine"] == len(token)
        assert expected["labeled_trace"] == sum((len(p) - 6) // 6 for p in token)
        _assert_all_100(graphs(gs, gs), expected)


# printed by the reference script (python3 evaluation/shp-eval.py, commit aabc089) on the reference
# files with a blank line appended (so that it reads the 233rd block too; see above)
REFERENCE_SCRIPT_FIGURES = {
    "collins-heads": {"labeled_spine": (4826, 5607, 5607), "labeled_edge": (4339, 5607, 5607),
                      "labeled_trace": (117, 209, 209), "unlabeled_edge": (4339, 5607, 5607),
                      "unlabeled_trace": (117, 209, 209)},
    "no-null-reversal": {"labeled_spine": (5607, 5607, 5607), "labeled_edge": (5607, 5607, 5607),
                         "labeled_trace": (179, 209, 209), "unlabeled_edge": (5607, 5607, 5607),
                         "unlabeled_trace": (204, 209, 209)},
    "gapping-shift": {"labeled_spine": (5607, 5607, 5607), "labeled_edge": (5607, 5607, 5607),
                      "labeled_trace": (205, 209, 209), "unlabeled_edge": (5607, 5607, 5607),
                      "unlabeled_trace": (205, 209, 209)},
}


@pytest.mark.parametrize("variant", sorted(REFERENCE_SCRIPT_FIGURES))
def test_main_against_variants_as_the_reference_script_prints(reference_shp_dir, variant):
    gold = read_shp(Path(reference_shp_dir) / "wsj_0001-0020.main.shp")
    test = read_shp(Path(reference_shp_dir) / f"wsj_0001-0020.{variant}.shp")
    res = graphs(gold, test)
    for cat in REFERENCE_CATEGORIES:
        assert _counts(res, cat) == REFERENCE_SCRIPT_FIGURES[variant][cat], cat


def _leaf_and_new_parent(g):
    heads = g.heads()
    n = len(g.words)
    for w in range(1, n + 1):
        if heads[w - 1] != 0 and w not in heads:
            others = [p for p in range(1, n + 1) if p not in (w, heads[w - 1])]
            if others:
                return w, others[0]
    raise AssertionError("no leaf to move")


def _with_structural(g, word, parent, label):
    edges = []
    for e in g.edge_tuples():
        if e[2] == STRUCTURAL and e[0] == word:
            e = (word, parent, STRUCTURAL, label) + tuple(e[4:])
        edges.append(e)
    return Graph.from_edges(g.words, g.tags, g.spines, edges, id=g.id, options=g.options)


def test_one_moved_structural_edge_loses_exactly_that_edge(sample_all):
    gold = sample_all[:200]
    k = next(i for i, g in enumerate(gold) if (g.kind == TRACE).any() and len(g.words) > 5)
    g = gold[k]
    word, new_parent = _leaf_and_new_parent(g)
    old_label = g.label[(g.kind == STRUCTURAL) & (g.child == word)][0]
    expected = _independent_counts(gold)
    test = list(gold)
    # new parent, new node: the labelled and the unlabelled edge of that word are lost, nothing else
    test[k] = _with_structural(g, word, new_parent, "XP_0")
    assert test[k].structural_problem() is None
    res = graphs(gold, test)
    for cat in CATEGORIES:
        lost = 1 if cat in ("labeled_edge", "unlabeled_edge") else 0
        assert _counts(res, cat) == (expected[cat] - lost, expected[cat], expected[cat]), cat
    row = res.sentences.iloc[k]
    assert row.labeled_edge_matched == row.labeled_edge_gold - 1 == len(g.words) - 1
    assert (res.sentences.drop(index=k).labeled_edge_matched == res.sentences.drop(index=k).labeled_edge_gold).all()
    # same parent, other node: only the labelled edge is lost
    old_parent = int(g.heads()[word - 1])
    assert old_label != "XP_0"
    test[k] = _with_structural(g, word, old_parent, "XP_0")
    res = graphs(gold, test)
    assert _counts(res, "labeled_edge")[0] == expected["labeled_edge"] - 1
    assert _counts(res, "unlabeled_edge")[0] == expected["unlabeled_edge"]


def _without_traces(g):
    keep = [e for e in g.edge_tuples() if e[2] == STRUCTURAL]
    return Graph.from_edges(g.words, g.tags, g.spines, keep, id=g.id, options=g.options)


def test_traces_removed_recall_0_and_precision_as_the_reference(sample_dir):
    import plgraph

    gold = plgraph.corpus("dev").graphs()
    assert len(gold) == 433
    test = [_without_traces(g) for g in gold]
    expected = _independent_counts(gold)
    res = graphs(gold, test)
    for cat in ("labeled_trace", "unlabeled_trace", "seed_unlabeled_trace_edge", "seed_labeled_trace_edge"):
        assert expected[cat] > 100
        # 0 test items: the reference reports precision 0.0 (not undefined), recall 0, F 0
        assert res.totals[cat] == {"matched": 0, "gold": expected[cat], "test": 0,
                                   "precision": 0.0, "recall": 0.0, "f1": 0.0}, cat
    for cat in ("labeled_spine", "labeled_edge", "unlabeled_edge"):
        assert res.totals[cat]["f1"] == 100.0


# ---------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------
def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_cli_report_and_json(tmp_path, capsys):
    from plgraph.cli import main

    g, t = _write(tmp_path, "g.shp", GOLD), _write(tmp_path, "t.shp", TEST)
    out = tmp_path / "sub" / "scores.json"
    assert main(["eval", "graphs", g, t, "--json", str(out)]) == 0
    assert capsys.readouterr().out == HAND_REPORT
    doc = json.loads(out.read_text())
    assert set(doc) == set(CATEGORIES) | {"sentences", "per_sentence"}
    for cat in CATEGORIES:
        assert set(doc[cat]) == {"matched", "gold", "test", "precision", "recall", "f1"}
        assert (doc[cat]["matched"], doc[cat]["gold"], doc[cat]["test"]) == HAND_TOTALS[cat]
    assert doc["sentences"] == 3 and len(doc["per_sentence"]) == 3
    first = doc["per_sentence"][0]
    assert (first["id"], first["position"], first["words"]) == ("fx.0", 0, 4)
    assert first["unlabeled_trace"] == [2, 3, 1] and first["labeled_spine"] == [3, 4, 4]
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".tmp-")]


def test_cli_gold_against_gold_on_the_sample_files(tmp_path, sample_all, capsys):
    from plgraph.cli import main

    path = tmp_path / "gold.shp"
    write_shp(sample_all, path)
    assert main(["eval", "graphs", str(path), str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 8 and lines[5] == "Processed 3914"
    assert all(line.endswith("100.0 100.0 100.0") for i, line in enumerate(lines) if i != 5)


@pytest.mark.parametrize("case", ["count", "words", "missing", "malformed", "empty", "json_dir"])
def test_cli_bad_input_exit_2_with_message(tmp_path, capsys, case):
    from plgraph.eval.graphs import cli_main
    from types import SimpleNamespace

    g = _write(tmp_path, "g.shp", GOLD)
    t = _write(tmp_path, "t.shp", TEST)
    json_path = None
    if case == "count":
        t = _write(tmp_path, "t.shp", TEST.split("\n\n")[0] + "\n")
        want = ["g.shp", "t.shp", "fx.1, block 2", "3 sentences"]
    elif case == "words":
        t = _write(tmp_path, "t.shp", TEST.replace("rains", "pours"))
        want = ["g.shp", "t.shp", "fx.2, block 3", "word 2 is 'rains' in gold, 'pours' in test"]
    elif case == "missing":
        t = str(tmp_path / "nope.shp")
        want = ["nope.shp", "No such file"]
    elif case == "malformed":
        t = _write(tmp_path, "t.shp", TEST.replace("3 John NNP NP        4 VP_0", "3 John NNP NP 4"))
        want = ["t.shp:", "fx.0", "6 fields"]
    elif case == "empty":
        t = _write(tmp_path, "t.shp", "\n\n")
        want = ["t.shp", "no sentences"]
    else:
        json_path = str(tmp_path)
        want = ["cannot write", "directory"]
    code = cli_main(SimpleNamespace(gold=g, test=t, json=json_path))
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.startswith("plgraph eval: error: ") and "Traceback" not in captured.err
    for piece in want:
        assert piece in captured.err, (piece, captured.err)
    assert captured.out == ""


def test_per_sentence_frame_sums_to_totals(sample_all):
    gold = sample_all[:300]
    test = [_without_traces(g) if i % 3 == 0 else g for i, g in enumerate(gold)]
    res = graphs(gold, test)
    df = res.sentences
    for cat in CATEGORIES:
        sums = tuple(int(df[f"{cat}_{x}"].sum()) for x in ("matched", "gold", "test"))
        assert sums == _counts(res, cat)
    assert np.array_equal(df["position"].to_numpy(), np.arange(300))
