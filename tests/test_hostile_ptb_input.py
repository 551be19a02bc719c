"""Hostile Penn Treebank input: a byte-order mark, an unclosed tree, one-word trees; every
tree that cannot be read is a counted skip naming its file and line."""
from __future__ import annotations

import re

import pytest

from plgraph.convert import graph_to_tree, tree_to_graph
from plgraph.errors import ConversionError, PTBFormatError
from plgraph.parser.parsing.inputs import read_input
from plgraph.ptb import read_ptb, read_ptb_string
from plgraph.ptb.reader import BadSentence, SentenceTree
from plgraph.shp import format_shp, read_shp_string

BOM = b"\xef\xbb\xbf"


def summary(items) -> list:
    """``(id, words)`` of a read tree, ``(id, line, reason)`` of a skipped one."""
    out = []
    for x in items:
        if isinstance(x, SentenceTree):
            out.append((x.id, x.tree.words()))
        else:
            assert isinstance(x, BadSentence)
            out.append((x.id, x.line, x.reason))
    return out


def write(tmp_path, name: str, data) -> str:
    f = tmp_path / name
    if isinstance(data, bytes):
        f.write_bytes(data)
    else:
        f.write_text(data, encoding="utf-8")
    return str(f)


# -- a UTF-8 byte-order mark -------------------------------------------------------------------
def test_bom_at_the_start_of_a_string_is_not_stray_text():
    items = read_ptb_string("\ufeff( (S (NN a)))\n( (S (NN b)))\n", "bom.mrg", on_error="skip")
    assert summary(items) == [("bom.0", ["a"]), ("bom.1", ["b"])]


def test_bom_and_a_bad_tree_keep_the_line_numbers_in_a_string_and_a_file(tmp_path):
    text = "\ufeff( (S (NN a)))\n\n( (S (NP)))\n( (S (NN c)))\n"
    expected = [("bom.0", ["a"]), ("bom.1", 3, "empty constituent (NP)"), ("bom.2", ["c"])]
    assert summary(read_ptb_string(text, "bom.mrg", on_error="skip")) == expected
    with pytest.raises(PTBFormatError, match=r"^bom\.mrg:3, sentence bom\.1: empty constituent \(NP\)$"):
        read_ptb_string(text, "bom.mrg")
    path = write(tmp_path, "bom.mrg", text.encode("utf-8"))
    assert summary(read_ptb(path, on_error="skip")) == expected
    with pytest.raises(PTBFormatError, match="^" + re.escape(f"{path}:3, sentence bom.1: empty constituent (NP)")):
        read_ptb(path)


def test_bom_and_bytes_that_are_not_utf8_keep_the_line_numbers(tmp_path):
    path = write(tmp_path, "bom.mrg", BOM + b"( (S (NN a)))\n( (S (NN caf\xe9)))\n( (S (NN c)))\n")
    assert summary(read_ptb(path, on_error="skip")) == [
        ("bom.0", ["a"]), ("bom.1", 2, r"bytes that are not UTF-8: 0xe9 in b'caf\xe9'"), ("bom.2", ["c"])]


def test_bom_only_file_has_no_trees():
    assert summary(read_ptb_string("\ufeff\n", "bom.mrg", on_error="skip")) == [("bom", 1, "file contains no trees")]


def test_parse_input_with_a_bom_reads_the_first_tree(tmp_path):
    path = write(tmp_path, "bom.mrg", BOM + b"( (S (NN a)))\n( (S (NP)))\n")
    got = read_input(path, "ptb")
    assert got.sentences == [(["a"], ["NN"], "bom.0")]
    assert got.bad == [("bom.mrg:2", "empty constituent (NP)")]


# -- an unclosed tree does not swallow the trees after it --------------------------------------
UNCLOSED_FIRST = "( (S (NP (NN a))\n( (S (NN b)))\n( (S (NN c)))\n"
RESUMED_AT_2 = "unclosed tree (missing ')'); reading resumed at line 2"


def test_unclosed_tree_is_a_counted_skip_and_reading_resumes_at_the_next_tree(tmp_path):
    path = write(tmp_path, "u.mrg", UNCLOSED_FIRST)
    items = read_ptb(path, on_error="skip")
    assert summary(items) == [("u.0", 1, RESUMED_AT_2), ("u.1", ["b"]), ("u.2", ["c"])]
    assert str(items[0]) == f"u.0 ({path}:1): {RESUMED_AT_2}"
    message = f"{path}:1, sentence u.0: unclosed tree (missing ')'); the next tree starts at line 2"
    with pytest.raises(PTBFormatError, match="^" + re.escape(message) + "$"):
        read_ptb(path)


def test_unclosed_tree_in_penn_treebank_layout():
    text = ("( (S \n"
            "    (NP-SBJ (NNP Bob) )\n"
            "    (VP (VBD ran) )\n"
            "( (S \n"
            "    (NP-SBJ (PRP He) )\n"
            "    (VP (VBD left) \n"
            "      (ADVP (RB early) ))\n"
            "    (. .) ))\n"
            "( (S \n"
            "    (NP-SBJ (PRP She) )\n"
            "    (VP (VBD stayed) )\n"
            "    (. .) ))\n")
    assert summary(read_ptb_string(text, "wsj_0001.mrg", on_error="skip")) == [
        ("wsj_0001.0", 1, "unclosed tree (missing ')'); reading resumed at line 4"),
        ("wsj_0001.1", ["He", "left", "early", "."]),
        ("wsj_0001.2", ["She", "stayed", "."]),
    ]


