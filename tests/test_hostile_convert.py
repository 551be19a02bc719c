"""Hostile input for reading and conversion: no hangs, no tracebacks,
no silent word loss, outputs that survive a failed run.

* SHP whose structural heads are not a tree (cycles, self-heads, two roots) is an
  error naming file, line and sentence, or a counted skip;
* SHP -> PTB never gives a tree with other words than its input;
* ``convert`` prints the warnings it collects and leaves an existing output
  untouched when nothing converts;
* 1,500-deep trees are read, converted and written;
* fuzz: the PTB and SHP readers and graph_to_tree raise only plgraph's errors.
"""
from __future__ import annotations

import os
import tempfile

import pytest
from hypothesis import given, settings, strategies as st

from plgraph.cli import main
from plgraph.convert import canonical_indices, graph_to_tree, tree_to_graph
from plgraph.errors import ConversionError, PlgraphError, SHPFormatError
from plgraph.graph import Graph
from plgraph.ptb.reader import BadSentence, SentenceTree, read_ptb, read_ptb_string
from plgraph.shp import format_shp, read_shp, read_shp_string

pytestmark = pytest.mark.timeout(60)

GOOD_TREE = "(ROOT (S (NP-SBJ (NNP Bob)) (VP (VBD ran) (ADVP (RB fast))) (. .)))"

# words 2 and 9 head each other; word 10 attaches across the cycle, which made the
# old graph_to_tree walk the parent chain forever
CYCLE_SHP = """\
# SentID c.0
1 w1 NN NP 0 ROOT_0
2 w2 VB VP_S 9 S_0
3 w3 NN NP 2 VP_0
4 w4 NN NP 2 VP_0
5 w5 NN NP 2 VP_0
6 w6 NN NP 9 S_0
7 w7 NN NP 9 S_0
8 w8 NN NP 9 S_0
9 w9 VB VP_S 2 S_0
10 w10 . _ 2 S_0
"""

GOOD_SHP = """\
# SentID g.0
1 Bob  NNP NP-SBJ 2 S_0
2 ran  VBD VP_S   0 ROOT_0
3 fast RB  ADVP   2 VP_0
4 .    .   _      2 S_0
"""


def structural_graph(heads, sid="m.0", spines=None, labels=None) -> Graph:
    """An in-memory graph with the given structural parents (no validation)."""
    n = len(heads)
    spines = spines or ["VP_S"] * n
    labels = labels or ["ROOT_0" if h == 0 else "S_0" for h in heads]
    edges = [(c, h, 0, lab, False, "_", False, "_") for c, (h, lab) in enumerate(zip(heads, labels), start=1)]
    return Graph.from_edges([f"w{i}" for i in range(1, n + 1)], ["NN"] * n, spines, edges, id=sid)


def shp_block(heads, sid=None, spines=None, labels=None, comments=()) -> str:
    n = len(heads)
    spines = spines or ["VP_S"] * n
    labels = labels or ["ROOT_0" if h == 0 else "S_0" for h in heads]
    lines = ([f"# SentID {sid}"] if sid else []) + list(comments)
    lines += [f"{i} w{i} NN {spines[i - 1]} {h} {labels[i - 1]}" for i, h in enumerate(heads, start=1)]
    return "\n".join(lines) + "\n\n"


# -- 1. head cycles: an error naming file, sentence and line; never a hang ------------------------
def test_head_cycle_in_shp_is_an_error_naming_file_sentence_and_line(tmp_path):
    f = tmp_path / "cyc.shp"
    f.write_text(CYCLE_SHP)
    with pytest.raises(SHPFormatError) as info:
        read_shp(f)
    err = info.value
    assert (err.source, err.sentence, err.line) == (str(f), "c.0", 3)
    assert str(err) == f"{f}:3, sentence c.0: structural parents form a cycle (2 -> 9 -> 2) that never reaches ROOT"


def test_head_cycle_is_a_counted_skip_and_good_sentences_are_kept(tmp_path):
    f = tmp_path / "mixed.shp"
    f.write_text(GOOD_SHP + "\n" + CYCLE_SHP + "\n" + GOOD_SHP.replace("g.0", "g.2"))
    items = read_shp(f, on_error="skip")
    assert [type(x).__name__ for x in items] == ["Graph", "BadSentence", "Graph"]
    bad = items[1]
    assert (bad.id, bad.index, bad.line) == ("c.0", 1, 9) and "cycle (2 -> 9 -> 2)" in bad.reason


