"""PLRE: the NMF kernels against the dense twin, the seed's lemmas and special cases, the
whole model against the naive Eq. 33 ensemble, normalisation, files."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import naive
from conftest import corpus_or_skip
from plgraph.lm import ExportError, PLREConfig, Term, encode, load_model, train, write_arpa
from plgraph.lm import _kernels as K
from test_lm import corpora, ids_of, random_contexts


# ----------------------------------------------------------------------------------------------
# the NMF kernels on one slice (a bigram-style matrix: rows = predicted words, cols = contexts)

def one_slice(T, kappa, restarts=1, seed=0):
    """:func:`nmf_fit` arguments (after the call flags) for a dense matrix T as a single
    slice (zeros are unobserved), and the U, W buffers of ``restarts`` fits."""
    n_rows, n_cols = T.shape
    n = max(n_rows, n_cols)  # rows and columns index the same node space, as level-(k-1) entries do
    cols, rows = np.nonzero(T.T)  # CSC: by column, then row
    vals = T[rows, cols]
    csc_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(cols, minlength=n), out=csc_ptr[1:])
    order = np.lexsort((cols, rows))
    csr_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=csr_ptr[1:])
    kap = np.array([kappa], np.int64)
    u_ptr = np.r_[0, np.cumsum([kappa if i < n_rows else 0 for i in range(n)])].astype(np.int64)
    w_ptr = np.r_[0, np.cumsum([kappa if i < n_cols else 0 for i in range(n)])].astype(np.int64)
    U = np.zeros(u_ptr[-1] * restarts)
    W = np.zeros(w_ptr[-1] * restarts)
    seeds = seed + 104_729 * np.arange(restarts, dtype=np.int64)
    args = (K.SliceLayout(kap, np.array([0], np.int64), np.array([n_rows], np.int64), np.array([0, n_cols], np.int64),
                          np.arange(n_cols, dtype=np.int64), u_ptr, w_ptr),
            K.NMFFactors(seeds, U, W),
            K.SparseLines(csr_ptr, cols[order].astype(np.int64), vals[order]),
            K.SparseLines(csc_ptr, rows.astype(np.int64), vals))
    return args, U, W


def dense_factors(U, W, n_rows, n_cols, kappa, r=0):
    """Fit r's U (rows x kappa) and W (kappa x cols) from the flat buffers."""
    size_u = n_rows * kappa
    size_w = n_cols * kappa
    return (U[r * size_u:(r + 1) * size_u].reshape(n_rows, kappa),
            W[r * size_w:(r + 1) * size_w].reshape(n_cols, kappa).T)


ONE = np.array([0], np.int64)


@st.composite
def sparse_targets(draw):
    n_rows = draw(st.integers(1, 7))
    n_cols = draw(st.integers(1, 7))
    cells = draw(st.lists(st.tuples(st.integers(0, n_rows - 1), st.integers(0, n_cols - 1),
                                    st.floats(0.05, 9.0)), min_size=1, max_size=25))
    T = np.zeros((n_rows, n_cols))
    for r, c, v in cells:
        T[r, c] = v
    kappa = draw(st.integers(1, 4))
    return T, kappa


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sparse_targets(), st.integers(1, 12), st.integers(0, 12), st.integers(1, 3), st.integers(0, 99))
def test_nmf_kernel_matches_dense_twin(target, iterations, split, restarts, seed):
    T, kappa = target
    args, U, W = one_slice(T, kappa, restarts, seed)
    first = min(split, iterations - 1) if split else iterations
    K.nmf_fit(ONE, restarts, first, True, first == iterations, *args)
    if first < iterations:  # a run split into two calls equals one call
        K.nmf_fit(ONE, restarts, iterations - first, False, True, *args)
    n_rows, n_cols = T.shape
    for r in range(restarts):
        s = seed + 104_729 * r
        U0 = np.array([[naive.init_value(s, 0, i, k) for k in range(kappa)] for i in range(n_rows)])
        W0 = np.array([[naive.init_value(s, 1, c, k) for c in range(n_cols)] for k in range(kappa)])
        Ue, We = naive.nmf_dense(T, U0, W0, iterations)
        Ug, Wg = dense_factors(U, W, n_rows, n_cols, kappa, r)
        np.testing.assert_allclose(Ug @ Wg, Ue @ We, rtol=1e-9, atol=1e-12)
        # the fit keeps every column sum of the target: the precomputed normalisers stay exact
        np.testing.assert_allclose((Ug @ Wg).sum(axis=0), T.sum(axis=0), rtol=1e-12, atol=1e-12)
    assert (U >= 0).all() and (W >= 0).all()


