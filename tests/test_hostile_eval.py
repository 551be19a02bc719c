"""``plgraph eval trees|traces|graphs`` on hostile input: gold and test files whose
sentences are paired in another order, and empty files.  Every expected number below is
worked out by hand from the tiny trees and graphs written in each test."""
from __future__ import annotations

import pytest

from plgraph.cli import main

pytestmark = pytest.mark.timeout(120)

# words: books 0, I 1, read 2 -- items ("no-link_0_WHNP", 1), ("*T*_WHNP_NP", 2, (1, 3))
WH_REL = ("(ROOT (NP (NP (NNS books)) (SBAR (WHNP-1 (-NONE- 0)) "
          "(S (NP-SBJ (PRP I)) (VP (VBD read) (NP (-NONE- *T*-1)))))))")
# words: Al 0, was 1, hit 2 -- item ("*_NP_NP", 2, (0, 1))
PASSIVE = "(ROOT (S (NP-SBJ-1 (NNP Al)) (VP (VBD was) (VP (VBN hit) (NP (-NONE- *-1))))))"

TREE_A = "(S (NP (DT the) (NN dog)) (VP (VBD barked)))"
TREE_B = "(S (NP (DT a) (NN cat)) (VP (VBD sat)))"

SHP_A = "# SentID s.0\n1 Hello UH INTJ 0 ROOT_0\n2 .     .  _    1 INTJ_0\n"
SHP_B = "# SentID s.1\n1 It    PRP NP-SBJ 2 S_0\n2 rains VBZ VP_S   0 ROOT_0\n"


def _file(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------------------
# sentences in another order
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind,ext,first,second,where,diff", [
    ("traces", "ptb", WH_REL, PASSIVE, "sentence gold.0, tree 1", "word 1 is 'books' in gold, 'Al' in test"),
    ("graphs", "shp", SHP_A, SHP_B, "sentence s.0 (test id s.1), block 1", "word 1 is 'Hello' in gold, 'It' in test"),
])
def test_sentences_in_another_order_are_an_error(tmp_path, capsys, kind, ext, first, second, where, diff):
    gold = _file(tmp_path, f"gold.{ext}", f"{first}\n{second}\n")
    test = _file(tmp_path, f"test.{ext}", f"{second}\n{first}\n")
    code, out, err = _run(["eval", kind, gold, test], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"plgraph eval: error: {gold}, {where}: ")
    assert f"the words differ between gold {gold} and test {test}" in err
    assert diff in err and "Traceback" not in err


def test_traces_different_word_count_names_the_tree(tmp_path, capsys):
    short = PASSIVE.replace(" (VBD was)", "")
    gold = _file(tmp_path, "gold.ptb", f"{WH_REL}\n{PASSIVE}\n")
    test = _file(tmp_path, "test.ptb", f"{WH_REL}\n{short}\n")
    code, out, err = _run(["eval", "traces", gold, test], capsys)
    assert code == 2 and out == ""
    assert "sentence gold.1, tree 2" in err and "gold has 3 words, test 2" in err


def test_traces_in_order_still_scores(tmp_path, capsys):
    # gold against itself: items no-link_0_WHNP, *T*_WHNP_NP, *_NP_NP, each 1/1/1
    gold = _file(tmp_path, "gold.ptb", f"{WH_REL}\n{PASSIVE}\n")
    code, out, err = _run(["eval", "traces", gold, gold], capsys)
    assert code == 0 and err == ""
    assert out.splitlines()[-1] == "all 3 3 3 100.0 100.0 100.0"
    # a failed parse (empty test tree) has no words and is not a mismatch: it adds to no total
    test = _file(tmp_path, "test.ptb", f"{WH_REL}\n()\n")
    code, out, err = _run(["eval", "traces", gold, test], capsys)
    assert code == 0 and out.splitlines()[-1] == "all 2 2 2 100.0 100.0 100.0"
    assert "1 empty test tree(s)" in err


def test_graphs_in_order_still_scores(tmp_path, capsys):
    gold = _file(tmp_path, "gold.shp", f"{SHP_A}\n{SHP_B}\n")
    code, out, err = _run(["eval", "graphs", gold, gold], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    # 4 words, all spines and edges equal; no traces, so trace P/R/F are 0.0 (the script's rule)
    assert lines[0] == "labeled spine       4    4    4    100.0 100.0 100.0"
    assert lines[1] == "labeled edge       4    4    4    100.0 100.0 100.0"
    assert lines[2] == "labeled trace       0    0    0    0.0 0.0 0.0"
    assert lines[5] == "Processed 2"


def test_trees_sentences_in_another_order_are_reported_per_line(tmp_path, capsys):
    # EVALB's own handling, unchanged: each mismatched line is an error sentence on stderr,
    # left out of the totals, and the run goes on (exit 0)
    gold = _file(tmp_path, "gold.txt", f"{TREE_A}\n{TREE_B}\n")
    test = _file(tmp_path, "test.txt", f"{TREE_B}\n{TREE_A}\n")
    code, out, err = _run(["eval", "trees", gold, test], capsys)
    assert code == 0
    assert err.splitlines() == ["1 : Words unmatch (the|a)", "2 : Words unmatch (a|the)"]
    assert "Number of Error sentence  =      2" in out


def test_trees_in_order_still_scores(tmp_path, capsys):
    # brackets S(0,3) NP(0,2) VP(2,3) per tree, all matched
    gold = _file(tmp_path, "gold.txt", f"{TREE_A}\n{TREE_B}\n")
    code, out, err = _run(["eval", "trees", gold, gold], capsys)
    assert code == 0 and err == ""
    assert "Bracketing FMeasure       = 100.00" in out
    assert "                100.00 100.00      6     6     6      0      6     6   100.00" in out


# ---------------------------------------------------------------------------------------
# empty files
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["trees", "traces"])
def test_empty_files_are_an_error_naming_the_file(tmp_path, capsys, command):
    empty_gold = _file(tmp_path, "gold.txt", "")
    empty_test = _file(tmp_path, "test.txt", "")
    code, out, err = _run(["eval", command, empty_gold, empty_test], capsys)
    assert code == 2 and out == ""
    assert err == f"plgraph eval: error: {empty_gold}: file contains no trees\n"
    # a gold file with trees and an empty test file: the test file is named
    gold = _file(tmp_path, "full.txt", f"{TREE_A}\n")
    code, out, err = _run(["eval", command, gold, empty_test], capsys)
    assert code == 2 and out == ""
    assert err == f"plgraph eval: error: {empty_test}: file contains no trees\n"


def test_empty_shp_files_are_an_error_naming_the_file(tmp_path, capsys):
    empty_gold = _file(tmp_path, "gold.shp", "")
    code, out, err = _run(["eval", "graphs", empty_gold, _file(tmp_path, "test.shp", "")], capsys)
    assert code == 2 and out == ""
    assert err == f"plgraph eval: error: {empty_gold}: file contains no sentences\n"
