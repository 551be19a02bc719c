"""The graph parser's chart (plgraph.parser) against the brute-force parser of
``tests/naive.py`` (every labelled, kinded, spined 1EC graph enumerated and scored
directly), for the full 49,292-rule grammar and the grammar of rules seen in the train
split: Viterbi, item and arc max-marginals, loss-augmented Viterbi, the decomposed loss
of every enumerated graph, spine options; beams and cube pruning against exhaustive
search; ties; pass 1b against Eisner on the dev split; gold reachability on the sample.
Sizes that take minutes (n = 5 exhaustively, every train sentence) are marked slow and run
under ``make check-full``."""
from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import naive
from plgraph.parser.chart.run import parse_chart
from plgraph.parser.chart.gold import gold_item_ids
from plgraph.parser.chart.tables import Gold, LossWeights, dense_tables
from plgraph.rules.tables import full_tables

NEG = -math.inf


# -- fixtures and helpers ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def grammars(sample_dir):
    """The full grammar and the rules the train split's gold derivations use."""
    import plgraph
    from plgraph.rules import count_rules

    usage = count_rules(plgraph.corpus("train").sentences())
    return {"full": full_tables(), "pruned": usage.pruned(1)}


_NAIVE: dict = {}


def naive_parser(n, tables, name, max_traces=None):
    key = (n, name, max_traces)
    if key not in _NAIVE:
        _NAIVE[key] = naive.NaiveGraphParser(n, tables, max_traces=max_traces)
    return _NAIVE[key]


def draw(rng, n, K=1, labels=(2, 2), p_allow=0.7, spines=False):
    """Random per-label scores (some labels not allowed) and spine scores."""
    N = n + 1
    S = rng.normal(size=(N, N, K, K, labels[0])).round(3)
    T = rng.normal(size=(N, N, K, K, labels[1])).round(3)
    S[rng.random(S.shape) > p_allow] = NEG
    T[rng.random(T.shape) > p_allow] = NEG
    ss = rng.normal(size=(N, K)).round(3) if spines else None
    return S, T, ss


def random_gold(rng, n, labels=(2, 2), K=1):
    """A gold graph the chart can build edges of (nothing out of ROOT, no trace into ROOT),
    not necessarily one it can derive: the loss must be exact for any gold."""
    N = n + 1
    gs = np.full((N, N), -1)
    gt = np.full((N, N), -1)
    for c in range(n):
        p = int(rng.integers(0, N))
        if p != c:
            gs[c, p] = int(rng.integers(0, labels[0]))
        if rng.random() < 0.5:
            p = int(rng.integers(0, n))
            if p != c:
                gt[c, p] = int(rng.integers(0, labels[1]))
    return gs, gt, rng.integers(-1, K, size=n)


def run(S, T, ss, K, gold, rules, **kw):
    n = S.shape[0] - 1
    nsp = None if ss is None else np.array([K] * n + [1])
    g = None if gold is None else Gold(*gold)
    return parse_chart(dense_tables(S, T, ss, nsp, gold=g), rules, **kw)


def assert_equal_to_brute_force(res, ref):
    """Viterbi, every item max-marginal and every arc max-marginal equal (1e-9)."""
    if ref.best == NEG:
        assert res.score == NEG
        return
    assert res.score == pytest.approx(ref.best, abs=1e-9)
    mm = res.item_mm()
    assert set(mm) == set(ref.item_mm)
    bad = [k for k in mm if abs(mm[k] - ref.item_mm[k]) > 1e-9]
    assert not bad, [(k, mm[k], ref.item_mm[k]) for k in bad[:3]]
    got = {(c, p, kind): float(v) for kind, M in (("S", res.arc_mm_s), ("T", res.arc_mm_t))
           for (c, p), v in np.ndenumerate(M) if np.isfinite(v)}
    assert set(got) == set(ref.arc_mm)
    assert all(abs(got[k] - ref.arc_mm[k]) < 1e-9 for k in got)


# -- exhaustive chart = brute force -------------------------------------------------------------
DRAWS = {1: 30, 2: 30, 3: 20, 4: 6}