def test_nmf_generalised_kl_never_increases():
    rng = np.random.default_rng(3)
    T = np.where(rng.random((40, 30)) < 0.3, rng.gamma(1.0, 2.0, (40, 30)), 0.0)
    args, U, W = one_slice(T, 5, seed=11)
    divergences = []
    for it in range(30):
        K.nmf_fit(ONE, 1, 1, it == 0, False, *args)
        Ug, Wg = dense_factors(U, W, 40, 30, 5)
        divergences.append(naive.gkl(T, Ug @ Wg))
    assert all(b <= a + 1e-9 * abs(a) for a, b in zip(divergences, divergences[1:]))
    assert divergences[-1] < 0.8 * divergences[0]


def test_rank_one_of_binary_bigrams_is_the_kn_unigram():
    """Seed Lemma 2: the best rank-1 gKL approximation of B^0 gives, in every seen context,
    the KN continuation unigram N-(w) / sum N-."""
    rng = np.random.default_rng(8)
    B = np.where(rng.random((25, 20)) < 0.25, rng.integers(1, 9, (25, 20)), 0).astype(float)
    B[0, :] = 0  # a word never predicted
    B0 = (B > 0).astype(float)
    args, U, W = one_slice(B0, 1)
    K.nmf_fit(ONE, 1, 3, True, True, *args)
    Ug, Wg = dense_factors(U, W, 25, 20, 1)
    Z = Ug @ Wg
    seen = B0.sum(axis=0) > 0
    conditional = Z[:, seen] / B0.sum(axis=0)[seen]
    continuation = B0.sum(axis=1) / B0.sum()
    np.testing.assert_allclose(conditional, np.repeat(continuation[:, None], seen.sum(), axis=1), atol=1e-12)


# ----------------------------------------------------------------------------------------------
# the whole model

@st.composite
def plre_configs(draw, order):
    terms = []
    for level in range(2, order + 1):
        n_terms = draw(st.integers(0, 2))
        powers = sorted(draw(st.lists(st.sampled_from([0.25, 0.5, 0.75]), min_size=n_terms, max_size=n_terms,
                                      unique=True)), reverse=True)
        for p in powers:
            terms.append((level, p, draw(st.integers(1, 3))))
    return (terms, draw(st.sampled_from(["kn", "mkn"])), draw(st.integers(1, 6)), draw(st.integers(0, 50)),
            draw(st.integers(1, 3)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(max_sentences=10, max_len=6), st.data())
def test_plre_matches_naive_ensemble_and_sums_to_one(sentences, data):
    order = data.draw(st.integers(2, 3))
    terms, kind, iterations, seed, restarts = data.draw(plre_configs(order))
    probe = train(sentences, order=order, method="int-mkn")
    V1 = len(probe.vocab) - 1
    config = PLREConfig(tuple(Term(lv, p, kap / V1) for lv, p, kap in terms), kind, iterations, seed, restarts)
    model = train(sentences, order=order, method="plre", plre=config, progress=False)
    ref = naive.NaivePLRE(ids_of(model, sentences), order, len(model.vocab), terms, kind, iterations, seed,
                             restarts)
    rng = np.random.default_rng(seed)
    for ctx in random_contexts(model, rng):
        dist = model.distribution(ctx)
        assert dist.sum() == pytest.approx(1.0, abs=1e-9)
        expected = np.array([ref.prob(w, ctx) if w != 1 else 0.0 for w in range(len(model.vocab))])
        np.testing.assert_allclose(dist, expected, rtol=1e-8, atol=1e-12)
    test = sentences[:3] + [["b", "zzz", "a"]]
    np.testing.assert_allclose(model.logprobs(encode(test, model.vocab)),
                               naive.stream_logprobs(ref, ids_of(model, test)), rtol=1e-8)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(), st.integers(2, 4), st.sampled_from(["kn", "mkn"]))
def test_plre_without_low_rank_terms_is_interpolated_kn(sentences, order, kind):
    plre = train(sentences, order=order, method="plre", plre=PLREConfig((), kind), progress=False)
    kn = train(sentences, order=order, method=f"int-{kind}")
    s = encode(sentences + [["a", "q", "b"]], kn.vocab)
    np.testing.assert_allclose(plre.logprobs(s), kn.logprobs(s), rtol=1e-12, atol=1e-12)


@pytest.fixture(scope="module")
def brown_small():
    corpus_or_skip("brown")
    from plgraph.lm.corpora import lm_corpus
    from plgraph.lm.text import read_sentences

    c = lm_corpus("brown")
    return read_sentences(c.train)[:6000], read_sentences(c.valid)[:1500]


