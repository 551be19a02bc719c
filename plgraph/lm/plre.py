"""Power Low Rank Ensembles (PLRE; Parikh, Saluja, Dyer & Xing, EMNLP 2014).

The model, level by level (level ``k`` predicts ``w`` from the last ``k-1``
words ``h``; the paper's Eq. 33, written innermost last)::

    P_k(w|h) = Y0(w|h) + g0(h) [ Z1(w|h) + g1(h) [ ... + g_eta(h) P_(k-1)(w|h') ] ]

* the counts of a level are its Kneser-Ney adjusted counts ``a`` (raw at the
  highest order, continuation counts below; :mod:`plgraph.lm.counts`), as the
  paper's KN embellishment uses "altered" lower-order counts;
* term 0 is the full-rank, power-1 term: ``Y0(w|h) = (a(hw) - D0(hw)) / a(h.)``;
* term ``j >= 1`` has power ``rho_j`` and rank ``kappa_j``: the element-wise
  powered counts ``a^rho_j`` minus the discount ``D_j`` at the observed n-grams
  form a sparse target; for every slice (the n-grams sharing their middle words
  ``m`` in ``x m w``; a level-2 term has one slice, the bigram matrix) a
  non-negative rank-``kappa_j`` approximation ``Z = U W`` under generalised KL
  is fitted with multiplicative updates (the paper's Algorithm 2 / §4.2),
  and ``Z_j(w|h) = Z(w, h) / sum_w a(hw)^rho_j``.  The normaliser is the column
  sum of the sparse powered counts, precomputed: gKL fits keep column sums
  (each fit ends with the context-side update, then columns are rescaled to
  their target sums to rounding), so no O(V) sum is ever needed and a term
  costs O(kappa) at query time;
* discounts (the paper's Algorithm 1 and §4.4): ``D_j = d* . a^rho_(j+1)`` with
  ``rho_0 = 1`` and ``rho_(eta+1) = 0``, ``d*`` the ``(eta+1)``-th root of the
  level's (M)KN discount (:mod:`plgraph.lm.discounts`); the discount is taken
  *before* the low-rank fit, from the powered counts ("low rank approximations
  of Y_Dj", as the paper's text settles it);
* ``g_j(h) = sum_w D_j(hw) / sum_w a(hw)^rho_j`` is the mass the discount
  removed, so every bracket, and the model, sums to one;
* a context never seen at a level contributes nothing (the lower order is used
  as is); the unigram level is KN's continuation unigram interpolated with the
  uniform distribution, exactly as in int-(M)KN.

With no low-rank terms (``eta = 0``) every level is int-KN / int-MKN exactly.

Fitting (the paper is silent beyond "the best rank-kappa approximation under
gKL"): a fixed number of multiplicative updates from deterministic
pseudo-random start values.  These fits stop in start-dependent local optima: on PTB
validation, a bigram PLRE with one low-rank term (rank 0.002 V, 40 iterations)
gains 2.3 to 3.0 % over int-MKN depending on the start values (4 starts), and
the mean of the same 4 fits gains 3.2 %.  ``restarts = R`` therefore averages
R independently started fits; the mean is non-negative, keeps the column sums
(so the normalisers stay exact) and is stored as one factorisation of slice
rank ``R . kappa_s``.  ``restarts=1`` is the plain procedure.

Defaults (:data:`DEFAULT_CONFIG`) follow the paper where it speaks — one
low-rank bigram and one low-rank trigram term, power 0.5, discounts the
square roots of the Good-Turing (KN) estimate — and were tuned on validation
data only (PTB, Brown and Russian valid, mean gain over int-MKN;
``bench/tune_plre.py``, log in ``bench/tune_plre.csv``) for what the paper
leaves open or tunes per corpus: ranks 0.002 V (bigram) and 0.0002 V
(trigram slices), 40 iterations, 8 restarts, KN rather than MKN base discounts.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from .counts import NGramCounts
from .discounts import plre_term_discounts
from .io import Inconsistent, check_ptr, take
from .base import LanguageModel, level_discounts, lookup_ngrams, ngram_ids, unigram_level
from .text import BOS_ID, Vocabulary

#: non-zeros per kernel call (times restarts and iterations: progress/interrupt granularity)
CHUNK_NNZ = 400_000
#: iterations per kernel call
STEP_ITERS = 10


@dataclass(frozen=True)
class Term:
    """One low-rank term: n-gram ``level`` (2 = bigram), ``power`` in (0, 1), ``rank``
    as a fraction of the vocabulary size (at least 1)."""

    level: int
    power: float
    rank: float

    def kappa(self, vocab_size: int) -> int:
        return max(1, int(round(self.rank * vocab_size)))


@dataclass(frozen=True)
class PLREConfig:
    """PLRE hyper-parameters.

    ``terms``: the low-rank terms (any number per level; powers strictly
    decreasing within a level).  ``discount``: ``"kn"`` or ``"mkn"`` base
    discounts.  ``iterations``: multiplicative-update iterations per fit.
    ``restarts``: independently started fits averaged per term (1 = a single fit).
    ``seed``: start values of the factors.
    """

    terms: tuple = (Term(2, 0.5, 0.002), Term(3, 0.5, 0.0002))
    discount: str = "kn"
    iterations: int = 40
    seed: int = 0
    restarts: int = 8

    def __post_init__(self):
        object.__setattr__(self, "terms", tuple(t if isinstance(t, Term) else Term(*t) for t in self.terms))
        if self.discount not in ("kn", "mkn"):
            raise ValueError("discount must be 'kn' or 'mkn'")
        if self.iterations < 1:
            raise ValueError("iterations must be >= 1")
        if self.restarts < 1:
            raise ValueError("restarts must be >= 1")
        for t in self.terms:
            if not 0 < t.power < 1:
                raise ValueError(f"term power must be in (0, 1), got {t.power}")
            if not t.rank > 0:
                raise ValueError(f"term rank must be > 0, got {t.rank}")
            if t.level < 2:
                raise ValueError("low-rank terms live at levels >= 2 (bigram and up)")
        for level in {t.level for t in self.terms}:
            p = [t.power for t in self.terms if t.level == level]
            if len(set(p)) != len(p):
                raise ValueError(f"two terms of level {level} with the same power")

    def level_terms(self, level: int) -> list[Term]:
        """Terms of ``level`` by decreasing power (the order of the ensemble)."""
        return sorted((t for t in self.terms if t.level == level), key=lambda t: -t.power)

    def to_json_dict(self) -> dict:
        return {"terms": [asdict(t) for t in self.terms], "discount": self.discount,
                "iterations": self.iterations, "seed": self.seed, "restarts": self.restarts}

    @classmethod
    def from_json_dict(cls, d: dict) -> "PLREConfig":
        return cls(tuple(Term(**t) for t in d["terms"]), d["discount"], int(d["iterations"]), int(d["seed"]),
                   int(d.get("restarts", 1)))


#: tuned on validation data only (see the module docstring and ``bench/tune_plre.py``)
DEFAULT_CONFIG = PLREConfig()


@dataclass
class FittedTerm:
    """Arrays of one fitted term (level-(k-1) entries index rows ``(m w)`` and columns ``(x m)``)."""

    level: int
    power: float
    rank: float
    kappa: int
    u_ptr: np.ndarray   # int64, n_{k-1}+1
    w_ptr: np.ndarray   # int64, n_{k-1}+1
    gam: np.ndarray     # float64, n_{k-1}+1 (last unused): leftover weight of the term per context
    u: np.ndarray       # float64 rows of U
    w: np.ndarray       # float64 columns of W, divided by the normaliser of their context
    stats: dict = field(default_factory=dict)


class PLREModel(LanguageModel):
    """A trained PLRE model (see the module docstring)."""

    method = "plre"

    def __init__(self, order, vocab, words, offsets, t0, g0, terms: list[FittedTerm], config: PLREConfig,
                 header=None):
        super().__init__(order, vocab, words, offsets, header)
        self.t0 = t0          # [None, level1..N]: unigram probabilities / discounted term 0
        self.g0 = g0          # [None, level1..N]: gamma_0 of each entry as a context (1 if none)
        self.terms = terms
        self.config = config
        self._kernel_args = None

    def _args(self):
        """The model as the scoring kernels read it: ``(Trie, PLRETables)`` of :mod:`plgraph.lm._kernels`."""
        if self._kernel_args is None:
            from ._kernels import PLRETables, Trie

            base, word, lo, hi = self.flat
            N = self.order
            t0 = np.concatenate(self.t0[1:])
            g0 = np.concatenate(self.g0[1:])
            terms = sorted(self.terms, key=lambda t: (t.level, -t.power))
            term_lo = np.zeros(N + 2, np.int64)
            term_hi = np.zeros(N + 2, np.int64)
            for k in range(2, N + 1):
                idx = [i for i, t in enumerate(terms) if t.level == k]
                if idx:
                    term_lo[k], term_hi[k] = idx[0], idx[-1] + 1
            ptr_base = np.zeros(max(1, len(terms)), np.int64)
            u_ptr, w_ptr, gam, u_all, w_all = [], [], [], [], []
            pos = 0
            ubase = wbase = 0
            for i, t in enumerate(terms):
                ptr_base[i] = pos
                pos += len(t.u_ptr)
                u_ptr.append(t.u_ptr + ubase)
                w_ptr.append(t.w_ptr + wbase)
                gam.append(t.gam)
                u_all.append(t.u)
                w_all.append(t.w)
                ubase += len(t.u)
                wbase += len(t.w)
            cat = lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(1, dt)  # noqa: E731
            self._kernel_args = (Trie(base, word, lo, hi),
                                 PLRETables(t0, g0, term_lo, term_hi, ptr_base, cat(u_ptr, np.int64),
                                            cat(w_ptr, np.int64), cat(u_all, np.float64), cat(w_all, np.float64),
                                            cat(gam, np.float64)))
        return self._kernel_args

    def _stream_logprobs(self, tokens, starts):
        from ._kernels import plre_stream_logprobs

        return plre_stream_logprobs(tokens, starts, self.order, *self._args())

    def _distribution(self, hist):
        from ._kernels import plre_distribution

        return plre_distribution(hist, self.order, len(self.vocab), BOS_ID, *self._args())

    # ----- persistence
    def _header(self):
        h = super()._header()
        h["plre"] = self.config.to_json_dict()
        h["fitted_terms"] = [{"level": t.level, "power": t.power, "rank": t.rank, "kappa": t.kappa, **t.stats}
                             for t in self.terms]
        return h

    def _arrays(self):
        out = super()._arrays()
        for k in range(1, self.order + 1):
            out[f"t0_{k}"] = self.t0[k]
            out[f"g0_{k}"] = self.g0[k]
        for i, t in enumerate(self.terms):
            for name in ("u_ptr", "w_ptr", "gam", "u", "w"):
                out[f"term{i}_{name}"] = getattr(t, name)
        return out

    @classmethod
    def _from_arrays(cls, order, vocab, words, offsets, header, arrays):
        """The model of checked trie arrays; checks its own arrays (lengths, pointers, no
        NaN, non-negative weights) so the scoring kernels never read outside them, and
        raises :class:`~plgraph.lm.io.Inconsistent`."""
        if order < 2:
            raise Inconsistent(f"a PLRE model has order 2 or more, not {order}")
        t0, g0 = [None], [None]
        for k in range(1, order + 1):
            n = len(words[k])
            t0.append(_non_negative(arrays, f"t0_{k}", n))
            g0.append(_non_negative(arrays, f"g0_{k}", n))
        metas = header.get("fitted_terms", [])
        if not isinstance(metas, list) or not all(isinstance(m, dict) for m in metas):
            raise Inconsistent("the header's fitted_terms is not a list of objects")
        terms = [_fitted_term(i, meta, order, words, offsets, arrays) for i, meta in enumerate(metas)]
        plre = header.get("plre")
        if not isinstance(plre, dict):
            raise Inconsistent("the header has no PLRE options ('plre')")
        try:
            config = PLREConfig.from_json_dict(plre)
        except (KeyError, TypeError, ValueError) as err:
            raise Inconsistent(f"bad PLRE options in the header ({type(err).__name__}: {err})") from None
        return cls(order, vocab, words, offsets, t0, g0, terms, config, header)


def _non_negative(arrays, name: str, length: int) -> np.ndarray:
    arr = take(arrays, name, "f", length)
    if len(arr) and not (arr.min() >= 0 and np.isfinite(arr).all()):
        raise Inconsistent(f"array {name!r} holds negative or infinite weights")
    return arr


def _fitted_term(i: int, meta: dict, order: int, words: list, offsets: list, arrays: dict) -> "FittedTerm":
    """Term ``i`` of a model file: pointer arrays over the level-(k-1) entries, factor
    arrays they point into (a row of U never reaches past the end of W from any column)."""
    try:
        level, power, rank, kappa = int(meta["level"]), float(meta["power"]), float(meta["rank"]), int(meta["kappa"])
    except (KeyError, TypeError, ValueError) as err:
        raise Inconsistent(f"fitted term {i} of the header is incomplete ({type(err).__name__}: {err})") from None
    if not 2 <= level <= order:
        raise Inconsistent(f"fitted term {i} has level {level}, not 2..{order}")
    n_prev = len(words[level - 1])
    name = f"term{i}_"
    u_ptr = take(arrays, name + "u_ptr", "i", n_prev + 1)
    w_ptr = take(arrays, name + "w_ptr", "i", n_prev + 1)
    gam = _non_negative(arrays, name + "gam", n_prev + 1)
    u = _non_negative(arrays, name + "u", None)
    w = _non_negative(arrays, name + "w", None)
    check_ptr(u_ptr, name + "u_ptr", len(u))
    check_ptr(w_ptr, name + "w_ptr", len(w))
    _check_slice_ranks(i, level, np.diff(u_ptr), np.diff(w_ptr), words, offsets)
    stats = {k: v for k, v in meta.items() if k not in ("level", "power", "rank", "kappa")}
    return FittedTerm(level, power, rank, kappa, u_ptr, w_ptr, gam, u, w, stats=stats)


def _check_slice_ranks(i: int, k: int, row_width: np.ndarray, col_width: np.ndarray, words: list,
                       offsets: list) -> None:
    """Every row ``(m w)`` and column ``(x m)`` of a slice ``m`` has that slice's rank, as
    :func:`_fit_term` makes them, so a row of U and a column of W that the scoring kernel
    multiplies have the same length (else it would read past W's end)."""
    if k == 2:
        row_slice = np.zeros(len(row_width), np.int64)
        col_slice = row_slice
        n_slices = 1
    else:
        row_slice = np.repeat(np.arange(len(words[k - 2])), np.diff(offsets[k - 1]))
        col_slice = lookup_ngrams(words, offsets, ngram_ids(words, offsets, k - 1)[:, 1:])
        if len(col_slice) and col_slice.min() < 0:
            raise Inconsistent(f"fitted term {i}: a {k - 1}-gram whose suffix is not in the model")
        n_slices = len(words[k - 2])
    widths = np.full(n_slices, -1, np.int64)
    for slices, width in ((row_slice, row_width), (col_slice, col_width)):
        lo = np.full(n_slices, np.iinfo(np.int64).max)
        hi = np.full(n_slices, -1, np.int64)
        np.minimum.at(lo, slices, width)
        np.maximum.at(hi, slices, width)
        seen = hi >= 0
        if np.any(lo[seen] != hi[seen]) or np.any((widths >= 0) & seen & (widths != hi)):
            raise Inconsistent(f"fitted term {i}: the rank of a slice differs between U and W")
        widths = np.where(seen, hi, widths)


def _level_parts(counts: NGramCounts, k: int, table: np.ndarray, powers: list[float]):
    """Discounts, normalisers and leftover weights of every term of level ``k`` (Algorithm 1)."""
    a = counts.adjusted[k]
    af = a.astype(np.float64)
    ctx = counts.ctx[k]
    n_prev = counts.n(k - 1)
    eta = len(powers)
    rhos = [1.0] + list(powers) + [0.0]
    d_level = table[np.minimum(a, 3)]
    d_star = d_level ** (1.0 / (eta + 1))
    parts = []
    capped = 0
    for j in range(eta + 1):
        powered = af ** rhos[j]
        dj = plre_term_discounts(a, d_star, rhos[j + 1])
        over = dj > powered
        capped += int(over.sum())
        dj = np.minimum(dj, powered)
        S = np.bincount(ctx, weights=powered, minlength=n_prev)
        Dsum = np.bincount(ctx, weights=dj, minlength=n_prev)
        gam = np.ones(n_prev + 1)
        has = S > 0
        gam[:-1][has] = Dsum[has] / S[has]
        parts.append((powered - dj, S, gam))
    return parts, capped


def _fit_term(counts: NGramCounts, k: int, target: np.ndarray, S: np.ndarray, kappa: int, iterations: int,
              seed: int, restarts: int = 1, bar=None):
    """Fit one term of level ``k`` slice by slice; returns (u_ptr, w_ptr, u, w, stats).

    With ``restarts > 1`` the term is the average of that many independently started
    fits, stored as one factorisation whose slice ranks are ``restarts * kappa_s``
    (the rows of U side by side, the columns of W divided by ``restarts``).
    """
    from ._kernels import NMFFactors, SliceLayout, SparseLines, nmf_fit

    n_prev = counts.n(k - 1)
    ctx_k = counts.ctx[k]
    suf_k = counts.suffix[k]
    csc_ptr = counts.offsets(k)
    # slices: the middle words m; rows (m w) and columns (x m) are level-(k-1) entries
    if k == 2:
        n_slices = 1
        row_slice = np.zeros(n_prev, np.int64)
        col_slice = np.zeros(n_prev, np.int64)
        row_lo = np.array([0], np.int64)
        row_hi = np.array([n_prev], np.int64)
    else:
        n_slices = counts.n(k - 2)
        row_slice = counts.ctx[k - 1]
        col_slice = counts.suffix[k - 1]
        off = counts.offsets(k - 1)
        row_lo, row_hi = off[:-1].copy(), off[1:].copy()
    col_nodes = np.argsort(col_slice, kind="stable").astype(np.int64)
    col_ptr = np.zeros(n_slices + 1, np.int64)
    np.cumsum(np.bincount(col_slice, minlength=n_slices), out=col_ptr[1:])
    pos = target > 0
    row_has = np.bincount(suf_k[pos], minlength=n_prev) > 0
    col_has = np.bincount(ctx_k[pos], minlength=n_prev) > 0
    rows_nz = np.bincount(row_slice[row_has], minlength=n_slices)
    cols_nz = np.bincount(col_slice[col_has], minlength=n_slices)
    kap = np.minimum(np.minimum(rows_nz, cols_nz), kappa).astype(np.int64)
    k_row = kap[row_slice]
    k_col = kap[col_slice]
    u_ptr = np.zeros(n_prev + 1, np.int64)
    np.cumsum(k_row, out=u_ptr[1:])
    w_ptr = np.zeros(n_prev + 1, np.int64)
    np.cumsum(k_col, out=w_ptr[1:])
    order_r = np.argsort(suf_k, kind="stable")
    csr_ptr = np.zeros(n_prev + 1, np.int64)
    np.cumsum(np.bincount(suf_k, minlength=n_prev), out=csr_ptr[1:])
    csr_col = ctx_k[order_r].astype(np.int64)
    csr_val = target[order_r]
    csc_row = suf_k.astype(np.int64)
    csc_val = target
    nnz_slice = np.bincount(col_slice[ctx_k[pos]], minlength=n_slices) if pos.any() else np.zeros(n_slices, np.int64)
    active = np.flatnonzero(kap > 0)
    chunks = []
    if len(active):
        cum = np.cumsum(nnz_slice[active])
        cuts = np.searchsorted(cum, np.arange(CHUNK_NNZ, cum[-1] + CHUNK_NNZ, CHUNK_NNZ), side="right")
        lo = 0
        for hi in np.unique(np.r_[cuts, len(active)]):
            if hi > lo:
                chunks.append(active[lo:hi])
                lo = hi
    R = restarts
    nu, nw = int(u_ptr[-1]), int(w_ptr[-1])
    U = np.zeros(R * nu)
    W = np.zeros(R * nw)
    seeds = seed + 104_729 * np.arange(R, dtype=np.int64)
    args = (SliceLayout(kap, row_lo, row_hi, col_ptr, col_nodes, u_ptr, w_ptr), NMFFactors(seeds, U, W),
            SparseLines(csr_ptr, csr_col, csr_val), SparseLines(csc_ptr, csc_row, csc_val))
    t = time.perf_counter()
    for chunk in chunks:
        done = 0
        while done < iterations:
            step = min(STEP_ITERS, iterations - done)
            nmf_fit(chunk, R, step, done == 0, done + step == iterations, *args)
            done += step
            if bar is not None:
                bar.update(int(nnz_slice[chunk].sum()) * step * R)
    # the R fits side by side: row i of U holds R blocks of k_i values (likewise W's columns)
    u_dst = _block_positions(u_ptr, k_row, R)
    w_dst = _block_positions(w_ptr, k_col, R)
    U_all = np.zeros(R * nu)
    W_all = np.zeros(R * nw)
    u_shift = np.repeat(k_row, k_row)
    w_shift = np.repeat(k_col, k_col)
    for r in range(R):
        U_all[u_dst + r * u_shift] = U[r * nu:(r + 1) * nu]
        W_all[w_dst + r * w_shift] = W[r * nw:(r + 1) * nw]
    seconds = time.perf_counter() - t
    # W columns divided by the normaliser of their context (and by R): Z_j(w|h) = u_(m w) . w'_(x m)
    scale = np.zeros(n_prev)
    has = S > 0
    scale[has] = 1.0 / (S[has] * R)
    W_all *= np.repeat(scale, R * k_col)
    stats = {"slices": int(len(active)), "nnz": int(pos.sum()),
             "params": int(len(U_all) + len(W_all)), "seconds": round(seconds, 3),
             "mean_kappa": float(np.average(kap[active], weights=nnz_slice[active])) if len(active) else 0.0}
    return u_ptr * R, w_ptr * R, U_all, W_all, stats


def _block_positions(ptr: np.ndarray, width: np.ndarray, R: int) -> np.ndarray:
    """For the flat layout ``ptr`` (entry i has ``width[i]`` values), the position of each
    value in the layout ``R * ptr`` where entry i holds R blocks of ``width[i]``; add
    ``r * width`` for block r."""
    n_values = int(ptr[-1])
    owner = np.repeat(np.arange(len(width)), width)
    within = np.arange(n_values) - ptr[:-1][owner]
    return R * ptr[:-1][owner] + within


def estimate_plre(counts: NGramCounts, vocab: Vocabulary, config: PLREConfig = DEFAULT_CONFIG,
                  header: dict | None = None, progress: bool | None = None, times: dict | None = None) -> PLREModel:
    """Estimate PLRE from counts (see the module docstring)."""
    from tqdm.auto import tqdm

    N = counts.order
    if N < 2:
        raise ValueError("PLRE needs order >= 2")
    terms = [t for t in config.terms if t.level <= N]
    tables, flags = level_discounts(counts, config.discount)
    p1, _ = unigram_level(counts, tables[1])
    t0 = [None, p1]
    g0 = [None]
    fitted: list[FittedTerm] = []
    V = counts.vocab_size
    capped_total = 0
    plan = []
    for k in range(2, N + 1):
        lt = [t for t in sorted(terms, key=lambda t: -t.power) if t.level == k]
        parts, capped = _level_parts(counts, k, tables[k], [t.power for t in lt])
        capped_total += capped
        plan.append((k, lt, parts))
    work = sum(int((parts[j + 1][0] > 0).sum()) * config.iterations * config.restarts
               for k, lt, parts in plan for j in range(len(lt)))
    nmf_seconds = 0.0
    with tqdm(total=work, desc="PLRE low-rank fits", unit="nz-it", unit_scale=True,
              disable=not progress if progress is not None else None, leave=False) as bar:
        for k, lt, parts in plan:
            target0, S0, gam0 = parts[0]
            ctx = counts.ctx[k]
            t0.append(target0 / S0[ctx])
            g0.append(gam0[:-1])
            for j, term in enumerate(lt, start=1):
                target, S, gam = parts[j]
                kappa = term.kappa(V - 1)
                u_ptr, w_ptr, U, W, stats = _fit_term(counts, k, target, S, kappa, config.iterations,
                                                      config.seed + 7919 * len(fitted), config.restarts, bar)
                nmf_seconds += stats["seconds"]
                fitted.append(FittedTerm(k, term.power, term.rank, kappa, u_ptr, w_ptr, gam, U, W, stats))
    g0.append(np.ones(counts.n(N)))
    if times is not None:
        times["nmf"] = nmf_seconds
    h = dict(header or {})
    h.update(discounts={str(k): tables[k][1:].tolist() for k in range(1, N + 1)},
             discount_fallback=[k for k in range(1, N + 1) if flags[k]], capped_discounts=capped_total,
             ngrams=[counts.n(k) for k in range(1, N + 1)])
    offsets = [None, None] + [counts.offsets(k) for k in range(2, N + 1)]
    return PLREModel(N, vocab, list(counts.words), offsets, t0, g0, fitted, config, h)
