"""Self-tests of the brute-force 1EC graph parser (``naive.NaiveGraphParser``), the oracle
the numba chart parser (plgraph.parser) is compared with: its graph enumeration against
the rules' brute-force check, its item edge sets against derivation trees, its kinds
against a direct enumeration, hand-worked scores and max-marginals, and the Hamming loss."""
from __future__ import annotations

import math
import random
from itertools import product

import numpy as np
import pytest

import naive
from naive import ROOT_EDGE, SP_P, SP_Q, NaiveGraphParser, hamming
from plgraph.rules import check_all_graphs, derive_edges, full_tables
from plgraph.rules.tables import item_key

NEG = -math.inf
FF, JF, jF, FI = (item_key("___I", s) for s in ("F_F___", "J_F___", "j_F___", "F_I___"))


@pytest.fixture(scope="module")
def tables():
    return full_tables()


def no_gold(N):
    return np.full((N, N), -1), np.full((N, N), -1)


# -- the unlabelled graphs -------------------------------------------------------------------
@pytest.mark.parametrize("n, expected", [(1, 1), (2, 2), (3, 13), (4, 228)])
def test_unlabelled_graphs_are_the_brute_force_checks_derivable_graphs(tables, n, expected):
    parser = NaiveGraphParser(n, tables)
    assert len(parser.unlabelled) == check_all_graphs(n).exactly_one == expected
    assert len(set(parser.unlabelled)) == expected


def test_projective_tables_give_the_projective_trees(tables):
    proj = tables.subset(~tables.comb_graph & ~tables.comb_crossing, ~tables.arc_graph & ~tables.arc_crossing)
    for n, expected in ((1, 1), (2, 2), (3, 7), (4, 30)):
        parser = NaiveGraphParser(n, proj)
        trees = [g for g in naive.small_graphs(n)
                 if len(g) == n and naive.crossing_flags([tuple(sorted(e)) for e in g])[0]]
        assert sorted(parser.unlabelled) == sorted(trees)
        assert len(trees) == expected
        assert len(parser.structures) == expected   # a tree is its own only structural tree


# -- item edge sets against the derivation tree ----------------------------------------------
def check_edge_sets(n, edges, tables):
    d = derive_edges(n + 1, edges, tables, strict=True)
    assert d.count == 1
    items = naive.derivation_items(n, d)
    below = naive.derivation_tree_edges(n, d)
    assert len(items) == len(below) == n + len(d.steps)
    assert below[-1] == set(edges) == d.rebuilt_edges()        # the goal has built every edge
    for item, built in zip(items, below):
        assert naive.item_edge_set(item, edges) == built, (edges, item)
    return len(items)


def test_item_edge_sets_match_the_derivation_tree_n3_all_n4_all(tables):
    for n, n_graphs, n_items in ((3, 13, 110), (4, 228, 2802)):
        total = sum(check_edge_sets(n, g, tables) for g in naive.small_graphs(n)
                    if derive_edges(n + 1, g, tables).count == 1)
        assert total == n_items
        assert len([g for g in naive.small_graphs(n) if derive_edges(n + 1, g, tables).count == 1]) == n_graphs


def test_item_edge_sets_match_the_derivation_tree_on_random_5_and_6_word_graphs(tables):
    rng = random.Random(11)
    checked = crossing = 0
    while checked < 150:
        n = rng.choice((5, 6))
        edges = {(rng.randrange(n), n)}
        for a in range(n):
            for b in range(a + 1, n):
                r = rng.random()
                if r < 0.3:
                    edges.add((a, b))
                elif r < 0.6:
                    edges.add((b, a))
        if derive_edges(n + 1, sorted(edges), tables).count != 1:
            continue
        check_edge_sets(n, sorted(edges), tables)
        checked += 1
        crossing += not naive.crossing_flags([tuple(sorted(e)) for e in edges])[0]
    assert crossing > 50