def test_convert_of_a_head_cycle_ends_with_an_error(tmp_path, capsys):
    f = tmp_path / "cyc.shp"
    f.write_text(CYCLE_SHP)
    assert main(["convert", str(f), "--to", "ptb"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"  c.0 ({f}:3): structural parents form a cycle (2 -> 9 -> 2)" in captured.err
    assert f"plgraph convert: error: {f}: no sentence could be converted" in captured.err


def test_convert_skips_the_cycle_and_converts_the_rest(tmp_path, capsys):
    f = tmp_path / "mixed.shp"
    f.write_text(GOOD_SHP + "\n" + CYCLE_SHP)
    assert main(["convert", str(f), "--to", "ptb"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "(ROOT (S (NP-SBJ (NNP Bob)) (VP (VBD ran) (ADVP (RB fast))) (. .)))\n"
    assert f"skipped 1 sentence(s) of {f}:" in captured.err and "c.0" in captured.err


def test_graph_to_tree_refuses_an_in_memory_head_cycle():
    heads = [0, 9, 2, 2, 2, 9, 9, 9, 2, 2]
    with pytest.raises(ConversionError, match=r"^sentence m\.0: structural parents form a cycle \(2 -> 9 -> 2\)"):
        graph_to_tree(structural_graph(heads))


# -- 3. no silent word loss or reordering ------------------------------------------------------
@pytest.mark.parametrize("heads, line, message", [
    ([1, 0, 2, 2], 1, "word 1 is its own structural parent"),
    ([2, 1, 0, 3], 1, r"structural parents form a cycle \(1 -> 2 -> 1\)"),
    ([0, 0, 2, 2], 2, "words 1 and 2 both attach to ROOT; a sentence has one root word"),
    ([2, 5, 0, 3], 2, r"structural parent 5 outside 0\.\.4"),
])
def test_bad_structure_in_shp_names_the_line(tmp_path, heads, line, message):
    f = tmp_path / "bad.shp"
    f.write_text(shp_block(heads))
    with pytest.raises(SHPFormatError, match=rf"^{f}:{line}, sentence bad\.0: {message}"):
        read_shp(f)
    [bad] = read_shp(f, on_error="skip")
    assert isinstance(bad, BadSentence) and bad.line == line


@pytest.mark.parametrize("heads, message", [
    ([1, 0, 2, 2], "word 1 is its own structural parent"),
    ([2, 1, 0, 3], "structural parents form a cycle"),
    ([0, 0, 2, 2], "words 1 and 2 both attach to ROOT"),
    ([0, 4, 1, 1], "rebuilt tree has the words in another order: position 2 holds 'w3' instead of 'w2'"),
])
def test_graph_to_tree_never_loses_or_moves_a_word(heads, message):
    with pytest.raises(ConversionError, match=rf"^sentence m\.0: {message}"):
        graph_to_tree(structural_graph(heads))


def test_in_memory_graph_with_missing_or_double_heads_is_refused():
    g = Graph.from_edges(["a", "b"], ["NN", "NN"], ["NP", "VP_S"], [(2, 0, 0, "ROOT_0", False, "_", False, "_")],
                         id="m.1")
    with pytest.raises(ConversionError, match=r"sentence m\.1: word 1 has no structural parent"):
        graph_to_tree(g)
    g = Graph.from_edges(["a", "b"], ["NN", "NN"], ["NP", "VP_S"],
                         [(1, 2, 0, "S_0", False, "_", False, "_"), (2, 0, 0, "ROOT_0", False, "_", False, "_"),
                          (1, 0, 0, "ROOT_0", False, "_", False, "_")], id="m.2")
    with pytest.raises(ConversionError, match=r"sentence m\.2: word 1 has two structural parents \(2 and 0\)"):
        graph_to_tree(g)
    g = Graph.from_edges(["a"], ["NN"], ["NP"], [(1, 0, 0, "ROOT_0", False, "_", False, "_"),
                                                 (1, 7, 1, "NP_0", False, "NP_0", False, "*")], id="m.3")
    with pytest.raises(ConversionError, match=r"sentence m\.3: trace edge 1->7 outside words 1\.\.1"):
        graph_to_tree(g)


def test_shp_to_ptb_skips_bad_structures_and_keeps_every_word_of_the_rest(tmp_path, capsys):
    f = tmp_path / "mixed.shp"
    f.write_text(shp_block([1, 0, 2, 2], "self.0") + shp_block([2, 1, 0, 3], "short.0")
                 + shp_block([0, 0, 2, 2], "roots.0") + GOOD_SHP)
    assert main(["convert", str(f), "--to", "ptb"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [GOOD_TREE]
    assert f"skipped 3 sentence(s) of {f}:" in captured.err
    for sid in ("self.0", "short.0", "roots.0"):
        assert f"  {sid} ({f}:" in captured.err


def test_convert_prints_the_dangling_index_warning(tmp_path, capsys):
    f = tmp_path / "dangling.mrg"
    f.write_text("(ROOT (S (NP-SBJ (NNP Bob)) (VP (VBD left) (ADVP (-NONE- *T*-2))) (. .)))\n")
    assert main(["convert", str(f), "--to", "shp", "--no-comments"]) == 0
    err = capsys.readouterr().err
    assert (f"plgraph convert: warning: {f}, sentence dangling.0: null element *T*-2 refers to index 2 "
            "which no constituent carries; dropped") in err


def test_convert_prints_graph_to_tree_warnings(tmp_path, capsys):
    f = tmp_path / "parser.shp"
    f.write_text("# SentID p.0\n1 a NN NP 2 XX_0\n2 b VB VP_S 0 ROOT_0\n")
    assert main(["convert", str(f), "--to", "ptb"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "(ROOT (S (NP (NN a)) (VP (VB b))))\n"
    assert (f"plgraph convert: warning: {f}, sentence p.0: word 1: parent node XX_0 is not in the spine "
            "of word 2; using its top") in captured.err


# -- 5. a failed run leaves the existing output untouched -------------------------------------
@pytest.mark.parametrize("name, content, reason", [
    ("bad.mrg", "(ROOT (S (NN b))\n", "unbalanced brackets"),
    ("empty.mrg", "", "file contains no trees"),
    ("bad.shp", CYCLE_SHP, "cycle"),
    ("empty.shp", "\n\n# only a comment\n", "file contains no sentences"),
])
def test_failed_convert_keeps_the_existing_output(tmp_path, capsys, name, content, reason):
    keep = tmp_path / "keep.shp"
    keep.write_text(GOOD_SHP)
    before = keep.read_bytes()
    f = tmp_path / name
    f.write_text(content)
    assert main(["convert", str(f), "--to", "shp", "--out", str(keep)]) == 2
    assert keep.read_bytes() == before
    err = capsys.readouterr().err
    assert reason in err
    assert f"plgraph convert: error: {f}: no sentence could be converted; {keep} left unchanged" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["keep.shp", name])


def test_partly_bad_input_still_writes_the_good_sentences(tmp_path, capsys):
    f = tmp_path / "mixed.mrg"
    f.write_text(GOOD_TREE + "\n(ROOT (S (NN b))\n")
    out = tmp_path / "out.shp"
    assert main(["convert", str(f), "--to", "shp", "--out", str(out)]) == 0
    assert [g.id for g in read_shp(out)] == ["mixed.0"]
    assert "skipped 1 sentence(s)" in capsys.readouterr().err


@pytest.mark.parametrize("comment", ["# plgraph-orphan a b c d", "# plgraph-orphan 1", "# plgraph-orphan x VP_0 F -"])
def test_malformed_orphan_comment_names_the_line_and_is_a_counted_skip(tmp_path, comment):
    f = tmp_path / "orphan.shp"
    f.write_text(f"# SentID o.0\n{comment}\n1 w1 NN NP 0 ROOT_0\n\n" + GOOD_SHP)
    with pytest.raises(SHPFormatError) as err:
        read_shp(f)
    assert str(f) in str(err.value) and ":2" in str(err.value) and "plgraph-orphan" in str(err.value)
    got = read_shp(f, on_error="skip")
    assert [type(x).__name__ for x in got][0] == "BadSentence" and isinstance(got[1], Graph)


def test_ptb_file_starting_with_a_byte_order_mark_reads_its_first_tree(tmp_path):
    f = tmp_path / "bom.mrg"
    f.write_bytes(b"\xef\xbb\xbf" + GOOD_TREE.encode() + b"\n" + GOOD_TREE.encode() + b"\n")
    got = read_ptb(f, on_error="skip")
    assert [type(x) for x in got] == [SentenceTree, SentenceTree]
    assert got[0].tree.words() == ["Bob", "ran", "fast", "."]


# -- 8. deep trees -----------------------------------------------------------------------------
DEPTH = 1500


def deep_tree_text(depth: int = DEPTH) -> str:
    return "( " + "(S " * depth + "(NN x)" + ")" * depth + " )"


def test_deep_tree_reads_converts_and_writes():
    [item] = read_ptb_string(deep_tree_text())
    tree = item.tree
    assert tree.words() == ["x"]
    assert tree.copy().to_string() == tree.to_string()
    graph = tree_to_graph(tree, sid="deep.0")
    assert graph.spines[0].count("S") == DEPTH
    text = format_shp(graph)  # with the # Parse comment lines
    assert text.count("# Parse") == DEPTH + 1  # ROOT, then one line per S
    [back] = read_shp_string(text, "deep.shp")
    rebuilt = graph_to_tree(back)
    assert canonical_indices(rebuilt) == canonical_indices(tree)
    assert tree_to_graph(tree, sid="deep.0", gapping_shift=True).words == ["x"]


def test_deep_chain_of_words_in_shp_becomes_a_deep_tree():
    n = DEPTH
    heads = [i + 1 for i in range(1, n)] + [0]  # word i heads word i-1: a tree n levels deep
    text = shp_block(heads, "chain.0", spines=["VP"] * n, labels=["VP_0"] * (n - 1) + ["ROOT_0"])
    [graph] = read_shp_string(text, "chain.shp")
    tree = graph_to_tree(graph)
    assert tree.words() == graph.words
    assert tree.to_string().count("(VP") == n


def test_deep_trees_and_good_trees_of_one_file_all_convert(tmp_path, capsys):
    f = tmp_path / "deep.mrg"
    f.write_text(GOOD_TREE + "\n" + deep_tree_text() + "\n" + GOOD_TREE + "\n")
    shp = tmp_path / "deep.shp"
    back = tmp_path / "back.mrg"
    assert main(["convert", str(f), "--to", "shp", "--out", str(shp)]) == 0
    assert main(["convert", str(shp), "--to", "ptb", "--out", str(back)]) == 0
    assert "wrote 3 sentence(s)" in capsys.readouterr().err
    assert [t.tree.to_string() for t in read_ptb(back)] == [t.tree.to_string() for t in read_ptb(f)]


def test_too_deep_null_spine_is_a_counted_skip(tmp_path, capsys):
    deep_null = "(ROOT (S (NP-SBJ (NN a)) " + "(NP " * DEPTH + "(-NONE- *)" + ")" * DEPTH + " (VP (VBZ b))))"
    f = tmp_path / "nulls.mrg"
    f.write_text(GOOD_TREE + "\n" + deep_null + "\n")
    shp = tmp_path / "nulls.shp"
    assert main(["convert", str(f), "--to", "shp", "--out", str(shp)]) == 0
    assert main(["convert", str(shp), "--to", "ptb"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [GOOD_TREE]
    assert "nulls.1" in captured.err and "spine nests null elements too deeply to read" in captured.err


# -- fuzz --------------------------------------------------------------------------------------
PTB_ALPHABET = list("()  \n\tNPSVB-NONE*T012=abc.,{}|")
SHP_ALPHABET = list("0123456789 \n#_()TFNPSVROOT*=-abc")


def _expect_ptb_outcome(read):
    """``read(on_error)``: raise mode gives a list or a PlgraphError; skip mode never raises."""
    try:
        items = read("raise")
        assert all(isinstance(x, SentenceTree) for x in items)
    except PlgraphError:
        pass
    items = read("skip")
    assert items and all(isinstance(x, (SentenceTree, BadSentence)) for x in items)
    for x in items:
        if isinstance(x, SentenceTree):
            x.tree.to_string()
    return items


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(alphabet=PTB_ALPHABET, max_size=80), st.text(max_size=40)))
def test_fuzz_ptb_reader_on_random_text(text):
    _expect_ptb_outcome(lambda mode: read_ptb_string(text, "fuzz.mrg", on_error=mode))


def _read_bytes(data: bytes, reader, suffix: str, mode: str):
    fd, path = tempfile.mkstemp(suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        return reader(path, on_error=mode)
    finally:
        os.unlink(path)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.binary(max_size=60),
                 st.lists(st.sampled_from([b"(", b")", b" ", b"NN", b"\xe9", b"\xff", b"caf\xc3\xa9", b"\n"]),
                          max_size=30).map(b"".join)))
def test_fuzz_ptb_reader_on_random_bytes(data):
    _expect_ptb_outcome(lambda mode: _read_bytes(data, read_ptb, ".mrg", mode))


WORDS = st.text(alphabet="abcxyzABC019'&$%.,", min_size=1, max_size=4)
PHRASES = st.sampled_from(["S", "NP", "VP", "PP", "SBAR", "ADJP", "NP-SBJ", "NP-SBJ-1", "WHNP-2", "NP=1"])
LEAVES = st.one_of(st.tuples(st.sampled_from(["NN", "VBD", "DT", "IN", "PRP", "."]), WORDS),
                   st.tuples(st.just("-NONE-"), st.sampled_from(["*", "*T*-1", "*-2", "0", "*ICH*-3"])))
TREES = st.recursive(LEAVES, lambda kids: st.tuples(PHRASES, st.lists(kids, min_size=1, max_size=3)), max_leaves=12)


def render(node) -> str:
    label, rest = node
    if isinstance(rest, str):
        return f"({label} {rest})"
    return f"({label} " + " ".join(render(k) for k in rest) + ")"


def overt_words(node) -> list[str]:
    label, rest = node
    if isinstance(rest, str):
        return [] if label == "-NONE-" else [rest]
    return [w for k in rest for w in overt_words(k)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(PHRASES, st.lists(TREES, min_size=1, max_size=3)), min_size=1, max_size=3))
def test_fuzz_valid_ptb_reads_back_its_words_and_converts_without_loss(tops):
    text = "\n".join(f"( (S {' '.join(render(k) for k in kids)}) )" for _, kids in tops)
    items = read_ptb_string(text, "gen.mrg")
    assert len(items) == len(tops)
    for item, (_, kids) in zip(items, tops):
        words = [w for k in kids for w in overt_words(k)]
        assert item.tree.words() == words
        try:
            graph = tree_to_graph(item.tree, sid=item.id)
        except ConversionError:
            continue
        assert graph.words == words
        [back] = read_shp_string(format_shp(graph), "gen.shp")
        try:
            rebuilt = graph_to_tree(back)
        except ConversionError:
            continue
        assert rebuilt.words() == words


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(PHRASES, st.lists(TREES, min_size=1, max_size=3)), min_size=1, max_size=3),
       st.floats(0, 1))
def test_fuzz_truncated_ptb_and_shp(tops, cut_at):
    text = "\n".join(f"( (S {' '.join(render(k) for k in kids)}) )" for _, kids in tops)
    cut = text[: int(len(text) * cut_at)]
    _expect_ptb_outcome(lambda mode: read_ptb_string(cut, "cut.mrg", on_error=mode))
    graphs = []
    for item in read_ptb_string(text, "gen.mrg"):
        try:
            graphs.append(tree_to_graph(item.tree, sid=item.id))
        except ConversionError:
            pass
    shp = "".join(format_shp(g) for g in graphs)
    _expect_shp_outcome(shp[: int(len(shp) * cut_at)])


def _expect_shp_outcome(text: str, source: str = "fuzz.shp") -> list:
    try:
        items = read_shp_string(text, source)
        assert all(isinstance(x, Graph) for x in items)
    except SHPFormatError as err:
        assert source in str(err)
    items = read_shp_string(text, source, on_error="skip")
    assert items and all(isinstance(x, (Graph, BadSentence)) for x in items)
    for g in items:
        if isinstance(g, Graph):
            _graph_to_tree_keeps_words(g)
    return items


def _graph_to_tree_keeps_words(graph: Graph) -> None:
    try:
        tree = graph_to_tree(graph)
    except ConversionError as err:
        assert graph.id is None or str(graph.id) in str(err)
        return
    assert tree.words() == list(graph.words)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(alphabet=SHP_ALPHABET, max_size=100), st.text(max_size=40)))
def test_fuzz_shp_reader_on_random_text(text):
    _expect_shp_outcome(text)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.binary(max_size=60),
                 st.lists(st.sampled_from([b"1 a NN _ 0 ROOT_0\n", b"2 b NN NP 1 NP_0\n", b"\n", b"\xe9", b"#",
                                           b" 1 NP_0 T NP_0 F *"]), max_size=12).map(b"".join)))
