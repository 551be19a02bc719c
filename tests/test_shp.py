"""SHP reading and writing: round trips, padding, fuzzing and errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from plgraph.errors import SHPFormatError
from plgraph.graph import Graph
from plgraph.ptb.reader import BadSentence
from plgraph.shp import format_shp, read_shp, read_shp_string, write_shp

SPINES = st.sampled_from(["_", "NP", "VP_S", "(NP_(*T*))_VP_S", "NP_NP", "(NP-SBJ_(*))_S", "PP-LOC"])


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 7))
    words = draw(st.lists(st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF,
                                                blacklist_categories=("Zs", "Zl", "Zp", "Cc")),
                                  min_size=1, max_size=5), min_size=n, max_size=n))
    tags = draw(st.lists(st.sampled_from(["NN", "VBD", "-LRB-", "PRP$", "."]), min_size=n, max_size=n))
    spines = draw(st.lists(SPINES, min_size=n, max_size=n))
    edges = []
    # structural edges must form one tree under ROOT (read_shp checks it): attach the
    # words, in a random order, each to ROOT (the first) or to a word attached before
    order = draw(st.permutations(range(1, n + 1)))
    for i, c in enumerate(order):
        p = 0 if i == 0 else order[draw(st.integers(0, i - 1))]
        edges.append((c, p, 0, "ROOT_0" if p == 0 else draw(st.sampled_from(["S_0", "VP_1", "NP_0"])), False,
                      "_", False, "_"))
    traces = draw(st.lists(st.tuples(st.integers(1, n), st.integers(1, n), st.sampled_from(["*", "*T*", "="]),
                                     st.booleans(), st.booleans()), max_size=4))
    for c, p, t, pn, cn in traces:
        edges.append((c, p, 1, "NP_0", pn, "WHNP_0", cn, t))
    return Graph.from_edges(words, tags, spines, edges, id=f"g.{draw(st.integers(0, 99))}")


def _edge_set(g):
    return sorted(g.edge_tuples(), key=repr)


@settings(max_examples=200, deadline=None)
@given(st.lists(graphs(), min_size=1, max_size=3))
def test_write_then_read_gives_the_same_graphs(gs):
    text = write_shp(gs)
    back = read_shp_string(text)
    assert len(back) == len(gs)
    for a, b in zip(gs, back):
        assert (a.id, a.words, a.tags, a.spines) == (b.id, b.words, b.tags, b.spines)
        key = [(c, p, k, lab, pn, cl if k else "_", cn, t) for c, p, k, lab, pn, cl, cn, t in _edge_set(a)]
        key_b = [(c, p, k, lab, pn, cl if k else "_", cn, t) for c, p, k, lab, pn, cl, cn, t in _edge_set(b)]
        assert key == key_b


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789 TF#_\nNP*abc")), max_size=80))
def test_fuzzed_shp_only_raises_shp_errors(text):
    try:
        out = read_shp_string(text, "fuzz.shp")
    except SHPFormatError as err:
        assert "fuzz.shp" in str(err)
        out = read_shp_string(text, "fuzz.shp", on_error="skip")
    for item in out:
        assert isinstance(item, (Graph, BadSentence))


def test_padding_matches_reference_layout():
    g = Graph.from_edges(["Bob", "tried", "to", "leave", "."], ["NNP", "VBD", "TO", "VB", "."],
                         ["NP-SBJ", "VP_S", "_", "VP_VP_(NP-SBJ_(*))_S", "_"],
                         [(1, 2, 0, "S_0", False, "NP-SBJ_0", False, "_"), (2, 0, 0, "ROOT_0", False, "S_0", False, "_"),
                          (3, 4, 0, "VP_1", False, "_", False, "_"), (4, 2, 0, "VP_0", False, "S_0", False, "_"),
                          (5, 2, 0, "S_0", False, "_", False, "_"),
                          (1, 4, 1, "NP-SBJ_0", True, "NP-SBJ_0", False, "*")])
    lines = [ln for ln in format_shp(g, comments=False).splitlines() if ln and not ln.startswith("#")]
    assert lines[0] == "1 Bob   NNP NP-SBJ               2 S_0    4 NP-SBJ_0 T NP-SBJ_0 F *"
    assert lines[1] == "2 tried VBD VP_S                 0 ROOT_0"


def test_words_with_whitespace_are_refused():
    g = Graph.from_edges(["a b"], ["NN"], ["_"], [(1, 0, 0, "ROOT_0", False, "_", False, "_")], id="w.0")
    with pytest.raises(ValueError, match="w.0.*whitespace"):
        format_shp(g)


def test_errors_name_file_line_and_sentence(tmp_path):
    f = tmp_path / "bad.shp"
    f.write_text("# SentID s.1\n1 a NN _ 0 ROOT_0\n\n# SentID s.2\n1 a NN _ 0 ROOT_0 1 NP_0 X NP_0 F *\n")
    with pytest.raises(SHPFormatError, match=r"bad\.shp:5, sentence s\.2: null flag must be T or F"):
        read_shp(f)
    items = read_shp(f, on_error="skip")
    assert isinstance(items[0], Graph) and isinstance(items[1], BadSentence)
    f.write_text("1 a NN _ 0 ROOT_0\n3 b NN _ 1 NP_0\n")
    with pytest.raises(SHPFormatError, match="expected token 2, found 3"):
        read_shp(f)
    f.write_text("1 a NN _ 0\n")
    with pytest.raises(SHPFormatError, match="6 fields"):
        read_shp(f)
    f.write_bytes(b"1 caf\xe9 NN _ 0 ROOT_0\n")
    with pytest.raises(SHPFormatError, match="not UTF-8"):
        read_shp(f)
    f.write_text("\n\n")
    with pytest.raises(SHPFormatError, match="no sentences"):
        read_shp(f)


def test_write_is_atomic(tmp_path, monkeypatch):
    g = read_shp_string("1 a NN _ 0 ROOT_0\n")[0]
    target = tmp_path / "out.shp"
    write_shp([g], target)
    before = target.read_text()

    def boom():
        yield g
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_shp(boom(), target)
    assert target.read_text() == before  # the finished file is untouched
    assert [p.name for p in tmp_path.iterdir()] == ["out.shp"]


def test_reference_files_read(reference_shp_dir):
    gs = read_shp(reference_shp_dir / "wsj_0001-0020.main.shp")
    assert len(gs) == 233 and gs[0].id == "wsj_0001.0"
    # 198 word lines carry trace edges and 4 of them gapping edges (fixture README)
    lines_with_traces = {(g.id, int(c)) for g in gs for c, k in zip(g.child, g.kind) if k == 1}
    assert len(lines_with_traces) == 198
    assert sum(int((g.trace == "=").sum()) for g in gs) == 4
    assert isinstance(gs[0].child, np.ndarray)