def test_flags_follow_the_item_edge_set():
    # [1, 3] . 0 (ROOT = 3) over the edges 0 -> 1, 1 -> 3, 2 -> 0: 2 is interior, so 2 -> 0
    # is built; 1 -> 3 is direct (i has j as direct parent) in state JFFFFF
    edges = [(0, 1), (1, 3), (2, 0)]
    item = (1, 3, 0, item_key("-._N", "JFFFFF"))
    built = naive.item_edge_set(item, edges)
    assert built == {(2, 0), (1, 3)}                       # 0 -> 1: letter (x, i) is F
    # item_flags is a function of the built edges and the set called structural
    # (here not a tree: 2 -> 0 crosses 1 -> 3)
    assert naive.item_flags(item, built, frozenset(edges), 3) == ROOT_EDGE | SP_P | naive.XS_IN
    assert naive.item_flags(item, built, frozenset({(0, 1), (1, 3)}), 3) == ROOT_EDGE | SP_P
    assert naive.item_flags(item, built, frozenset({(0, 1), (2, 0)}), 3) == naive.XS_IN
    # state JFFFIj: also x -> i (0 -> 1) direct, so o has its parent and joins p
    item2 = (1, 3, 0, item_key("-._N", "JFFFIj"))
    built2 = naive.item_edge_set(item2, edges)
    assert built2 == {(2, 0), (1, 3), (0, 1)}
    assert naive.item_flags(item2, built2, frozenset(edges), 3) == \
        ROOT_EDGE | SP_P | naive.SP_O | naive.XS_P | naive.XS_IN
    # a right external point joined to q: [0, 1] . 2 with 1 -> 2 direct (state FFFXFF: j has x)
    item3 = (0, 1, 2, item_key("__.X", "FFFXFF"))
    assert naive.item_edge_set(item3, [(1, 2), (0, 1), (2, 3)]) == {(1, 2)}
    assert naive.item_flags(item3, {(1, 2)}, frozenset({(1, 2)}), 3) == SP_Q | naive.XS_Q


# -- kinds ------------------------------------------------------------------------------------
def kinded_directly(n, edges, max_traces=None):
    """Every kinded graph of an unlabelled graph, straight from the definition: each edge
    S, T or ST; every word exactly one S-carrying out-edge; the ROOT edge exactly S; no
    two S-carrying edges cross; at most max_traces T-carrying edges."""
    out = set()
    for kinds in product(("S", "T", "ST"), repeat=len(edges)):
        s_edges = [e for e, k in zip(edges, kinds) if "S" in k]
        t_edges = [e for e, k in zip(edges, kinds) if "T" in k]
        if any(k != "S" for (c, p), k in zip(edges, kinds) if p == n):
            continue
        if sorted(c for c, _ in s_edges) != list(range(n)):
            continue
        if any(naive.crosses(a, b) for a in s_edges for b in s_edges):
            continue
        if max_traces is not None and len(t_edges) > max_traces:
            continue
        out.add(frozenset([(c, p, "S") for c, p in s_edges] + [(c, p, "T") for c, p in t_edges]))
    return out


@pytest.mark.parametrize("n, max_traces", [(2, None), (3, None), (4, 2)])
def test_kinded_graphs_are_every_kind_assignment_allowed(tables, n, max_traces):
    parser = NaiveGraphParser(n, tables, max_traces=max_traces)
    N = n + 1
    zeros = np.zeros((N, N, 1, 1, 1))
    got = [frozenset(g.edges) for g in parser.graphs(zeros, zeros)]
    assert len(got) == len(set(got))
    expected = set()
    for g in naive.small_graphs(n):
        if derive_edges(N, g, tables).count == 1:
            expected |= kinded_directly(n, list(g), max_traces)
    assert set(got) == expected
    if n == 2:
        assert len(got) == 4   # {0->1, 1->ROOT} and {1->0, 0->ROOT}, the word-word edge S or ST


def test_counts_and_disallowed_parts(tables):
    n, N = 3, 4
    parser = NaiveGraphParser(n, tables)
    zeros = np.zeros((N, N, 1, 1, 1))
    assert parser.solve(zeros, zeros).n_graphs == 68
    # no trace label allowed: only the graphs that are trees, each with every edge S
    no_traces = np.full((N, N, 1, 1, 1), NEG)
    res = parser.solve(zeros, no_traces)
    trees = [g for g in parser.unlabelled if len(g) == n]
    assert res.n_graphs == len(trees) == 7
    assert all(kind == "S" for (_, _, kind) in res.arc_mm)
    # edge 0 -> 1 not structural: it is a trace wherever it occurs
    S = np.zeros((N, N, 1, 1, 2))
    S[0, 1] = NEG
    res = parser.solve(S, zeros)
    assert (0, 1, "S") not in res.arc_mm and (0, 1, "T") in res.arc_mm
    assert res.n_graphs == sum(1 for g in parser.graphs(zeros, zeros) if (0, 1, "S") not in g.edges) == 48
    # two structural labels: every S part doubles the labelled graphs
    assert res.n_labelled == sum(1 for _ in parser.graphs(S, zeros)) == \
        sum(2 ** sum(1 for k in g.edges if k[2] == "S") for g in parser.graphs(S, zeros, best_labels=True))
    # edge 0 -> 1 not allowed at all: no graph contains it
    T = np.zeros((N, N, 1, 1, 1))
    T[0, 1] = NEG
    res = parser.solve(S, T)
    assert not any(part[:2] == (0, 1) for part in res.arc_mm)
    assert res.n_graphs == sum(1 for g in parser.graphs(zeros, zeros)
                               if (0, 1, "S") not in g.edges and (0, 1, "T") not in g.edges)