def test_fuzz_shp_reader_on_random_bytes(data):
    for mode in ("raise", "skip"):
        try:
            items = _read_bytes(data, read_shp, ".shp", mode)
        except SHPFormatError:
            assert mode == "raise"
            continue
        assert all(isinstance(x, (Graph, BadSentence)) for x in items)


def is_tree(heads: list[int]) -> bool:
    """Oracle: parents in 0..n, not self, exactly one root word, every word reaches ROOT."""
    n = len(heads)
    if any(not 0 <= h <= n for h in heads) or sum(h == 0 for h in heads) != 1:
        return False
    for w in range(1, n + 1):
        cur, steps = w, 0
        while cur != 0:
            cur, steps = heads[cur - 1], steps + 1
            if steps > n:
                return False
    return True


SPINES = st.sampled_from(["_", "NP", "VP_S", "(NP_(*T*))_VP_S", "NP_NP", "(NP-SBJ_(*))_S", "VP_(NP",
                          "(NP_(*))", "S_(X_(0))"])
NODES = st.sampled_from(["S_0", "VP_0", "VP_1", "NP_0", "ROOT_0", "XX_3"])


# plgraph's own comment lines, valid and hostile (a "dropped null" with overt words, bad brackets)
NULL_RECORDS = st.sampled_from([
    "# plgraph-null 1 VP_0 0", "# plgraph-null 1 S_0 3", "# plgraph-null 2 VP_0 0 (NP (-NONE- *T*-4))",
    "# plgraph-null 1 VP_0 1 (NP (NN overt))", "# plgraph-null 1 S_0 0 ((((", "# plgraph-null 1 S_0 0 (X (-NONE- *)) (Y z)",
    "# plgraph-null x VP_0 0", "# plgraph-orphan 1 VP_0 F -", "# plgraph-orphan 2 NP_0 T =", "# plgraph-orphan a b c d",
    "# plgraph-options heads=jkk1 null_reversal=0 gapping_shift=1",
])


