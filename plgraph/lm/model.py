"""Language models: the common base and the Kneser-Ney family.

Four Kneser-Ney variants (seed §2; Chen & Goodman 1998), all estimated from the
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
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from .counts import NGramCounts
from .discounts import discount_table
from .io import load_arrays, save_arrays
from .text import BOS_ID, TokenStream, Vocabulary, encode, read_sentences

KN_METHODS = ("int-kn", "int-mkn", "bo-kn", "bo-mkn")
METHODS = KN_METHODS + ("plre",)

#: below this much lower-order mass left for unseen words a back-off context backs off fully
BACKOFF_DEGENERATE = 1e-9


@dataclass
class Evaluation:
    """Perplexity of a model on a text: ``exp(-logprob / tokens)``.

    ``tokens`` counts the predicted tokens (words plus one ``</s>`` per sentence,
    never ``<s>``; KenLM's convention), ``oov`` the words not in the vocabulary
    (scored as ``<unk>`` and included in the perplexity), ``tokens_per_s`` the
    scoring speed (id lookup + scoring, file reading excluded).
    """

    perplexity: float
    tokens: int
    oov: int
    tokens_per_s: float
    logprob: float = 0.0  # natural log, summed
    sentences: int = 0
    seconds: float = 0.0

    def to_json_dict(self) -> dict:
        return {"perplexity": self.perplexity, "tokens": self.tokens, "oov": self.oov,
                "tokens_per_s": self.tokens_per_s}


class LanguageModel:
    """Base class: vocabulary, the n-gram trie, scoring.

    Subclasses implement ``_stream_logprobs(tokens, starts)``,
    ``_distribution(hist)`` and their arrays for saving.
    """

    method: str = ""

    def __init__(self, order: int, vocab: Vocabulary, words: list, offsets: list, header: dict | None = None):
        self.order = order
        self.vocab = vocab
        self.words = words      # [None, level1, ..., levelN] int32
        self.offsets = offsets  # [None, None, level2, ...] int64, len n_{k-1}+1
        self.header = dict(header or {})
        self._flat = None

    # ----- the flat trie used by the kernels
    @property
    def flat(self):
        if self._flat is None:
            N = self.order
            sizes = [0] + [len(self.words[k]) for k in range(1, N + 1)]
            base = np.zeros(N + 2, np.int64)
            base[1] = 0
            for k in range(2, N + 2):
                base[k] = base[k - 1] + sizes[k - 1]
            total = int(base[N + 1])
            word = np.concatenate([self.words[k] for k in range(1, N + 1)]).astype(np.int32)
            lo = np.zeros(total, np.int64)
            hi = np.zeros(total, np.int64)
            for k in range(1, N):
                off = self.offsets[k + 1]
                lo[base[k]:base[k + 1]] = base[k + 1] + off[:-1]
                hi[base[k]:base[k + 1]] = base[k + 1] + off[1:]
            self._flat = (base, word, lo, hi)
        return self._flat

    def n_entries(self, k: int) -> int:
        return len(self.words[k])

    def ngram_words(self, k: int) -> np.ndarray:
        """``(n_k, k)`` word ids of every level-``k`` entry, in storage order."""
        cols = [self.words[k].astype(np.int64)]
        idx = np.arange(len(self.words[k]))
        for j in range(k, 1, -1):
            ctx = np.repeat(np.arange(len(self.offsets[j]) - 1), np.diff(self.offsets[j]))
            idx = ctx[idx]
            cols.append(self.words[j - 1][idx].astype(np.int64))
        return np.stack(cols[::-1], axis=1)

    # ----- scoring
    def stream(self, sentences: Sequence[Sequence[str]]) -> TokenStream:
        return encode(sentences, self.vocab)

    def logprobs(self, stream: TokenStream) -> np.ndarray:
        """Natural-log probability of every predicted token of ``stream``."""
        if len(stream.tokens) and int(stream.tokens.max()) >= len(self.vocab):
            raise ValueError("token ids outside the model's vocabulary")
        return self._stream_logprobs(stream.tokens, stream.starts)

    def warmup(self) -> None:
        """Compile (or load from numba's cache) the scoring kernel."""
        self.logprobs(encode([["a"]], self.vocab))

    def evaluate(self, source) -> Evaluation:
        """Perplexity on a text file (path) or a list of tokenised sentences."""
        sentences = read_sentences(source) if isinstance(source, (str, Path)) else source
        self.warmup()
        t0 = time.perf_counter()
        stream = encode(sentences, self.vocab)
        lp = self.logprobs(stream)
        seconds = time.perf_counter() - t0
        total = float(lp.sum())
        n = len(lp)
        ppl = float(np.exp(-total / n)) if n else float("nan")
        return Evaluation(ppl, n, stream.oov, n / seconds if seconds > 0 else float("inf"), total,
                          stream.n_sentences, seconds)

    def context_hist(self, context: Sequence[str] | Sequence[int]) -> np.ndarray:
        """Kernel history state for a context (words or ids; a leading ``<s>`` marks a sentence start)."""
        from ._kernels import context_nodes

        ids = np.array([c if isinstance(c, (int, np.integer)) else self.vocab.id(c) for c in context], np.int64)
        base, word, lo, hi = self.flat
        return context_nodes(ids, self.order, word, lo, hi)

    def distribution(self, context: Sequence[str] | Sequence[int] = ("<s>",)) -> np.ndarray:
        """``P(w | context)`` for every word id (``<s>`` gets 0); sums to 1."""
        return self._distribution(self.context_hist(context))

    def prob(self, word: str, context: Sequence[str] = ("<s>",)) -> float:
        return float(self.distribution(context)[self.vocab.id(word)])

    def sentence_logprob(self, sentence: Sequence[str]) -> float:
        """Natural-log probability of one sentence (its words and ``</s>``)."""
        return float(self.logprobs(encode([sentence], self.vocab)).sum())

    # ----- persistence
    def _header(self) -> dict:
        h = dict(self.header)
        h.update(method=self.method, order=self.order, vocabulary=self.vocab.words)
        return h

    def _arrays(self) -> dict:
        out = {"vocab_counts": self.vocab.counts}
        for k in range(1, self.order + 1):
            out[f"words_{k}"] = self.words[k]
            if k >= 2:
                out[f"offsets_{k}"] = self.offsets[k]
        return out

    def save(self, path) -> None:
        """Write the model (``.npz`` + JSON header, atomically; no pickle)."""
        save_arrays(path, self._header(), self._arrays())

    def __repr__(self):
        sizes = "/".join(str(self.n_entries(k)) for k in range(1, self.order + 1))
        return f"<{type(self).__name__} {self.method} order={self.order} V={len(self.vocab)} n-grams={sizes}>"


def load_model(path) -> LanguageModel:
    """Read a model written by :meth:`LanguageModel.save`."""
    from .io import ModelFileError

    header, arrays = load_arrays(path)
    try:
        vocab = Vocabulary(list(header["vocabulary"]), arrays["vocab_counts"])
        order = int(header["order"])
        words = [None] + [arrays[f"words_{k}"] for k in range(1, order + 1)]
        offsets = [None, None] + [arrays[f"offsets_{k}"] for k in range(2, order + 1)]
        method = header["method"]
        if method in KN_METHODS:
            return KNModel._from_arrays(order, vocab, words, offsets, header, arrays)
        if method == "plre":
            from .plre import PLREModel

            return PLREModel._from_arrays(order, vocab, words, offsets, header, arrays)
    except (KeyError, ValueError) as err:
        raise ModelFileError(f"incomplete or inconsistent model file ({err})", str(path)) from None
    raise ModelFileError(f"unknown method {header.get('method')!r}", str(path))


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
        logp = [None] + [arrays[f"logp_{k}"] for k in range(1, order + 1)]
        logbow = [None] + [arrays[f"logbow_{k}"] for k in range(1, order + 1)]
        return cls(header["method"], order, vocab, words, offsets, logp, logbow, header)


def level_discounts(counts: NGramCounts, kind: str) -> tuple[list, list]:
    """Discount tables per level (index 0 unused) and fallback flags."""
    tables, flags = [None], [None]
    for k in range(1, counts.order + 1):
        t, ok = discount_table(kind, counts.count_of_counts(k))
        tables.append(t)
        flags.append(not ok)
    return tables, flags


def unigram_level(counts: NGramCounts, table: np.ndarray) -> tuple[np.ndarray, float]:
    """Unigram probabilities (discounted continuation counts + uniform share) and gamma.

    The uniform share goes to every word but ``<s>`` (KenLM's
    ``--interpolate_unigrams``), so ``<unk>`` gets ``gamma / (V - 1)`` when unseen.
    """
    a = counts.adjusted[1]
    d = np.where(a > 0, table[np.minimum(a, 3)], 0.0)
    total = float(a.sum())
    gamma = float(d.sum()) / total
    p = (a - d) / total + gamma / (counts.vocab_size - 1)
    p[BOS_ID] = 0.0
    return p, gamma


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