# -- hand-worked cases ------------------------------------------------------------------------
def two_word_scores():
    N = 3
    S = np.full((N, N, 1, 1, 2), NEG)
    T = np.full((N, N, 1, 1, 2), NEG)
    S[0, 1, 0, 0] = [1.0, 3.0]
    S[1, 2, 0, 0] = [0.5, NEG]
    S[1, 0, 0, 0] = [2.0, 0.5]
    S[0, 2, 0, 0] = [1.0, 0.8]
    T[0, 1, 0, 0] = [-1.5, -2.0]
    # T[1, 0] all -inf: 1 -> 0 is never a trace
    return S, T


def two_word_items():
    """Identities (spines all 0) of the derivations of {0->1, 1->ROOT} (G1) and
    {1->0, 0->ROOT} (G2) -- G1: I[0,1] J_F, I[1,2] J_F, I[0,2] j_F; G2: I[0,1] F_I,
    I[0,2] F_F, I[0,2] J_F; both: the init items I[0,1], I[1,2] F_F."""
    init = [(0, 1, -1, FF, 0, 0, 0, -1), (1, 2, -1, FF, 0, 0, 0, -1)]
    g1 = [(0, 1, -1, JF, SP_P, 0, 0, -1), (1, 2, -1, JF, ROOT_EDGE | SP_P, 0, 0, -1),
          (0, 2, -1, jF, ROOT_EDGE | SP_P, 0, 0, -1)]
    g2 = [(0, 1, -1, FI, SP_Q, 0, 0, -1), (0, 2, -1, FF, 0, 0, 0, -1), (0, 2, -1, JF, ROOT_EDGE | SP_P, 0, 0, -1)]
    return init, g1, g2


def test_hand_worked_two_words_without_gold(tables):
    # G1 S: 0->1 S label 1 (3) + 1->2 S label 0 (0.5) = 3.5
    # G1 ST: 3.5 + trace 0->1 label 0 (-1.5) = 2.0
    # G2 S: 1->0 S label 0 (2) + 0->2 S label 0 (1) = 3.0;  G2 ST: no trace label for 1->0
    S, T = two_word_scores()
    res = NaiveGraphParser(2, tables).solve(S, T)
    assert res.best == 3.5
    assert res.best_graph.edges == {(0, 1, "S"): 1, (1, 2, "S"): 0}
    assert res.best_graph.spines == (0, 0) and res.best_graph.loss == 0.0
    assert res.n_graphs == 3
    assert res.n_labelled == 2 * 1 + 2 * 1 * 2 + 2 * 2
    assert res.arc_mm == {(0, 1, "S"): 3.5, (1, 2, "S"): 3.5, (0, 1, "T"): 2.0, (1, 0, "S"): 3.0, (0, 2, "S"): 3.0}
    init, g1, g2 = two_word_items()
    assert res.item_mm == {**{i: 3.5 for i in init + g1}, **{i: 3.0 for i in g2}}
    assert sorted(res.best_graph.items) == sorted(init + g1)