@st.composite
def random_blocks(draw):
    n = draw(st.integers(1, 8))
    heads = draw(st.lists(st.integers(-1, n + 1), min_size=n, max_size=n))
    spines = draw(st.lists(SPINES, min_size=n, max_size=n))
    labels = draw(st.lists(NODES, min_size=n, max_size=n))
    comments = draw(st.lists(NULL_RECORDS, max_size=2))
    return heads, spines, labels, comments


@settings(max_examples=300, deadline=None)
@given(st.lists(random_blocks(), min_size=1, max_size=4))
def test_fuzz_shp_with_random_heads(blocks):
    text = "".join(shp_block(h, f"r.{k}", s, lab, com) for k, (h, s, lab, com) in enumerate(blocks))
    ok = [is_tree(h) and not any(bad in c for c in com for bad in (" x ", " a b")) and
          not any(c.split()[1] in ("plgraph-null", "plgraph-orphan") and int(c.split()[2]) > len(h) for c in com
                  if c.split()[2].isdigit())
          for h, _, _, com in blocks]
    if all(ok):
        graphs = read_shp_string(text, "rand.shp")
    else:
        with pytest.raises(SHPFormatError, match=rf"^rand\.shp:\d+, sentence r\.{ok.index(False)}: "):
            read_shp_string(text, "rand.shp")
    items = read_shp_string(text, "rand.shp", on_error="skip")
    assert [isinstance(x, Graph) for x in items] == ok
    for item, (heads, _, _, _) in zip(items, blocks):
        if isinstance(item, Graph):
            assert item.words == [f"w{i}" for i in range(1, len(heads) + 1)]
            assert item.heads().tolist() == heads
            _graph_to_tree_keeps_words(item)
        else:
            assert item.id.startswith("r.") and item.line is not None
    if all(ok):
        assert [g.words for g in graphs] == [g.words for g in items]


@settings(max_examples=300, deadline=None)
@given(random_blocks(), st.lists(st.tuples(st.integers(-1, 9), st.integers(-1, 9), st.booleans(), st.booleans(),
                                           st.sampled_from(["*", "*T*", "="])), max_size=3))
def test_fuzz_graph_to_tree_on_in_memory_graphs(block, traces):
    heads, spines, labels, _ = block
    g = structural_graph(heads, "mem.0", spines, labels)
    edges = [tuple(e) for e in g.edge_tuples()]
    edges += [(c, p, 1, "NP_0", pn, "NP_0", cn, t) for c, p, pn, cn, t in traces]
    g = Graph.from_edges(g.words, g.tags, g.spines, edges, id="mem.0")
    try:
        tree = graph_to_tree(g)
    except ConversionError as err:
        assert "mem.0" in str(err)
        return
    assert tree.words() == g.words
