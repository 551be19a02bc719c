"""What every language model shares: the base class (vocabulary, n-gram trie, scoring,
saving), its :class:`Evaluation`, the trie helpers and the Kneser-Ney pieces that PLRE
reuses (per-level discount tables, the unigram level).

:mod:`plgraph.lm.model` (the Kneser-Ney family, :func:`~plgraph.lm.model.load_model`) and
:mod:`plgraph.lm.plre` both build on this module; it imports neither.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from .counts import NGramCounts
from .discounts import discount_table
from .io import save_arrays
from .text import BOS_ID, TokenStream, Vocabulary, encode, read_sentences

__all__ = ["Evaluation", "LanguageModel", "ngram_ids", "lookup_ngrams", "level_discounts", "unigram_level"]


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
        return ngram_ids(self.words, self.offsets, k)

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


def ngram_ids(words: list, offsets: list, k: int) -> np.ndarray:
    """``(n_k, k)`` word ids of every level-``k`` entry of a trie, in storage order."""
    cols = [words[k].astype(np.int64)]
    idx = np.arange(len(words[k]))
    for j in range(k, 1, -1):
        ctx = np.repeat(np.arange(len(offsets[j]) - 1), np.diff(offsets[j]))
        idx = ctx[idx]
        cols.append(words[j - 1][idx].astype(np.int64))
    return np.stack(cols[::-1], axis=1)


def lookup_ngrams(words: list, offsets: list, ids: np.ndarray) -> np.ndarray:
    """Level-``j`` entry of each row of the ``(n, j)`` word-id array ``ids`` (-1 where the
    trie lacks it); vectorised bisection on the sorted keys ``ctx * V + word``."""
    V = np.int64(len(words[1]))
    node = ids[:, 0].astype(np.int64).copy()
    for level in range(2, ids.shape[1] + 1):
        ctx = np.repeat(np.arange(len(offsets[level]) - 1, dtype=np.int64), np.diff(offsets[level]))
        keys = ctx * V + words[level]
        q = node * V + ids[:, level - 1]
        pos = np.minimum(np.searchsorted(keys, q), max(len(keys) - 1, 0))
        found = (node >= 0) & (len(keys) > 0)
        if len(keys):
            found &= keys[pos] == q
        node = np.where(found, pos, -1)
    return node


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
