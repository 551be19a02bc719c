"""The PTB reader: round trips of random trees (hypothesis), cleaning, and bad input."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from plgraph.errors import PTBFormatError
from plgraph.ptb import read_ptb, read_ptb_string
from plgraph.ptb.clean import base_label, coindex_of, gap_index_of, strip_coindex
from plgraph.ptb.reader import BadSentence, SentenceTree
from plgraph.tree import Tree

LABELS = st.sampled_from(["S", "NP", "VP", "NP-SBJ-1", "PP-LOC", "SBAR", "WHNP-2", "NP=1", "ADJP"])
TAGS = st.sampled_from(["NN", "VBD", "DT", "-NONE-", ",", "PRP$"])
WORDS = st.text(st.characters(blacklist_characters="() \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001"
                                                   "\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028"
                                                   "\u2029\u202f\u205f\u3000", blacklist_categories=("Cs",)),
                min_size=1, max_size=6)


@st.composite
def trees(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return Tree(draw(TAGS), word=draw(WORDS))
    kids = draw(st.lists(trees(depth=depth - 1), min_size=1, max_size=3))
    return Tree(draw(LABELS), kids)


@settings(max_examples=300, deadline=None)
@given(st.lists(trees(), min_size=1, max_size=3), st.sampled_from([" ", "\n", "\n\n  "]))
def test_random_trees_read_back_exactly(forest, sep):
    text = sep.join(t.to_string() for t in forest)
    items = read_ptb_string(text, clean=False)
    assert [i.tree.to_string() for i in items] == [t.to_string() for t in forest]
    assert [i.id for i in items] == [f"<string>.{k}" for k in range(len(forest))]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("()  \nABab-*1")), max_size=60))
def test_garbage_never_crashes(text):
    # either a clean result, or PTBFormatError naming the source; skip mode never raises
    try:
        read_ptb_string(text, "fuzz.mrg")
    except PTBFormatError as err:
        assert "fuzz.mrg" in str(err)
    for item in read_ptb_string(text, "fuzz.mrg", on_error="skip"):
        assert isinstance(item, (SentenceTree, BadSentence))


def test_cleaning_and_homogenising():
    [item] = read_ptb_string("( (S (ADVP|PRT (RB up)) (NP (-LCB- {) (NNP Wa) (-NONE- *)) (: --) (, -)))")
    t = item.tree.to_string()
    assert t == "(ROOT (S (ADVP (RB up)) (NP (-LRB- -LCB-) (NNP Wa) (-NONE- *)) (: --) (: -)))"
    [item] = read_ptb_string("(TOP (S (NP (NN x))))")
    assert item.tree.to_string() == "(ROOT (S (NP (NN x))))"


def test_label_helpers():
    assert strip_coindex("NP-SBJ-1") == "NP-SBJ" and strip_coindex("NP=2") == "NP"
    assert strip_coindex("*T*-12") == "*T*" and strip_coindex("PP-LOC-CLR") == "PP-LOC-CLR"
    assert strip_coindex("NP-SBJ=1-3") == "NP-SBJ"
    assert coindex_of("NP-SBJ-12") == "12" and coindex_of("*T*-3") == "3" and coindex_of("NP=2") is None
    assert coindex_of("-NONE-") is None and coindex_of("0") is None
    assert gap_index_of("NP-SBJ=1-3") == "1" and coindex_of("NP-SBJ=1-3") == "3"
    assert base_label("NP-SBJ-1") == "NP" and base_label("-LRB-") == "-LRB-" and base_label("PRP$") == "PRP$"


def test_spans_skip_null_elements():
    [item] = read_ptb_string("(ROOT (S (NP-SBJ (-NONE- *)) (VP (VB go) (ADVP (RB home)))))")
    s = item.tree.children[0]
    assert (s.start, s.end) == (0, 2) and s.children[0].is_null() and item.tree.words() == ["go", "home"]


# -- bad input: each names the file and the sentence -------------------------------------------
def test_unbalanced_bracket(tmp_path):
    f = tmp_path / "wsj_9999.mrg"
    f.write_text("( (S (NP (NN a)) (VP (VB b))))\n( (S (NP (NN c)) (VP (VB d)))\n")
    with pytest.raises(PTBFormatError, match=r"wsj_9999\.mrg:2, sentence wsj_9999\.1: unbalanced"):
        read_ptb(f)
    items = read_ptb(f, on_error="skip")
    assert isinstance(items[0], SentenceTree) and isinstance(items[1], BadSentence)
    assert items[1].line == 2 and items[1].id == "wsj_9999.1"


def test_extra_closing_bracket(tmp_path):
    f = tmp_path / "x.mrg"
    f.write_text("( (S (NN a)))\n)\n( (S (NN b)))\n")
    items = read_ptb(f, on_error="skip")
    good = [i for i in items if isinstance(i, SentenceTree)]
    assert [i.tree.words() for i in good] == [["a"], ["b"]]
    assert any(isinstance(i, BadSentence) and "unbalanced ')'" in i.reason and i.line == 2 for i in items)


def test_empty_file(tmp_path):
    f = tmp_path / "empty.mrg"
    f.write_text("\n  \n")
    with pytest.raises(PTBFormatError, match=r"empty\.mrg.*no trees"):
        read_ptb(f)
    [bad] = read_ptb(f, on_error="skip")
    assert isinstance(bad, BadSentence)


def test_non_utf8_bytes(tmp_path):
    f = tmp_path / "latin.mrg"
    f.write_bytes(b"( (S (NN ok)))\n( (S (NN caf\xe9)))\n( (S (NN fine)))\n")
    with pytest.raises(PTBFormatError, match=r"latin\.mrg:2, sentence latin\.1: bytes that are not UTF-8: 0xe9"):
        read_ptb(f)
    items = read_ptb(f, on_error="skip")
    assert [type(i).__name__ for i in items] == ["SentenceTree", "BadSentence", "SentenceTree"]


def test_stray_word_and_empty_constituent():
    with pytest.raises(PTBFormatError, match="stray word"):
        read_ptb_string("(S (NP (NN a)) oops)")
    with pytest.raises(PTBFormatError, match="empty constituent"):
        read_ptb_string("(S (NP))")


def test_whole_sample_reads(sample_trees):
    assert len(sample_trees) == 3914
    # overt words and null elements as counted by the data README (NLTK's reader)
    n_words = sum(len(t.tree.words()) for t in sample_trees)
    n_nulls = sum(1 for t in sample_trees for n in t.tree.subtrees() if n.word is not None and n.label == "-NONE-")
    assert (n_words, n_nulls) == (94084, 6592)


def test_reader_agrees_with_nltk(sample_dir):
    import nltk.data
    from nltk.corpus.reader import BracketParseCorpusReader

    root = str(sample_dir.parents[2])  # the nltk_data folder: NLTK 3.10 reads only under its data path
    if root not in nltk.data.path:
        nltk.data.path.insert(0, root)
    reader = BracketParseCorpusReader(str(sample_dir), r"wsj_00[0-2]\d\.mrg")
    ours = []
    for f in sorted(sample_dir.glob("wsj_00[0-2][0-9].mrg")):
        ours += read_ptb(f, clean=False)
    theirs = reader.parsed_sents()
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.tree.to_nltk()[0] == b  # NLTK drops the unlabelled outer bracket