def test_hand_worked_two_words_with_gold(tables):
    # gold = G2 with labels 1->0: 0, 0->2: 1; loss-augmented label choice per part:
    # G1 S: 0->1 extra (label 1: 3 + 1), 1->2 extra (0.5 + 1), 2 gold edges missed:
    #       score 3.5, loss 4 -> 7.5
    # G1 ST: + trace 0->1 extra (label 0: -1.5 + 1): score 2.0, loss 5 -> 7.0
    # G2 S: 1->0 label 0: 2 + 0, label 1: 0.5 + 2 (wrong label) -> label 1;
    #       0->2 label 0: 1 + 2, label 1: 0.8 + 0 -> label 0: score 1.5, loss 4 -> 5.5
    S, T = two_word_scores()
    gS, gT = no_gold(3)
    gS[1, 0], gS[0, 2] = 0, 1
    res = NaiveGraphParser(2, tables).solve(S, T, gold=(gS, gT, [0, 0]))
    assert res.best == 7.5
    assert res.best_graph.edges == {(0, 1, "S"): 1, (1, 2, "S"): 0}
    assert (res.best_graph.score, res.best_graph.loss) == (3.5, 4.0)
    assert res.arc_mm == {(0, 1, "S"): 7.5, (1, 2, "S"): 7.5, (0, 1, "T"): 7.0, (1, 0, "S"): 5.5, (0, 2, "S"): 5.5}
    init, g1, g2 = two_word_items()
    assert res.item_mm == {**{i: 7.5 for i in init + g1}, **{i: 5.5 for i in g2}}
    g2_best = [g for g in NaiveGraphParser(2, tables).graphs(S, T, gold=(gS, gT, [0, 0]), best_labels=True)
               if (1, 0, "S") in g.edges]
    assert [(g.edges, g.score, g.loss) for g in g2_best] == [({(0, 2, "S"): 0, (1, 0, "S"): 1}, 1.5, 4.0)]


def test_hand_worked_one_word_with_spines(tables):
    # one graph {0 -> ROOT}; spine 0: 0 + 5, spine 1: 1 + 3
    S = np.full((2, 2, 2, 2, 1), NEG)
    S[0, 1, 0, 0, 0] = 5.0
    S[0, 1, 1, 0, 0] = 3.0
    T = np.full((2, 2, 2, 2, 1), NEG)
    sp = np.array([[0.0, 1.0], [0.0, NEG]])       # ROOT's row is not used
    parser = NaiveGraphParser(1, tables)
    res = parser.solve(S, T, sp, [2])
    assert (res.best, res.best_graph.spines, res.n_graphs) == (5.0, (0,), 2)
    both = ROOT_EDGE | SP_P
    assert res.item_mm == {(0, 1, -1, FF, 0, 0, 0, -1): 5.0, (0, 1, -1, FF, 0, 1, 0, -1): 4.0,
                           (0, 1, -1, JF, both, 0, 0, -1): 5.0, (0, 1, -1, JF, both, 1, 0, -1): 4.0}
    assert res.arc_mm == {(0, 1, "S"): 5.0}
    gS, gT = no_gold(2)
    gS[0, 1] = 0
    # gold spine 1: spine 0 costs 1 -> 6 vs 4; gold spine not among the options: both cost 1
    assert parser.solve(S, T, sp, [2], gold=(gS, gT, [1])).best == 6.0
    res = parser.solve(S, T, sp, [2], gold=(gS, gT, [-1]))
    assert res.best == 6.0 and res.item_mm[(0, 1, -1, FF, 0, 1, 0, -1)] == 5.0
    # a spine option with score -inf is not allowed
    sp[0, 0] = NEG
    assert parser.solve(S, T, sp, [2]).best == 4.0


# -- solve against every labelling ------------------------------------------------------------
@pytest.mark.parametrize("seed, with_gold", [(0, False), (1, True), (2, True)])
def test_solve_is_the_max_over_every_labelled_graph(tables, seed, with_gold):
    rng = np.random.default_rng(seed)
    n, N = 3, 4
    S = rng.normal(size=(N, N, 2, 2, 3))
    T = rng.normal(size=(N, N, 2, 2, 2))
    S[rng.random(S.shape) < 0.2] = NEG
    T[rng.random(T.shape) < 0.3] = NEG
    sp = rng.normal(size=(N, 2))
    nsp = [2, 1, 2]
    gold = None
    if with_gold:
        gS, gT = no_gold(N)
        gS[0, 1], gS[2, 1], gS[1, 3], gT[0, 2] = 2, 0, 1, 1
        gold = (gS, gT, [1, 0, -1])
    parser = NaiveGraphParser(n, tables, max_traces=2)
    res = parser.solve(S, T, sp, nsp, gold)
    best, item_mm, arc_mm, count = NEG, {}, {}, 0
    for g in parser.graphs(S, T, sp, nsp, gold):
        count += 1
        score = sum(sp[w, g.spines[w]] for w in range(n))
        spine = list(g.spines) + [0]
        score += sum((S if k == "S" else T)[c, p, spine[c], spine[p], lab] for (c, p, k), lab in g.edges.items())
        assert math.isclose(g.score, score)
        assert g.loss == (hamming(g.edges, g.spines, gold) if gold else 0.0)
        value = g.score + g.loss
        best = max(best, value)
        for i in g.items:
            item_mm[i] = max(item_mm.get(i, NEG), value)
        for part in g.edges:
            arc_mm[part] = max(arc_mm.get(part, NEG), value)
    assert count == res.n_labelled > res.n_graphs > 0
    assert math.isclose(res.best, best) and math.isclose(res.best_graph.objective, best)
    assert res.item_mm.keys() == item_mm.keys() and res.arc_mm.keys() == arc_mm.keys()
    assert all(math.isclose(res.item_mm[i], v) for i, v in item_mm.items())
    assert all(math.isclose(res.arc_mm[a], v) for a, v in arc_mm.items())