@pytest.mark.parametrize("grammar", ["full", "pruned"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_viterbi_and_max_marginals_equal_brute_force(grammars, grammar, n):
    rules = grammars[grammar]
    nv = naive_parser(n, rules, grammar)
    rng = np.random.default_rng(100 * n + len(grammar))
    graphs = 0
    for _ in range(DRAWS[n]):
        S, T, _ = draw(rng, n)
        ref = nv.solve(S, T)
        graphs += ref.n_labelled
        assert_equal_to_brute_force(run(S, T, None, 1, None, rules, outside=True), ref)
    assert graphs > 0


@pytest.mark.parametrize("grammar", ["full", "pruned"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_loss_augmented_viterbi_and_max_marginals_equal_brute_force(grammars, grammar, n):
    rules = grammars[grammar]
    nv = naive_parser(n, rules, grammar)
    rng = np.random.default_rng(200 * n + len(grammar))
    for _ in range(DRAWS[n]):
        S, T, _ = draw(rng, n)
        gold = random_gold(rng, n)
        assert_equal_to_brute_force(run(S, T, None, 1, gold, rules, outside=True), nv.solve(S, T, gold=gold))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_spine_pass_equals_brute_force(grammars, n):
    """Two spine options per word: spine scores (halves at ends, full at 0 and ROOT and
    at external points, corrections on combining), arc scores per spine pair, the spine
    loss, and max-marginals of items that carry spines."""
    rules = grammars["full"]
    nv = naive_parser(n, rules, "full")
    rng = np.random.default_rng(300 + n)
    for _ in range(8 if n < 3 else 4):
        S, T, ss = draw(rng, n, K=2, spines=True)
        nsp = [2] * n + [1]
        assert_equal_to_brute_force(run(S, T, ss, 2, None, rules, outside=True), nv.solve(S, T, ss, nsp))
        gold = random_gold(rng, n, K=2)
        assert_equal_to_brute_force(run(S, T, ss, 2, gold, rules, outside=True), nv.solve(S, T, ss, nsp, gold))


def test_five_words_with_few_traces_equals_brute_force(grammars):
    """n = 5 over the graphs with at most three trace-carrying edges: trace scores are
    finite on three (child, parent) pairs only, so the chart can build no other graph."""
    rules = grammars["full"]
    nv = naive_parser(5, rules, "full", max_traces=3)
    rng = np.random.default_rng(5)
    N = 6
    for _ in range(2):
        S, T, _ = draw(rng, 5, p_allow=0.9)
        keep = np.zeros((N, N), bool)
        pairs = [(c, p) for c in range(5) for p in range(5) if c != p]
        for i in rng.choice(len(pairs), 3, replace=False):
            keep[pairs[i]] = True
        T[~keep] = NEG
        res = run(S, T, None, 1, None, rules)
        assert res.score == pytest.approx(nv.solve(S, T).best, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("grammar", ["full", "pruned"])
def test_five_words_exhaustively_equal_brute_force(grammars, grammar):
    rules = grammars[grammar]
    nv = naive_parser(5, rules, grammar)
    rng = np.random.default_rng(55)
    for _ in range(3):
        S, T, _ = draw(rng, 5)
        gold = random_gold(rng, 5)
        assert_equal_to_brute_force(run(S, T, None, 1, gold, rules, outside=True), nv.solve(S, T, gold=gold))


# -- the loss -----------------------------------------------------------------------------------
BONUS = 100.0


def forced_tables(graph, n, labels, gold, K=1):
    """Scores that force ``graph``: its labelled edges get BONUS, every other label and
    edge is not allowed, its spine options get BONUS; the chart's best is then ``graph``
    (more edges always win) with score BONUS * (edges + words) + its loss."""
    N = n + 1
    S = np.full((N, N, K, K, labels[0]), NEG)
    T = np.full((N, N, K, K, labels[1]), NEG)
    spine = list(graph.spines) + [0]
    for (c, p, kind), lab in graph.edges.items():
        (S if kind == "S" else T)[c, p, spine[c], spine[p], lab] = BONUS
    ss = np.zeros((N, K))
    for w, o in enumerate(graph.spines):
        ss[w, o] = BONUS
    return S, T, ss


@pytest.mark.parametrize("n, K", [(2, 1), (3, 1), (2, 2), (3, 2), (4, 1)])
def test_decomposed_loss_equals_the_direct_loss_of_every_graph(grammars, n, K):
    """Every enumerated labelled graph (a sample of 400 at n = 4) decoded alone under
    loss-augmented tables: the chart's total minus the bonus is ``naive.hamming``."""
    rules = grammars["full"]
    nv = naive_parser(n, rules, "full")
    rng = np.random.default_rng(400 + n + 10 * K)
    labels = (2, 2)
    gold = random_gold(rng, n, labels, K)
    S, T, ss = draw(rng, n, K=K, labels=labels, p_allow=1.0, spines=K > 1)
    graphs = list(nv.graphs(S, T, ss, [K] * n if K > 1 else None, gold))
    if len(graphs) > 400:
        graphs = [graphs[i] for i in rng.choice(len(graphs), 400, replace=False)]
    nsp = np.array([K] * n + [1])
    for y in graphs:
        Sf, Tf, sf = forced_tables(y, n, labels, gold, K)
        res = parse_chart(dense_tables(Sf, Tf, sf, nsp, gold=Gold(*gold)), rules)
        bonus = BONUS * (len(y.edges) + n)
        assert res.score - bonus == pytest.approx(y.loss, abs=1e-9), (y.edges, y.spines)
        assert res.score - bonus == pytest.approx(naive.hamming(y.edges, y.spines, gold), abs=1e-9)
    assert len(graphs) >= 10


def test_label_tables_take_the_best_label_with_its_loss():
    """dense_tables: per (c, p, spine pair, kind) the best label of score + its Hamming term
    (0 gold label, 2 other label of a gold pair, 1 no gold), against a loop over labels."""
    rng = np.random.default_rng(7)
    n, K, L = 3, 2, 3
    S, T, ss = draw(rng, n, K=K, labels=(L, L), spines=True)
    gold = random_gold(rng, n, (L, L), K)
    tb = dense_tables(S, T, ss, np.array([K] * n + [1]), gold=Gold(*gold))
    for kind, X, G in (("S", S, gold[0]), ("T", T, gold[1])):
        for c in range(n + 1):
            for p in range(n + 1):
                for i in range(K):
                    for j in range(K if p < n else 1):
                        best, lab = NEG, -1
                        for lb in range(L):
                            if c == n or c == p or (kind == "T" and p == n) or not np.isfinite(X[c, p, i, j, lb]):
                                continue
                            v = X[c, p, i, j, lb] + (0.0 if G[c, p] == lb else (2.0 if G[c, p] >= 0 else 1.0))
                            if v > best:
                                best, lab = v, lb
                        f = tb.flat_index(c, p, i, j)
                        got = NEG if f < 0 else (tb.s_best if kind == "S" else tb.t_best)[f]
                        assert got == pytest.approx(best) if best > NEG else got == NEG
                        if best > NEG:
                            assert (tb.s_lab if kind == "S" else tb.t_lab)[f] == lab


# -- beams and cube pruning ---------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 5, 7])
def test_unbounded_beam_and_cube_equal_exhaustive_search(grammars, n):
    """K and the cube depth larger than any cell: the heap of sub-cubes pops every
    combination, so scores, graphs and every max-marginal equal the exhaustive run's."""
    rules = grammars["pruned"]
    rng = np.random.default_rng(60 + n)
    for _ in range(4):
        S, T, _ = draw(rng, n, p_allow=0.8)
        gold = random_gold(rng, n)
        a = run(S, T, None, 1, gold, rules, outside=True)
        b = run(S, T, None, 1, gold, rules, outside=True, beam=10 ** 6, cube=10 ** 7)
        assert a.score == b.score and a.edges == b.edges
        assert a.item_mm() == pytest.approx(b.item_mm())
        np.testing.assert_array_equal(a.arc_mm_s, b.arc_mm_s)


def test_results_without_item_columns_are_the_same_parse(grammars):
    """keep_items=False (what the decoders ask for) changes nothing but the item
    columns: score, graph, spines, cell counts and arc max-marginals are those of the
    run that keeps them, and item_mm refuses a result without them."""
    rules = grammars["pruned"]
    rng = np.random.default_rng(91)
    for n in (4, 6, 8):
        S, T, _ = draw(rng, n, p_allow=0.8)
        gold = random_gold(rng, n)
        a = run(S, T, None, 1, gold, rules, outside=True, beam=5, cube=50)
        b = run(S, T, None, 1, gold, rules, outside=True, beam=5, cube=50, keep_items=False)
        assert a.parsed and b.parsed and a.score == b.score and a.edges == b.edges
        assert len(a.items["p"]) == int(a.kept.sum()) > 0 and b.items == {}
        for name in ("spines", "kept", "pops", "cubes", "arc_mm_s", "arc_mm_t"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        with pytest.raises(ValueError, match="keep_items"):
            b.item_mm()


def test_beams_prune_and_never_beat_exhaustive_search(grammars):
    rules = grammars["pruned"]
    rng = np.random.default_rng(71)
    for _ in range(6):
        S, T, _ = draw(rng, 8, p_allow=0.9)
        exact = run(S, T, None, 1, None, rules)
        small = run(S, T, None, 1, None, rules, beam=2, cube=6)
        assert small.score <= exact.score + 1e-12
        assert small.pops.max() <= 6 and small.kept.sum() < exact.kept.sum()


def test_results_do_not_depend_on_rule_order_or_tie_order(grammars):
    """Integer scores (many ties), small beams: the rules listed in another order give the
    same parse, the same pops and the same items kept in every cell."""
    rules = grammars["pruned"]
    rng = np.random.default_rng(81)
    perm_c = rng.permutation(rules.n_comb)
    perm_a = rng.permutation(rules.n_arc)
    shuffled = type(rules)(rules.comb_n[perm_c], rules.comb_keys[perm_c], rules.comb_refs[perm_c],
                           rules.comb_goal[perm_c], rules.comb_template[perm_c], rules.comb_graph[perm_c],
                           rules.comb_crossing[perm_c], [rules.comb_text[i] for i in perm_c], rules.arc_in[perm_a],
                           rules.arc_goal[perm_a], rules.arc_parent[perm_a], rules.arc_child[perm_a],
                           rules.arc_xcreate[perm_a], rules.arc_graph[perm_a], rules.arc_crossing[perm_a],
                           [rules.arc_text[i] for i in perm_a])
    for n in (6, 9):
        S = rng.integers(-2, 3, size=(n + 1, n + 1, 1)).astype(float)
        T = rng.integers(-3, 2, size=(n + 1, n + 1, 1)).astype(float)
        tb = dense_tables(S, T)
        for beam, cube in ((2, 5), (3, 20), (0, 0)):
            a = parse_chart(tb, rules, beam=beam, cube=cube)
            b = parse_chart(tb, shuffled, beam=beam, cube=cube)
            assert a.score == b.score and a.edges == b.edges
            np.testing.assert_array_equal(a.pops, b.pops)
            np.testing.assert_array_equal(a.kept, b.kept)


# -- pass 1b -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def quick_pruners(sample_dir):
    """The notebooks' quick coarse models (cached; trained on 300 train sentences)."""
    from plgraph.pruners.notebook import notebook_models

    return notebook_models(quick=True)


def test_pass1b_arc_max_marginals_equal_eisner_on_every_dev_sentence(quick_pruners):
    import plgraph
    from plgraph.parser.chart.pass1b import chart_arc_scores, run_pass1b
    from plgraph.pruners import sentence_data
    from plgraph.pruners._chart import span_max_marginals

    dev = [sentence_data(s.graph) for s in plgraph.corpus("dev").sentences()]
    enc = quick_pruners.arc.encode(dev, quick_pruners.normaliser)
    checked = 0
    for k, sd in enumerate(dev):
        S_dep = quick_pruners.arc.scores(enc, k)
        arc, _, best = span_max_marginals(S_dep)
        res = run_pass1b(chart_arc_scores(S_dep))
        n = len(sd.words)
        # chart positions (ROOT last) -> dependency positions (ROOT first)
        dep = np.concatenate([np.arange(1, n + 1), [0]])
        want = arc[dep][:, dep].T          # want[c, p] = arc[dep(p), dep(c)]
        want[n, :] = NEG
        np.fill_diagonal(want, NEG)
        assert res.best == pytest.approx(best, rel=1e-9, abs=1e-9)
        np.testing.assert_allclose(np.where(np.isfinite(res.arc_mm), res.arc_mm, 0.0),
                                   np.where(np.isfinite(want), want, 0.0), rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(np.isfinite(res.arc_mm), np.isfinite(want))
        checked += 1
    assert checked == 433


# -- gold -------------------------------------------------------------------------------------
def gold_of(graph):
    """The representable gold graph of a sentence in chart positions (labels 0)."""
    from plgraph.rules.derive import graph_points
    from plgraph.structure import representable_mask

    n = len(graph.words)
    N = n + 1
    keep = representable_mask(graph)
    gs = np.full((N, N), -1)
    gt = np.full((N, N), -1)
    for c, p, kind, k in zip(graph.child.tolist(), graph.parent.tolist(), graph.kind.tolist(), keep.tolist()):
        if not k or c == p:
            continue
        cc, pp = c - 1, (n if p == 0 else p - 1)
        if kind == 0:
            gs[cc, pp] = 0
        elif pp != n:
            gt[cc, pp] = 0
    assert graph_points(graph)[1] == {(int(c), int(p)) for c, p in zip(*np.nonzero((gs >= 0) | (gt >= 0)))}
    return Gold(gs, gt, np.zeros(n, np.int64))


def reachability(sentences, rules, beam=100, cube=500):
    """(derivable, decoded as gold) over ``sentences``: all pairs allowed at score 0, traces
    at -1, gold edges +10 (no pruning, so only the beams could lose gold)."""
    from plgraph.rules.derive import derive

    derivable = found = 0
    for s in sentences:
        g = s.graph
        if derive(g, rules).count != 1:
            continue
        derivable += 1
        gold = gold_of(g)
        N = gold.s.shape[0]
        S = np.zeros((N, N, 1)) + 10.0 * (gold.s >= 0)[:, :, None]
        T = np.full((N, N, 1), -1.0) + 11.0 * (gold.t >= 0)[:, :, None]
        res = parse_chart(dense_tables(S, T), rules, beam=beam, cube=cube)
        want = {(int(c), int(p), "S"): 0 for c, p in zip(*np.nonzero(gold.s >= 0))}
        want.update({(int(c), int(p), "T"): 0 for c, p in zip(*np.nonzero(gold.t >= 0))})
        found += res.edges == want
    return derivable, found


def test_gold_is_reachable_with_a_bonus_on_a_sample(grammars):
    import plgraph

    rules = grammars["pruned"]
    train = [s for s in plgraph.corpus("train").sentences() if len(s.graph.words) <= 20][:60]
    dev = [s for s in plgraph.corpus("dev").sentences() if len(s.graph.words) <= 20][:40]
    derivable, found = reachability(train + dev, rules)
    assert derivable >= 90 and found == derivable


@pytest.mark.slow
def test_gold_is_reachable_on_every_derivable_train_and_dev_sentence(grammars):
    import plgraph

    rules = grammars["pruned"]
    sents = plgraph.corpus("train").sentences() + plgraph.corpus("dev").sentences()
    derivable, found = reachability([s for s in sents if len(s.graph.words) <= 40], rules)
    assert found == derivable and derivable > 3000


def test_gold_items_are_marked_along_the_gold_derivation(grammars, sample_dir):
    """With gold items the chart marks the gold derivation's items GOLD (only items whose
    identity is a gold one), the goal among them: under a bonus gold is the best graph."""
    import plgraph
    from plgraph.parser.chart import _kernel as K

    rules = grammars["pruned"]
    marked_sentences = 0
    for s in [s for s in plgraph.corpus("dev").sentences() if len(s.graph.words) <= 15][:15]:
        gold = gold_of(s.graph)
        N = gold.s.shape[0]
        S = np.zeros((N, N, 1)) + 10.0 * (gold.s >= 0)[:, :, None]
        T = np.full((N, N, 1), -3.0) + 13.0 * (gold.t >= 0)[:, :, None]
        tb = dense_tables(S, T, gold=gold)        # loss-augmented, as in training
        ids = gold_item_ids(gold, rules)
        if ids is None:
            continue
        tb.gold_items = ids
        res = parse_chart(tb, rules, beam=100, cube=500, mark_gold=True)
        marked = (res.items["flags"] & K.GOLD) != 0
        assert marked[res.goal]
        marked_sentences += 1
        # every marked item's identity is a gold one, cell by cell
        off, idn = ids
        for r in np.flatnonzero(marked):
            cell = int(res.items["p"][r]) * N + int(res.items["q"][r])
            x = K.ident(int(res.items["o"][r]), int(res.items["key"][r]), int(res.items["flags"][r]),
                        int(res.items["sp"][r]), int(res.items["sq"][r]), int(res.items["so"][r]))
            assert x in set(idn[off[cell]:off[cell + 1]].tolist())
    assert marked_sentences >= 10


# -- input checks and the kernels without JIT ---------------------------------------------------
def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="NaN"):
        dense_tables(np.full((3, 3, 1), np.nan), np.zeros((3, 3, 1)))
    with pytest.raises(ValueError, match="shape"):
        dense_tables(np.zeros((3, 4, 1)), np.zeros((3, 3, 1)))
    with pytest.raises(ValueError, match="gold.s"):
        dense_tables(np.zeros((3, 3, 1)), np.zeros((3, 3, 1)),
                     gold=Gold(np.full((3, 3), 5), np.full((3, 3), -1), np.zeros(2, np.int64)))
    with pytest.raises(ValueError, match="beam"):
        parse_chart(dense_tables(np.zeros((3, 3, 1)), np.zeros((3, 3, 1))), beam=-1)


def test_no_derivation_gives_no_parse():
    """Nothing allowed into ROOT: no tree, score -inf, no edges."""
    S = np.zeros((4, 4, 1))
    S[:, 3] = NEG
    res = parse_chart(dense_tables(S, np.zeros((4, 4, 1))))
    assert not res.parsed and res.score == NEG and res.edges == {}


def test_kernels_without_jit_match_brute_force():
    """The same comparison with NUMBA_DISABLE_JIT=1 (so coverage sees the kernels' lines):
    n <= 3, loss-augmented, two spine options."""
    code = r'''
import sys, numpy as np
sys.path.insert(0, "tests")
import naive
from plgraph.parser.chart.run import parse_chart
from plgraph.parser.chart.tables import Gold, dense_tables
from plgraph.rules.tables import full_tables
rules = full_tables()
rng = np.random.default_rng(3)
for n in (1, 2, 3):
    nv = naive.NaiveGraphParser(n, rules)
    for K in (1, 2):
        N = n + 1
        S = rng.normal(size=(N, N, K, K, 2)).round(3); T = rng.normal(size=(N, N, K, K, 2)).round(3)
        ss = rng.normal(size=(N, K)).round(3)
        gs = np.full((N, N), -1); gt = np.full((N, N), -1)
        for c in range(n):
            p = int(rng.integers(0, N)); gs[c, p] = 0 if p != c else -1
        gold = (gs, gt, rng.integers(0, K, size=n))
        ref = nv.solve(S, T, ss, [K] * n, gold)
        res = parse_chart(dense_tables(S, T, ss, np.array([K] * n + [1]), gold=Gold(*gold)), rules, outside=True,
                          beam=1000, cube=10000)
        assert abs(res.score - ref.best) < 1e-9, (n, K, res.score, ref.best)
        mm = res.item_mm()
        assert all(abs(mm[k] - ref.item_mm[k]) < 1e-9 for k in mm if k in ref.item_mm)
print("ok")
'''
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore::RuntimeWarning")
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]
