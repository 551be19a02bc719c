"""plgraph.convert.validity: which graphs give a tree without guessing, the repairs that
make a parser's graph valid, and the co-index check of trees -- on graphs made here by
hand, on random graphs (hypothesis), on every gold graph of the sample, and on the
parser's output at every step of its cascade, the fallbacks forced."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plgraph.convert import graph_to_tree
from plgraph.convert.validity import coindex_problems, graph_problems, output_problems, repair_graph
from plgraph.graph import STRUCTURAL, TRACE, Graph
from plgraph.ptb.reader import read_ptb_string


def _tree(text: str):
    (item,) = read_ptb_string(text, clean=False)
    return item.tree


def _graph(words, spines, edges):
    return Graph.from_edges(words, ["NN"] * len(words), spines, edges, id="made")


# -- the tree check ------------------------------------------------------------------------------------
def test_coindex_problems_name_each_unmatched_index():
    assert coindex_problems(_tree("(S (NP-SBJ-1 (NN it)) (VP (VBD went) (S (NP-SBJ (-NONE- *-1)))))")) == []
    assert coindex_problems(_tree("(S (NP-1 (NN a)) (VP (VBD b) (NP=1 (NN c))))")) == []
    assert coindex_problems(_tree("(S (NP-SBJ-1 (-NONE- *T*-2)) (NP (NN ship)) (VP (VBD sank)))")) == [
        "NP-SBJ-1: no null element or gapping index refers to index 1",
        "null element *T*-2: no constituent carries index 2"]
    assert coindex_problems(_tree("(S (NP=3 (NN a)) (VP (VBD b)))")) == [
        "gapping index on NP=3: no constituent carries index 3"]


# -- graphs made by hand ---------------------------------------------------------------------------------
#: wsj_0170.6 as the released neural model parsed it: "ship" (word 2) and the null
#: NP-SBJ of "delivered" (word 3) both send a * edge into the one null leaf of its null NP
SHIP = (["that", "ship", "delivered"],
        ["_", "NP-SBJ", "(NP_(*))_VP_(NP-SBJ_(*T*))_S"],
        [(1, 2, STRUCTURAL, "NP-SBJ_0", False, "_", False, "_"),
         (2, 3, STRUCTURAL, "S_0", False, "NP-SBJ_0", False, "_"),
         (3, 0, STRUCTURAL, "ROOT_0", False, "S_0", False, "_"),
         (3, 3, TRACE, "NP-SBJ_0", True, "NP_0", True, "*"),
         (2, 3, TRACE, "NP_0", True, "NP-SBJ_0", False, "*")])


def test_two_trace_edges_into_one_null_leaf_leave_an_index_without_its_null_element():
    g = _graph(*SHIP)
    tree = graph_to_tree(g, use_null_positions=False)        # the conversion alone: the defect
    assert coindex_problems(tree) == ["NP-SBJ-2: no null element or gapping index refers to index 2"]
    assert graph_problems(g) == ["* edge 2->3: the null element under NP_0 of word 3 is taken by an earlier trace edge"]
    fixed, repairs = repair_graph(g)        # the edge between two words keeps the leaf, the self-loop gives way
    assert repairs == ["* edge 3->3: the null element under NP_0 of word 3 is taken by an earlier trace edge: "
                       "dropped the edge"]
    assert fixed.edge_tuples() == g.edge_tuples()[:3] + g.edge_tuples()[4:]
    assert graph_problems(fixed) == [] and fixed.warnings == []
    tree = graph_to_tree(fixed, use_null_positions=False)
    assert coindex_problems(tree) == [] and fixed.warnings == []
    assert tree.to_string() == ("(ROOT (S (NP-SBJ (-NONE- *T*)) (NP-SBJ-1 (NN that) (NN ship)) (VP (NN delivered) "
                                "(NP (-NONE- *-1)))))")


def test_edges_into_nodes_the_spines_lack_are_moved_to_nodes_they_have():
    """The neural pass-1 fallback of wsj_0186.38 and a one-word line: SBARQ_0
    of a spine without it, S_0 at the root, a child node its spine lacks."""
    g = _graph(["When", "did", "it", "?"], ["WHADVP", "_", "VP_S_SBAR-TMP", "_"],
               [(1, 3, STRUCTURAL, "SBARQ_0", False, "WHADVP_0", False, "_"),
                (2, 3, STRUCTURAL, "VP_0", False, "_", False, "_"),
                (3, 0, STRUCTURAL, "S_0", False, "SBARQ_0", False, "_"),
                (4, 3, STRUCTURAL, "SBARQ_0", False, "_", False, "_")])
    assert graph_problems(g) == [
        "structural edge 1->3: attaches to SBARQ_0, not a node of word 3's spine 'VP_S_SBAR-TMP'",
        "structural edge 3->0: attaches to S_0 of ROOT, not ROOT_0",
        "structural edge 3->0: leaves from SBARQ_0, not from the top SBAR-TMP_0 of word 3's spine 'VP_S_SBAR-TMP'",
        "structural edge 4->3: attaches to SBARQ_0, not a node of word 3's spine 'VP_S_SBAR-TMP'"]
    fixed, repairs = repair_graph(g)
    assert [r.rsplit(": ", 1)[1] for r in repairs] == ["attached to SBAR-TMP_0", "attached to ROOT_0",
                                                       "left from SBAR-TMP_0", "attached to SBAR-TMP_0"]
    assert [(e[3], e[5]) for e in fixed.edge_tuples()] == [("SBAR-TMP_0", "WHADVP_0"), ("VP_0", "_"),
                                                           ("ROOT_0", "SBAR-TMP_0"), ("SBAR-TMP_0", "_")]
    assert graph_problems(fixed) == []
    graph_to_tree(fixed, use_null_positions=False)
    assert fixed.warnings == []


def test_a_head_with_an_empty_spine_gets_one_level_and_dangling_nulls_go():
    g = _graph(["the", "dog", "barked"], ["_", "_", "VP_S_(NP_(*))"],
               [(1, 2, STRUCTURAL, "NP_0", False, "_", False, "_"),
                (2, 3, STRUCTURAL, "S_0", False, "_", False, "_"),
                (3, 0, STRUCTURAL, "ROOT_0", False, "S_0", False, "_")])
    assert graph_problems(g) == ["word 3: null elements above the top of spine 'VP_S_(NP_(*))'",
                                 "structural edge 1->2: word 2 heads it but has an empty spine"]
    fixed, repairs = repair_graph(g)
    assert repairs == ["structural edge 1->2: word 2 heads it but has an empty spine: gave it a one-level spine",
                       "word 3: null elements above the top of spine 'VP_S_(NP_(*))': dropped them"]
    assert fixed.spines == ["_", "NP", "VP_S"]
    assert [(e[3], e[5]) for e in fixed.edge_tuples()] == [("NP_0", "_"), ("S_0", "NP_0"), ("ROOT_0", "S_0")]
    assert graph_problems(fixed) == []


def test_trace_edges_to_missing_or_overt_references_are_dropped():
    g = _graph(["who", "left"], ["WHNP", "(NP-SBJ_(*T*))_VP_S"],
               [(1, 2, STRUCTURAL, "S_0", False, "WHNP_0", False, "_"),
                (2, 0, STRUCTURAL, "ROOT_0", False, "S_0", False, "_"),
                (1, 2, TRACE, "NP_0", True, "WHNP_0", False, "*T*"),          # no null NP_0
                (1, 2, TRACE, "VP_0", False, "WHNP_0", False, "*T*"),         # an overt reference
                (1, 2, TRACE, "NP-SBJ_0", True, "WHNP_0", False, "*T*")])
    assert graph_problems(g) == ["*T* edge 1->2: no null NP_0 of word 2 in the spine",
                                 "*T* edge 1->2: its reference VP_0 of word 2 is not a null element"]
    fixed, repairs = repair_graph(g)
    assert len(repairs) == 2 and fixed.edge_tuples() == g.edge_tuples()[:2] + g.edge_tuples()[4:]
    tree = graph_to_tree(fixed, use_null_positions=False)
    assert tree.to_string() == "(ROOT (S (WHNP-1 (NN who)) (VP (NP-SBJ (-NONE- *T*-1)) (NN left))))"
    assert coindex_problems(tree) == [] and fixed.warnings == []


def test_a_valid_graph_comes_back_as_it_is(sample_graphs):
    """Every gold graph of the sample (3,914) is valid: the checker finds nothing, the
    repair returns the graph itself."""
    for g in sample_graphs:
        assert graph_problems(g) == [], g.id
        fixed, repairs = repair_graph(g)
        assert fixed is g and repairs == [], g.id


# -- random graphs -----------------------------------------------------------------------------------
SPINES = ["_", "NP", "VP_S", "(NP-SBJ_(*))_VP_S", "(NP_(*T*))_VP_VP", "(WHNP_(0))_SBAR", "(NP_(*)_(*T*))_S",
          "(NP_(*-NONE-))_(NP-SBJ_(*))_VP_S", "VP_(NP_(*T*))", "(S_(NP-SBJ_(*))_(VP_(*?*)))_VP"]
NODES = ["NP_0", "VP_0", "VP_1", "S_0", "SBAR_0", "NP-SBJ_0", "WHNP_0", "SBARQ_0", "ROOT_0", "_"]
TRACES = ["*", "*T*", "=", "*ICH*", "0", "*?*"]


@st.composite
def projective_heads(draw, lo: int, hi: int, head: int, out: dict):
    """Heads of words lo..hi-1 (1-based) under ``head``: a random projective tree."""
    if lo >= hi:
        return
    r = draw(st.integers(lo, hi - 1))
    out[r] = head
    draw(projective_heads(lo, r, r, out))
    draw(projective_heads(r + 1, hi, r, out))


@st.composite
def random_graphs(draw):
    n = draw(st.integers(1, 6))
    spines = [draw(st.sampled_from(SPINES)) for _ in range(n)]
    heads: dict = {}
    draw(projective_heads(1, n + 1, 0, heads))
    edges = [(c, p, STRUCTURAL, draw(st.sampled_from(NODES)), draw(st.booleans()), draw(st.sampled_from(NODES)),
              False, "_") for c, p in sorted(heads.items())]
    for _ in range(draw(st.integers(0, 4))):
        c, p = draw(st.integers(1, n)), draw(st.integers(1, n))
        edges.append((c, p, TRACE, draw(st.sampled_from(NODES)), draw(st.booleans()), draw(st.sampled_from(NODES)),
                      draw(st.booleans()), draw(st.sampled_from(TRACES))))
    return Graph.from_edges([f"w{i}" for i in range(1, n + 1)], ["NN"] * n, spines, edges, id="random",
                            options={"null_reversal": draw(st.booleans())})


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_a_repaired_graph_is_valid_and_its_tree_has_every_coindex_matched(g):
    fixed, repairs = repair_graph(g)
    assert graph_problems(fixed) == []
    assert bool(repairs) == bool(graph_problems(g))
    tree = graph_to_tree(fixed, use_null_positions=False)
    assert fixed.warnings == []                 # the conversion guessed nothing
    assert coindex_problems(tree) == []
    kept = [e for e in fixed.edge_tuples() if e[2] == TRACE]
    assert all(e in g.edge_tuples() for e in kept)          # trace edges are kept as they were, or dropped
    assert [e[:2] for e in fixed.edge_tuples() if e[2] == STRUCTURAL] == \
        [e[:2] for e in g.edge_tuples() if e[2] == STRUCTURAL]


# -- the parser's output at every step of its cascade -----------------------------------------------------
@pytest.fixture(scope="module")
def parser(sample_dir):
    from plgraph.parser.notebook_model import notebook_parser
    from plgraph.parser.parsing.parser import Parser

    return Parser.load(notebook_parser(quick=True, log=None))


@pytest.fixture(scope="module")
def dev_sentences(sample_dir):
    import plgraph

    return [s for s in plgraph.corpus("dev").sentences() if 3 <= len(s.graph.words) <= 20][:25]


def _all_valid(results):
    for r in results:
        assert r.problems == [] and output_problems(r.graph, r.tree) == [], (r.id, r.status, r.problems)


def test_every_cascade_step_writes_valid_graphs(parser, dev_sentences, monkeypatch):
    """Each step forced in turn -- pass 3 finding nothing (pass 2's graph), pass 2 finding
    nothing (pass 1's tree), the baseline failing (the flat NP) -- on 25 dev sentences."""
    import plgraph.parser.parsing.parser as PP

    items = [(s.graph.words, s.graph.tags, s.id) for s in dev_sentences]
    _all_valid(parser.parse_many(items))
    import plgraph.parser.chart.run as chart_run
    parse_chart = chart_run.parse_chart

    def nothing3(*args, **kwargs):          # the parser's charts (pass 2's runs inside the scorer)
        res = parse_chart(*args, **kwargs)
        res.goal = -1
        return res

    with monkeypatch.context() as m:
        m.setattr(chart_run, "parse_chart", nothing3)
        results = list(parser.parse_many(items))
        assert {r.status for r in results} == {"pass2"}
        _all_valid(results)
    with monkeypatch.context() as m:
        m.setattr(parser, "_cascade", lambda words, tags, sid, prepared=None: (None, "pass2", "forced", None))
        results = list(parser.parse_many(items))
        assert {r.status for r in results} == {"pass1"}
        _all_valid(results)

        def no_tree(*a, **k):
            raise PP.InputError("forced")

        m.setattr(parser, "baseline", no_tree)
        results = list(parser.parse_many(items))
        assert {r.status for r in results} == {"fallback"}
        _all_valid(results)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.data())
def test_random_sentences_parse_into_valid_graphs(parser, dev_sentences, data):
    """Words and tags drawn from dev sentences in any order and number (1-12 words)."""
    pool = [(w, t) for s in dev_sentences for w, t in zip(s.graph.words, s.graph.tags)]
    n = data.draw(st.integers(1, 12))
    picked = [pool[data.draw(st.integers(0, len(pool) - 1))] for _ in range(n)]
    r = parser.parse_result([w for w, _ in picked], [t for _, t in picked], sid="random")
    _all_valid([r])
