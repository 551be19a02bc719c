"""Tree -> graph -> tree conversion against the reference converter's output and
the worked examples of the design notes (§2.5, §2.7)."""
from __future__ import annotations

import pytest

from plgraph.convert import ConversionOptions, canonical_indices, graph_to_tree, tree_to_graph
from plgraph.errors import ConversionError
from plgraph.ptb import read_ptb, read_ptb_string
from plgraph.shp import format_shp, graph_type_line, read_shp_string, token_lines


def one_tree(text):
    [item] = read_ptb_string(text)
    return item.tree


def fields(lines):
    return [line.split() for line in lines]


# -- worked examples of the design notes (verified there by running the reference converter) --
CONTROL = "(ROOT (S (NP-SBJ-1 (NNP Bob)) (VP (VBD tried) (S (NP-SBJ (-NONE- *-1)) (VP (TO to) (VP (VB leave))))) (. .)))"
CONTROL_SHP = """\
1 Bob   NNP NP-SBJ               2 S_0    4 NP-SBJ_0 T NP-SBJ_0 F *
2 tried VBD VP_S                 0 ROOT_0
3 to    TO  _                    4 VP_1
4 leave VB  VP_VP_(NP-SBJ_(*))_S 2 VP_0
5 .     .   _                    2 S_0"""

WH = ("( (SBARQ (WHNP-1 (WP What)) (SQ (VBD did) (NP-SBJ-2 (NNP Bob)) (VP (VB want) (S (NP-SBJ (-NONE- *-2)) "
      "(VP (TO to) (VP (VB buy) (NP (-NONE- *T*-1))))))) (. ?)))")
WH_SHP = """\
1 What WP  WHNP                            4 SBARQ_0 6 NP_0 T WHNP_0 F *T*
2 did  VBD _                               4 SQ_0
3 Bob  NNP NP-SBJ                          4 SQ_0    6 NP-SBJ_0 T NP-SBJ_0 F *
4 want VB  VP_SQ_SBARQ                     0 ROOT_0
5 to   TO  _                               6 VP_1
6 buy  VB  (NP_(*T*))_VP_VP_(NP-SBJ_(*))_S 4 VP_0
7 ?    .   _                               4 SBARQ_0"""

RELATIVE = ("(ROOT (NP (NP (DT the) (NN book)) (SBAR (WHNP-1 (-NONE- 0)) (S (NP-SBJ (PRP I)) (VP (VBP think) "
            "(SBAR (-NONE- 0) (S (NP-SBJ (PRP you)) (VP (VBD read) (NP (-NONE- *T*-1))))))))))")
GAPPING = ("(ROOT (S (NP-SBJ (NNP Mary)) (VP (VP (VBZ likes) (NP-1 (NN tea))) (CC and) "
           "(VP (NNP John) (NP=1 (NN coffee)))) (. .)))")


def test_control_example_whole_block():
    g = tree_to_graph(one_tree(CONTROL))
    assert [line.rstrip() for line in token_lines(g)] == CONTROL_SHP.split("\n")


def test_wh_question_example_whole_block():
    g = tree_to_graph(one_tree(WH))
    assert [line.rstrip() for line in token_lines(g)] == WH_SHP.split("\n")


def test_reversed_null_null_example():
    g = tree_to_graph(one_tree(RELATIVE))
    lines = fields(token_lines(g))
    assert lines[3] == "4 think VBP VP_S_(WHNP_(0))_SBAR 2 NP_1".split()
    assert lines[5] == "6 read VBD (NP_(*T*))_VP_S_(0)_SBAR 4 VP_0 4 WHNP_0 T NP_0 T *T*".split()
    # without null reversal the edge goes the other way: a cycle with read -> think (structural)
    g = tree_to_graph(one_tree(RELATIVE), null_reversal=False)
    lines = fields(token_lines(g))
    assert lines[3] == "4 think VBP VP_S_(WHNP_(0))_SBAR 2 NP_1 6 NP_0 T WHNP_0 T *T*".split()
    assert "has-cycle " in graph_type_line(g) + " "


def test_gapping_example_with_and_without_shift():
    g = tree_to_graph(one_tree(GAPPING))
    lines = fields(token_lines(g))
    assert lines[5] == "6 coffee NN NP_VP 4 VP_0 3 NP_0 F NP_0 F =".split()
    # coordination headed by the first conjunction (§2.5): Mary and . attach to and's S_0
    assert lines[0][4:6] == ["4", "S_0"] and lines[3][3] == "VP_S"
    g = tree_to_graph(one_tree(GAPPING), gapping_shift=True)
    lines = fields(token_lines(g))
    assert lines[5] == "6 coffee NN NP_VP 4 VP_0 2 VP_0 F NP_0 F =".split()


def test_collins_heads_differ_on_coordination_and_aux():
    tree = one_tree("(ROOT (S (NP-SBJ (NNP Bob)) (VP (VBZ has) (VP (VBN left))) (. .)))")
    assert tree_to_graph(tree).spines == ["NP-SBJ", "_", "VP_VP_S", "_"]
    assert tree_to_graph(tree, heads="collins").spines == ["NP-SBJ", "VP_S", "VP", "_"]
    g = tree_to_graph(one_tree(GAPPING), heads="collins")
    assert g.spines[1] == "VP_VP_S"  # first non-punctuation conjunct heads the coordination