def test_plre_on_real_text_special_cases_and_telescoping(brown_small):
    train_s, valid_s = brown_small
    kn = train(train_s, order=3, method="int-mkn")
    s = encode(valid_s, kn.vocab)
    # no low-rank terms: exactly int-MKN, token by token
    bare = train(train_s, order=3, method="plre", plre=PLREConfig((), "mkn"), progress=False)
    np.testing.assert_allclose(bare.logprobs(s), kn.logprobs(s), rtol=1e-12, atol=1e-12)
    # the default ensemble: normalised everywhere, and on held-out text better than the
    # interpolated KN it reduces to without its low-rank terms (by 7 % perplexity here);
    # on MKN base discounts better than int-MKN (by 6 %)
    model = train(train_s, order=3, method="plre", progress=False)
    rng = np.random.default_rng(1)
    for ctx in random_contexts(model, rng, n=12) + [["<s>", "The"], ["of", "the"], ["zzz", "qqq"]]:
        assert model.distribution(ctx).sum() == pytest.approx(1.0, abs=1e-9)
    int_kn = train(train_s, order=3, method="int-kn")
    assert model.logprobs(s).mean() > int_kn.logprobs(s).mean() + np.log(1.05)
    on_mkn = train(train_s, order=3, method="plre", plre=PLREConfig(discount="mkn", restarts=4), progress=False)
    assert on_mkn.logprobs(s).mean() > kn.logprobs(s).mean() + np.log(1.03)
    # seed Eq. 35: with one KN discount, the leftover weights of the ensemble multiply to
    # (d*)^(eta+1) N+(h) / c(h) = D N+(h) / c(h): KN's gamma, whatever the powers
    for powers in ([0.5], [0.7, 0.3]):
        terms = tuple(Term(lv, p, 0.002) for lv in (2, 3) for p in powers)
        m = train(train_s, order=3, method="plre", plre=PLREConfig(terms, "kn", 3), progress=False)
        kn1 = train(train_s, order=3, method="int-kn")
        for k in (2, 3):
            g = m.g0[k - 1].copy()
            for t in m.terms:
                if t.level == k:
                    g *= t.gam[:-1]
            D = m.header["discounts"][str(k)][0]
            n_plus = np.diff(m.offsets[k])
            total = np.bincount(np.repeat(np.arange(len(n_plus)), n_plus),
                                weights=_adjusted(train_s, kn1, 3, k), minlength=len(n_plus))
            has = n_plus > 0
            np.testing.assert_allclose(g[has], D * n_plus[has] / total[has], rtol=1e-10)


def _adjusted(sentences, model, order, k):
    from plgraph.lm import count_ngrams

    return count_ngrams(encode(sentences, model.vocab), order, len(model.vocab)).adjusted[k].astype(float)


def test_plre_files_and_no_arpa(tmp_path):
    sents = [["a", "b", "c", "a"], ["b", "c", "a"], ["c", "a", "b", "b"], ["a", "a", "c"]]
    model = train(sents, order=3, method="plre", plre=PLREConfig((Term(2, 0.5, 0.4), Term(3, 0.5, 0.4)), "kn", 5),
                  progress=False)
    path = tmp_path / "p.npz"
    model.save(path)
    again = load_model(path)
    s = encode(sents, model.vocab)
    assert np.array_equal(again.logprobs(s), model.logprobs(s))
    assert again.config == model.config and len(again.terms) == 2
    with pytest.raises(ExportError, match="plre"):
        write_arpa(again, tmp_path / "p.arpa")
    assert not (tmp_path / "p.arpa").exists()


@pytest.mark.parametrize("bad", [dict(terms=(Term(2, 1.0, 0.1),)), dict(terms=(Term(1, 0.5, 0.1),)),
                                 dict(terms=(Term(2, 0.5, 0.1), Term(2, 0.5, 0.2))), dict(discount="x"),
                                 dict(iterations=0), dict(restarts=0)])
def test_plre_config_validation(bad):
    with pytest.raises(ValueError):
        PLREConfig(**bad)


# ----------------------------------------------------------------------------------------------
# published-style targets on full corpora (minutes: `make check-full`)

@pytest.mark.slow
@pytest.mark.parametrize("name", ["brown", "ptb"])
def test_plre_trigram_gain_over_int_mkn(name):
    corpus_or_skip("brown" if name == "brown" else "lm-ptb")
    from plgraph.lm.corpora import lm_corpus

    c = lm_corpus(name)
    kn = train(c.train, order=3, method="int-mkn").evaluate(c.test).perplexity
    plre = train(c.train, order=3, method="plre", progress=False).evaluate(c.test).perplexity
    assert plre <= 0.97 * kn, (plre, kn)