@pytest.mark.parametrize("broken, resume", [("( (S (NN b)\n\n    (NN b2)\n", 5), ("( (S (NN b\n", 3)])
def test_unclosed_tree_in_the_middle_keeps_the_trees_before_and_after(broken, resume):
    # the second tree lacks ')' (at the end of the tree, or of a leaf, which then gets children)
    text = "( (S (NN a)))\n" + broken + "( (S (NN c)))\n( (S (NN d)))\n"
    assert summary(read_ptb_string(text, "m.mrg", on_error="skip")) == [
        ("m.0", ["a"]),
        ("m.1", 2, f"unclosed tree (missing ')'); reading resumed at line {resume}"),
        ("m.2", ["c"]),
        ("m.3", ["d"]),
    ]


def test_unclosed_tree_with_indented_trees_resumes_at_the_same_indentation():
    text = "  ( (S (NN a)\n      (NN x))\n  ( (S (NN b)))\n"
    assert summary(read_ptb_string(text, "i.mrg", on_error="skip")) == [
        ("i.0", 1, "unclosed tree (missing ')'); reading resumed at line 3"), ("i.1", ["b"])]


def test_unclosed_last_tree_reports_the_end_of_file():
    text = "( (S (NN a)))\n( (S (NN b))\n"
    assert summary(read_ptb_string(text, "e.mrg", on_error="skip")) == [
        ("e.0", ["a"]), ("e.1", 2, "unbalanced brackets: end of file inside a tree (missing ')')")]


def test_parse_input_with_an_unclosed_tree_reads_the_trees_after_it(tmp_path):
    got = read_input(write(tmp_path, "u.mrg", UNCLOSED_FIRST), "ptb")
    assert got.sentences == [(["b"], ["NN"], "u.1"), (["c"], ["NN"], "u.2")]
    assert got.bad == [("u.mrg:1", RESUMED_AT_2)]


# -- one-word trees ----------------------------------------------------------------------------
@pytest.mark.parametrize("text, tree", [
    ("( (NN hello) )", "(ROOT (NN hello))"),
    ("(NN hello)", "(ROOT (NN hello))"),
    ("(TOP (UH hello))", "(ROOT (UH hello))"),
    ("( (X (UH hello)) )", "(ROOT (X (UH hello)))"),
    ("(ROOT (NN hello))", "(ROOT (NN hello))"),
    ("( (S (NN hello)) )", "(ROOT (S (NN hello)))"),
])
def test_one_word_tree_is_read(text, tree):
    [item] = read_ptb_string(text, "one.mrg")
    assert (item.id, item.tree.to_string(), item.tree.words()) == ("one.0", tree, ["hello"])
    word = item.tree.children[0]
    while word.word is None:
        word = word.children[0]
    assert (word.start, word.end) == (0, 1)


def test_one_word_tree_among_others_keeps_the_ids():
    text = "( (S (NN a)))\n( (NN hello) )\n( (S (NN b)))\n"
    items = read_ptb_string(text, "one.mrg")
    assert [(x.id, x.tree.to_string()) for x in items] == [
        ("one.0", "(ROOT (S (NN a)))"), ("one.1", "(ROOT (NN hello))"), ("one.2", "(ROOT (S (NN b)))")]


def test_one_word_tree_converts_to_a_graph_and_back():
    [item] = read_ptb_string("( (NN hello) )", "one.mrg")
    graph = tree_to_graph(item.tree, sid=item.id)
    assert (graph.id, graph.words, graph.tags, graph.spines) == ("one.0", ["hello"], ["NN"], ["_"])
    assert graph_to_tree(graph).to_string() == "(ROOT (NN hello))"
    [back] = read_shp_string(format_shp(graph), "one.shp")
    assert graph_to_tree(back).to_string() == "(ROOT (NN hello))"


def test_parse_input_reads_a_one_word_tree(tmp_path):
    got = read_input(write(tmp_path, "one.mrg", "( (NN hello) )\n( (S (NN a)))\n"), "ptb")
    assert got.sentences == [(["hello"], ["NN"], "one.0"), (["a"], ["NN"], "one.1")]
    assert got.bad == []


def test_tree_of_one_null_element_reads_and_is_refused_by_the_conversion():
    [item] = read_ptb_string("( (-NONE- *) )", "n.mrg")
    assert item.tree.to_string() == "(ROOT (-NONE- *))"
    with pytest.raises(ConversionError, match=r"^sentence n\.0: sentence has no overt words$"):
        tree_to_graph(item.tree, sid=item.id)


# -- every skipped tree carries its line -------------------------------------------------------
def test_a_tree_that_fails_cleaning_is_named_by_its_line(monkeypatch):
    import plgraph.ptb.reader as reader

    real = reader.homogenise

    def picky(tree):
        if "bad" in tree.words():
            raise ConversionError("cannot homogenise")
        return real(tree)

    monkeypatch.setattr(reader, "homogenise", picky)
    text = "( (S (NN a)))\n\n( (S (NN bad)))\n"
    assert summary(read_ptb_string(text, "h.mrg", on_error="skip")) == [
        ("h.0", ["a"]), ("h.1", 3, "cannot homogenise")]
    with pytest.raises(PTBFormatError, match=r"^h\.mrg:3, sentence h\.1: cannot homogenise$"):
        read_ptb_string(text, "h.mrg")


def test_file_without_trees_is_named_at_line_1(tmp_path):
    assert summary(read_ptb_string("\n  \n", "e.mrg", on_error="skip")) == [("e", 1, "file contains no trees")]
    path = write(tmp_path, "e.mrg", "\n  \n")
    with pytest.raises(PTBFormatError, match="^" + re.escape(f"{path}:1: file contains no trees") + "$"):
        read_ptb(path)
