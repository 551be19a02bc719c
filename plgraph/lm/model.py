"""Language models: the Kneser-Ney family, and :func:`load_model` for every method.

Four Kneser-Ney variants (the PLRE paper §2; Chen & Goodman 1998), all estimated from the
adjusted counts of :mod:`plgraph.lm.counts` and the Good-Turing discounts of
:mod:`plgraph.lm.discounts`:

``int-kn`` / ``int-mkn``  interpolated, one discount / three discounts per order,
    ``P(w|h) = (a(hw) - D(a(hw))) / a(h.) + gamma(h) P(w|h')`` with
    ``gamma(h) = sum_w D(a(hw)) / a(h.)``; an unseen context backs off fully.
    This is KenLM ``lmplz``'s estimate (int-mkn), including its unigram level:
    the discounted continuation unigram interpolated with the uniform
    distribution over the predicted vocabulary (every word but ``<s>``, with
    ``<unk>``).
``bo-kn`` / ``bo-mkn``  back-off: seen n-grams get their discounted estimate,
    unseen ones ``beta(h) P(w|h')`` with ``beta(h) = gamma(h) / (1 - sum_{w seen
    after h} P(w|h'))``.  Lower orders are the KN continuation distributions
    (back-off themselves); the bottom is the same unigram level as above.  A
    context after which (almost) every word was seen, so that less than 1e-9
    of the lower-order mass is left for unseen words, backs off fully instead
    of dividing by nearly zero (does not happen on real vocabularies).

Every model is stored in ARPA form per n-gram entry: ``logp`` (natural log of
the probability of a seen n-gram: the full interpolated one, or the
discounted one) and ``logbow`` (back-off weight of an entry used as context:
gamma or beta), so one back-off walk scores all four.  :mod:`plgraph.lm.arpa`
writes exactly these numbers.

The base class every model shares (:class:`LanguageModel`, :class:`Evaluation`, the trie
helpers) is :mod:`plgraph.lm.base`, re-exported here; :mod:`plgraph.lm.plre` builds on
that module, not on this one, so :func:`load_model` can import it without a cycle.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelFileError
# the common base lives in .base (PLRE builds on it too); its names stay importable from here
from .base import Evaluation, LanguageModel, level_discounts, lookup_ngrams, ngram_ids, unigram_level  # noqa: F401
from .counts import MAX_ORDER, NGramCounts
from .io import Inconsistent, check_ptr, load_arrays, take
from .text import BOS_ID, Vocabulary

KN_METHODS = ("int-kn", "int-mkn", "bo-kn", "bo-mkn")
METHODS = KN_METHODS + ("plre",)

#: below this much lower-order mass left for unseen words a back-off context backs off fully
BACKOFF_DEGENERATE = 1e-9


def load_model(path) -> LanguageModel:
    """Read a model written by :meth:`LanguageModel.save`.

    Raises
    ------
    ModelFileError
        Naming ``path``: not a readable model archive (see :mod:`plgraph.lm.io`), or arrays
        that do not fit the header (vocabulary size, n-gram counts, trie pointers, word ids,
        lengths of the probability arrays, NaN), which would otherwise give wrong
        perplexities or make the scoring kernels read outside their arrays.
    """
    header, arrays = load_arrays(path)
    try:
        return _build_model(header, arrays)
    except Inconsistent as err:
        raise ModelFileError(f"inconsistent model file: {err}", str(path)) from None
    except (KeyError, TypeError, ValueError) as err:
        raise ModelFileError(f"inconsistent model file ({type(err).__name__}: {err})", str(path)) from None


def _build_model(header: dict, arrays: dict) -> LanguageModel:
    method = header.get("method")
    if method not in METHODS:
        raise Inconsistent(f"unknown method {method!r} (expected one of {', '.join(METHODS)})")
    order = header.get("order")
    if isinstance(order, bool) or not isinstance(order, int) or not 1 <= order <= MAX_ORDER:
        raise Inconsistent(f"order {order!r} is not 1..{MAX_ORDER}")
    words_list = header.get("vocabulary")
    if not isinstance(words_list, list) or not all(isinstance(w, str) for w in words_list):
        raise Inconsistent("the header's vocabulary is not a list of words")
    V = len(words_list)
    counts = arrays.get("vocab_counts")
    if counts is not None and counts.ndim == 1 and len(counts) != V:
        raise Inconsistent(f"the header's vocabulary has {V} words but the arrays are for {len(counts)} "
                           f"(vocab_counts): header and arrays do not belong together")
    try:
        vocab = Vocabulary(list(words_list), take(arrays, "vocab_counts", "i", V))
    except ValueError as err:
        raise Inconsistent(f"bad vocabulary: {err}") from None
    _check_vocabulary_order(vocab)
    words, offsets = _trie_arrays(arrays, order, V)
    ngrams = header.get("ngrams")
    if ngrams is not None and ngrams != [len(words[k]) for k in range(1, order + 1)]:
        raise Inconsistent(f"the header counts n-grams {ngrams} but the arrays hold "
                           f"{[len(words[k]) for k in range(1, order + 1)]}")
    if method in KN_METHODS:
        return KNModel._from_arrays(order, vocab, words, offsets, header, arrays)
    from .plre import PLREModel

    return PLREModel._from_arrays(order, vocab, words, offsets, header, arrays)


def _check_vocabulary_order(vocab: Vocabulary) -> None:
    """The words after ``<unk> <s> </s>`` are in :meth:`Vocabulary.from_sentences` order
    (descending count, ties by code point), so a header vocabulary permuted against the
    arrays (which would score every word as another) does not load."""
    key = [(-int(c), w) for w, c in zip(vocab.words[3:], vocab.counts[3:].tolist())]
    if any(a >= b for a, b in zip(key, key[1:])):
        raise Inconsistent("the vocabulary is not in plgraph's order (descending training count, ties by code "
                           "point): the header's words do not belong to these arrays")


def _trie_arrays(arrays: dict, order: int, V: int) -> tuple[list, list]:
    """``words`` and ``offsets`` of a model file, checked as :func:`count_ngrams` makes them:
    level 1 is the vocabulary ``0..V-1``, every level-k entry's word id is in ``0..V-1``,
    ``offsets_k`` points from each level-(k-1) entry to its children, whose words are
    strictly increasing (the scoring kernels search them by bisection)."""
    w1 = take(arrays, "words_1", "i", V)
    if not np.array_equal(w1, np.arange(V)):
        raise Inconsistent(f"words_1 is not the vocabulary's ids 0..{V - 1}")
    words = [None, w1.astype(np.int32)]
    offsets = [None, None]
    for k in range(2, order + 1):
        n_prev = len(words[k - 1])
        wk = take(arrays, f"words_{k}", "i")
        off = take(arrays, f"offsets_{k}", "i", n_prev + 1)
        check_ptr(off, f"offsets_{k}", len(wk))
        if len(wk) and (wk.min() < 0 or wk.max() >= V):
            raise Inconsistent(f"words_{k} holds word ids outside the vocabulary of {V} words")
        if len(wk) > 1:
            ctx = np.repeat(np.arange(n_prev), np.diff(off))
            same = ctx[1:] == ctx[:-1]
            if np.any(np.diff(wk)[same] <= 0):
                raise Inconsistent(f"words_{k} is not sorted within each context")
        words.append(wk.astype(np.int32))
        offsets.append(off)
    return words, offsets


class KNModel(LanguageModel):
    """Interpolated or back-off (modified) Kneser-Ney in ARPA form."""

    def __init__(self, method, order, vocab, words, offsets, logp, logbow, header=None):
        if method not in KN_METHODS:
            raise ValueError(f"method must be one of {KN_METHODS}")
        super().__init__(order, vocab, words, offsets, header)
        self.method = method
        self.logp = logp      # [None, level1..levelN] float64
        self.logbow = logbow  # [None, level1..level N-1, zeros for N]
        self._flat_probs = None

    @property
    def interpolated(self) -> bool:
        return self.method.startswith("int")

    def _probs_flat(self):
        if self._flat_probs is None:
            self._flat_probs = (np.concatenate(self.logp[1:]), np.concatenate(self.logbow[1:]))
        return self._flat_probs

    def _stream_logprobs(self, tokens, starts):
        from ._kernels import backoff_stream_logprobs

        base, word, lo, hi = self.flat
        logp, logbow = self._probs_flat()
        return backoff_stream_logprobs(tokens, starts, self.order, word, lo, hi, logp, logbow)

    def _distribution(self, hist):
        from ._kernels import backoff_distribution

        base, word, lo, hi = self.flat
        logp, logbow = self._probs_flat()
        return backoff_distribution(hist, self.order, len(self.vocab), BOS_ID, word, lo, hi, logp, logbow)

    def _arrays(self):
        out = super()._arrays()
        for k in range(1, self.order + 1):
            out[f"logp_{k}"] = self.logp[k]
            out[f"logbow_{k}"] = self.logbow[k]
        return out

    @classmethod
    def _from_arrays(cls, order, vocab, words, offsets, header, arrays):
        """The model of checked trie arrays; checks its own (lengths, no NaN, log-probabilities
        at most 0, no positive infinity) and raises :class:`~plgraph.lm.io.Inconsistent`."""
        logp, logbow = [None], [None]
        for k in range(1, order + 1):
            n = len(words[k])
            lp = take(arrays, f"logp_{k}", "f", n)
            lb = take(arrays, f"logbow_{k}", "f", n)
            if len(lp) and lp.max() > 1e-9:
                raise Inconsistent(f"logp_{k} holds log-probabilities above 0")
            if np.isposinf(lb).any():
                raise Inconsistent(f"logbow_{k} holds +inf")
            logp.append(lp)
            logbow.append(lb)
        return cls(header["method"], order, vocab, words, offsets, logp, logbow, header)


def _segment_sums_exact(values: np.ndarray, ctx: np.ndarray, n: int) -> np.ndarray:
    """Sums of ``values`` grouped by sorted ``ctx`` in extended precision."""
    out = np.zeros(n, np.longdouble)
    if len(values) == 0:
        return out
    starts = np.flatnonzero(np.r_[True, ctx[1:] != ctx[:-1]])
    out[ctx[starts]] = np.add.reduceat(values.astype(np.longdouble), starts)
    return out


def estimate_kn(counts: NGramCounts, vocab: Vocabulary, method: str = "int-mkn", header: dict | None = None) -> KNModel:
    """Estimate a Kneser-Ney model of ``counts.order`` from counts (numpy only)."""
    if method not in KN_METHODS:
        raise ValueError(f"method must be one of {KN_METHODS}, got {method!r}")
    kind = method.split("-")[1]
    interpolate = method.startswith("int")
    N = counts.order
    tables, flags = level_discounts(counts, kind)
    p, gamma1 = unigram_level(counts, tables[1])
    with np.errstate(divide="ignore"):
        logp = [None, np.log(p)]
    logbow = [None]
    full_prev = p
    degenerate = 0
    for k in range(2, N + 1):
        a = counts.adjusted[k].astype(np.float64)
        ctx = counts.ctx[k]
        suf = counts.suffix[k]
        n_prev = counts.n(k - 1)
        d = tables[k][np.minimum(counts.adjusted[k], 3)]
        A = np.bincount(ctx, weights=a, minlength=n_prev)
        Dsum = np.bincount(ctx, weights=d, minlength=n_prev)
        has = A > 0
        gamma = np.ones(n_prev)
        gamma[has] = Dsum[has] / A[has]
        disc = (a - d) / A[ctx]
        if interpolate:
            full = disc + gamma[ctx] * full_prev[suf]
            bow = gamma
        else:
            left = 1.0 - _segment_sums_exact(full_prev[suf], ctx, n_prev)
            bad = has & (left < BACKOFF_DEGENERATE)
            bow = np.ones(n_prev)
            ok = has & ~bad
            bow[ok] = gamma[ok] / left[ok].astype(np.float64)
            full = disc
            if bad.any():
                degenerate += int(bad.sum())
                sel = bad[ctx]
                full = disc.copy()
                full[sel] = full_prev[suf][sel]
        logbow.append(np.log(bow))
        logp.append(np.log(full))
        full_prev = full
    logbow.append(np.zeros(counts.n(N)))
    h = dict(header or {})
    h.update(discounts={str(k): tables[k][1:].tolist() for k in range(1, N + 1)},
             discount_fallback=[k for k in range(1, N + 1) if flags[k]],
             unigram_gamma=gamma1, degenerate_contexts=degenerate,
             ngrams=[counts.n(k) for k in range(1, N + 1)])
    offsets = [None, None] + [counts.offsets(k) for k in range(2, N + 1)]
    return KNModel(method, N, vocab, list(counts.words), offsets, logp, logbow, h)