def test_items_and_spines_of_every_graph(tables):
    n, N = 3, 4
    parser = NaiveGraphParser(n, tables)
    zeros = np.zeros((N, N, 2, 2, 1))
    seen = 0
    for g in parser.graphs(zeros, zeros, np.zeros((N, 2)), [2, 2, 1]):
        spine = list(g.spines) + [0]
        s_edges = {(c, p) for (c, p, k) in g.edges if k == "S"}
        assert sorted(c for c, _ in s_edges) == [0, 1, 2]
        assert all(k == "S" for (c, p, k) in g.edges if p == n)
        inits = [i for i in g.items if i[3] == FF and i[1] == i[0] + 1 and i[4] == 0]
        assert {i[0] for i in inits} >= set(range(n))
        for p, q, o, key, flags, sp_, sq, so in g.items:
            assert (sp_, sq, so) == (spine[p], spine[q], spine[o] if o >= 0 else -1)
        goal = g.items[-1]
        assert goal[:3] == (0, n, -1) and goal[4] & (ROOT_EDGE | SP_P) == ROOT_EDGE | SP_P
        seen += 1
    assert seen == 68 * 4


# -- the Hamming loss --------------------------------------------------------------------------
def test_hamming_by_hand():
    N = 4
    gS, gT = no_gold(N)
    gS[0, 1], gS[1, 3], gS[2, 1] = 0, 1, 2
    gT[0, 2] = 1
    gold = (gS, gT, [0, 1, 0])
    exact = {(0, 1, "S"): 0, (1, 3, "S"): 1, (2, 1, "S"): 2, (0, 2, "T"): 1}
    assert hamming(exact, (0, 1, 0), gold) == 0.0
    assert hamming({**exact, (2, 1, "S"): 0}, (0, 1, 0), gold) == 2.0                 # wrong label
    assert hamming({**exact, (0, 2, "T"): 0}, (0, 1, 0), gold) == 2.0                 # wrong trace label
    assert hamming({**exact, (1, 2, "T"): 0}, (0, 1, 0), gold) == 1.0                 # extra trace
    no_trace = {k: v for k, v in exact.items() if k[2] == "S"}
    assert hamming(no_trace, (0, 1, 0), gold) == 1.0                                  # missed trace
    # 0 -> 2 predicted S (not T): an extra S edge and a missed T edge
    as_s = {**no_trace, (0, 2, "S"): 1}
    assert hamming(as_s, (0, 1, 0), gold) == 2.0
    # ST where gold has S only: the trace part is extra
    assert hamming({**exact, (2, 1, "T"): 0}, (0, 1, 0), gold) == 1.0
    # gold ST, predicted S only: the trace part is missed
    gT2 = gT.copy()
    gT2[2, 1] = 0
    assert hamming(exact, (0, 1, 0), (gS, gT2, [0, 1, 0])) == 1.0
    # spines: one wrong; gold -1 is always wrong
    assert hamming(exact, (0, 0, 0), gold) == 1.0
    assert hamming(exact, (0, 1, 0), (gS, gT, [0, 1, -1])) == 1.0
    # everything at once: wrong label (2) + extra (1) + missed (1) + 2 spines
    mixed = {(0, 1, "S"): 1, (1, 3, "S"): 1, (2, 3, "S"): 0, (0, 2, "T"): 1}
    assert hamming(mixed, (1, 0, 0), gold) == 2 + 1 + 1 + 2
    assert hamming(mixed, (1, 0, 0), gold, {"wrong_label": 5.0, "spine": 0.5}) == 5 + 1 + 1 + 1
    # the empty prediction misses all four gold parts
    assert hamming({}, (0, 1, 0), gold) == 4.0