# -- reference converter output for wsj_0001-0020, four configurations ----------------------
CONFIGS = {
    "main": ConversionOptions("jkk1", True, False),
    "no-null-reversal": ConversionOptions("jkk1", False, False),
    "gapping-shift": ConversionOptions("jkk1", True, True),
    "collins-heads": ConversionOptions("collins", True, False),
}


def _reference_blocks(path):
    blocks = {}
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        lines = block.strip("\n").split("\n")
        if not lines or not lines[0].startswith("# SentID"):
            continue
        sid = lines[0].split()[2]
        blocks[sid] = ([ln for ln in lines if not ln.startswith("#")],
                       next((ln for ln in lines if ln.startswith("# Graph type")), None))
    return blocks


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_matches_reference_converter(config, reference_shp_dir, sample_dir):
    ref = _reference_blocks(reference_shp_dir / f"wsj_0001-0020.{config}.shp")
    trees = []
    for i in range(1, 21):
        trees += read_ptb(sample_dir / f"wsj_{i:04d}.mrg")
    assert len(trees) == len(ref) == 233
    mismatches = []
    for item in trees:
        g = tree_to_graph(item.tree, CONFIGS[config], sid=item.id)
        expected_lines, expected_type = ref[item.id]
        if token_lines(g) != expected_lines or graph_type_line(g) != expected_type:
            mismatches.append(item.id)
    assert mismatches == []


# -- round trips ----------------------------------------------------------------------------
KNOWN_ROUND_TRIP_FAILURES = {
    # index 10 is carried by two antecedents (NP-SBJ-10 and WHNP-10); one edge per index survives
    "wsj_0005.0",
    # NP-SBJ=1-3: a node that is both gapping remnant and antecedent; the suffix order is not kept
    "wsj_0163.3",
}


def test_round_trip_in_memory(sample_trees, sample_graphs):
    failures = [t.id for t, g in zip(sample_trees, sample_graphs)
                if canonical_indices(graph_to_tree(g)) != canonical_indices(t.tree)]
    assert len(sample_trees) == 3914
    assert set(failures) <= KNOWN_ROUND_TRIP_FAILURES, failures
    assert 1 - len(failures) / len(sample_trees) >= 0.995


def test_round_trip_through_shp_text(sample_trees, sample_graphs):
    text = "".join(format_shp(g) for g in sample_graphs)
    back = read_shp_string(text, "<sample>.shp")
    assert [g.id for g in back] == [t.id for t in sample_trees]
    failures = [t.id for t, g in zip(sample_trees, back)
                if canonical_indices(graph_to_tree(g)) != canonical_indices(t.tree)]
    assert set(failures) <= KNOWN_ROUND_TRIP_FAILURES, failures


def test_reference_heuristic_loses_null_positions(sample_trees, sample_graphs):
    # the reference places nulls by a heuristic and gets about 96% of trees back
    ok = sum(canonical_indices(graph_to_tree(g, use_null_positions=False)) == canonical_indices(t.tree)
             for t, g in zip(sample_trees, sample_graphs))
    assert 0.90 < ok / len(sample_trees) < 0.99


def test_dangling_reference_is_dropped_and_reported_or_strict_error():
    text = "(ROOT (S (NP-SBJ (NNP Bob)) (VP (VBD left) (ADVP (-NONE- *T*-2))) (. .)))"
    g = tree_to_graph(one_tree(text), sid="x.0")
    assert g.spines[1] == "VP_S" and "refers to index 2" in g.warnings[0]
    # the dropped null is kept for the round trip
    assert canonical_indices(graph_to_tree(g)) == canonical_indices(one_tree(text))
    with pytest.raises(ConversionError, match=r"sentence x\.0.*index 2"):
        tree_to_graph(one_tree(text), sid="x.0", strict=True)


def test_orphan_identity_survives_round_trip():
    text = "(ROOT (S (NP-SBJ-1 (NNP Bob)) (VP (VBD left)) (. .)))"
    g = tree_to_graph(one_tree(text))
    assert len(g.orphans) == 1 and g.trace_edges() == []
    assert canonical_indices(graph_to_tree(g)) == canonical_indices(one_tree(text))


def test_self_loop_trace_stays_in_spine():
    # relative clause whose null operator and gap share the head word
    text = ("(ROOT (NP (NP (NNS things)) (SBAR (WHNP-1 (-NONE- 0)) (S (NP-SBJ (PRP you)) "
            "(VP (VBD read) (NP (-NONE- *T*-1)))))))")
    g = tree_to_graph(one_tree(text))
    loops = g.is_self_loop
    assert loops.sum() == 1 and g.spine_traces[2] == ["WHNP_0:T:NP_0:T:*T*"]
    assert g.spines[2] == "(NP_(*T*))_VP_S_(WHNP_(0))_SBAR"
    assert canonical_indices(graph_to_tree(g)) == canonical_indices(one_tree(text))


def test_graph_arrays_api():
    g = tree_to_graph(one_tree(CONTROL))
    assert g.words == ["Bob", "tried", "to", "leave", "."]
    assert g.heads().tolist() == [2, 0, 4, 2, 2]
    assert g.child.dtype.kind == "i" and g.kind.tolist() == [0, 0, 0, 0, 0, 1]
    assert g.trace_edges() == [(1, 4, "*")]
    c, p = g.positions("end")
    assert c.tolist()[:2] == [0, 1] and p.tolist()[1] == 5
