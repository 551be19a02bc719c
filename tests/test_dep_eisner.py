"""Eisner decoders and max-marginals against brute force over every projective tree."""
from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import naive
from plgraph.dep._eisner import eisner1, eisner2, max_marginals1, max_marginals2


def _random_scores(seed, n, ties=False):
    rng = np.random.default_rng(seed)
    if ties:   # small integer scores: many ties, the optimum must still be reached
        return rng.integers(-2, 3, size=(n + 1, n + 1)).astype(float), rng.integers(-2, 3, size=(n + 1,) * 3).astype(
            float)
    return rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1, n + 1, n + 1))


def _check_tree(heads, n, multi_root):
    heads = [int(h) for h in heads]
    assert heads[0] == -1 and naive.is_tree(heads) and naive.is_projective(heads)
    if not multi_root:
        assert naive.root_children(heads) == 1


@pytest.mark.parametrize("n", range(1, 7))
def test_enumerator_counts(n):
    # multi-root projective trees over n words are counted by C(3n, n) / (2n + 1)
    assert len(naive.projective_trees(n, True)) == comb(3 * n, n) // (2 * n + 1)
    if n <= 4:  # and are exactly the projective trees among all head assignments
        brute = [t for t in naive.all_trees_bruteforce(n) if naive.is_projective(t)]
        assert sorted(brute) == sorted(naive.projective_trees(n, True))
        assert sorted(t for t in brute if naive.root_children(t) == 1) == sorted(
            naive.projective_trees(n, False))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 7), multi_root=st.booleans(), ties=st.booleans())
def test_first_order_is_argmax(seed, n, multi_root, ties):
    S, _ = _random_scores(seed, n, ties)
    heads, score = eisner1(S, multi_root)
    _check_tree(heads, n, multi_root)
    best = naive.best_tree(S.tolist(), multi_root)
    assert score == pytest.approx(naive.tree_score(best, S.tolist()))
    assert naive.tree_score(list(heads), S.tolist()) == pytest.approx(score)


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 7), multi_root=st.booleans(), ties=st.booleans())
def test_second_order_is_argmax(seed, n, multi_root, ties):
    S, SIB = _random_scores(seed, n, ties)
    heads, score = eisner2(S, SIB, multi_root)
    _check_tree(heads, n, multi_root)
    best = naive.best_tree(S.tolist(), multi_root, SIB.tolist())
    assert score == pytest.approx(naive.tree_score(best, S.tolist(), SIB.tolist()))
    assert naive.tree_score(list(heads), S.tolist(), SIB.tolist()) == pytest.approx(score)


def _compare_marginals(M, expected, n):
    expected = np.array(expected, float)
    for h in range(n + 1):
        for d in range(n + 1):
            if d == 0 or d == h:
                assert M[h, d] == -np.inf
            elif np.isinf(expected[h, d]):
                assert M[h, d] == -np.inf, (h, d)
            else:
                assert M[h, d] == pytest.approx(expected[h, d]), (h, d)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 7), multi_root=st.booleans())
def test_first_order_max_marginals(seed, n, multi_root):
    S, _ = _random_scores(seed, n)
    M, best = max_marginals1(S, multi_root)
    _compare_marginals(M, naive.max_marginals(S.tolist(), multi_root), n)
    heads, score = eisner1(S, multi_root)
    assert best == pytest.approx(score)
    # the Viterbi arcs attain the global maximum; nothing exceeds it
    for d in range(1, n + 1):
        assert M[heads[d], d] == pytest.approx(score)
    assert np.nanmax(M[np.isfinite(M)]) == pytest.approx(score)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 7), multi_root=st.booleans())
def test_second_order_max_marginals(seed, n, multi_root):
    S, SIB = _random_scores(seed, n)
    M, best = max_marginals2(S, SIB, multi_root)
    _compare_marginals(M, naive.max_marginals(S.tolist(), multi_root, SIB.tolist()), n)
    assert best == pytest.approx(eisner2(S, SIB, multi_root)[1])


def test_single_root_only_blocks_extra_root_children():
    # scores that strongly prefer two root children: multi-root takes both, single-root one
    S = np.full((4, 4), -5.0)
    S[0, 1] = S[0, 3] = 10.0
    S[1, 2] = 1.0
    heads_m, _ = eisner1(S, True)
    heads_s, _ = eisner1(S, False)
    assert list(heads_m[1:]) == [0, 1, 0]
    assert naive.root_children(list(heads_s)) == 1


def test_oracle_recovers_gold_projective_trees(ewt_dev):
    """With score 1 on gold arcs and 0 elsewhere, both decoders return the gold tree of
    every projective dev sentence."""
    from plgraph.dep.projective import is_projective

    checked = 0
    for s in ewt_dev[:400]:
        heads = np.r_[-1, s.heads]
        if not is_projective(heads):
            continue
        n = len(s)
        S = np.zeros((n + 1, n + 1))
        S[heads[1:], np.arange(1, n + 1)] = 1.0
        assert list(eisner1(S, False)[0][1:]) == list(heads[1:])
        assert list(eisner2(S, np.zeros((n + 1,) * 3), False)[0][1:]) == list(heads[1:])
        checked += 1
    assert checked >= 380
