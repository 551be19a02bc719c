"""N-gram counts of orders 1-5 as sorted integer arrays (a trie in flat arrays).

Level ``k`` holds every distinct k-gram of the padded training sentences
``<s> w1 ... wm </s>`` (windows that start at ``<s>`` included, windows running
past ``</s>`` excluded).  Level 1 is the whole vocabulary, entry = word id.  The
entries of level ``k >= 2`` are sorted by (``ctx``, ``words``) where ``ctx`` is
the level-(k-1) index of the first k-1 words, so the children of a level-(k-1)
entry form one contiguous range (:meth:`NGramCounts.offsets`), and ``suffix`` is
the level-(k-1) index of the last k-1 words.

Counts (the PLRE paper §2; KenLM's ``lmplz``):

* ``raw``: occurrences;
* ``adjusted``: what Kneser-Ney estimates each level from.  Highest order: the
  raw count.  Lower orders: the continuation count ``N-(x) = |{v : c(v x) > 0}|``
  (distinct left extensions), except for n-grams that start with ``<s>``, which
  nothing can precede and which keep their raw count.  ``<s>`` itself is never
  predicted: its unigram count is 0.
* count-of-counts ``n_r`` (r = 1..4) of the adjusted counts per level, from which
  :mod:`plgraph.lm.discounts` estimates the Good-Turing style discounts.

Continuation counts on the right, ``N+(h) = |{w : c(h w) > 0}|``, are the
lengths of the child ranges.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .text import BOS_ID, TokenStream

MAX_ORDER = 5


@dataclass
class NGramCounts:
    """Counts of all levels 1..order; index lists by level (``[0]`` is unused)."""

    order: int
    vocab_size: int
    words: list   # int32 per level: last word of each entry
    ctx: list     # int64 per level k>=2: level-(k-1) index of the prefix
    suffix: list  # int64 per level k>=2: level-(k-1) index of the suffix
    raw: list     # int64 raw counts
    adjusted: list  # int64 Kneser-Ney counts
    bos_initial: list  # bool: entry starts with <s>

    def n(self, k: int) -> int:
        """Number of entries of level ``k``."""
        return len(self.words[k])

    def offsets(self, k: int) -> np.ndarray:
        """Children of level-(k-1) entry ``i`` are level-``k`` entries ``offsets[i]:offsets[i+1]``."""
        if not 2 <= k <= self.order:
            raise ValueError(f"level {k} has no parent level in an order-{self.order} table")
        out = np.zeros(self.n(k - 1) + 1, np.int64)
        np.cumsum(np.bincount(self.ctx[k], minlength=self.n(k - 1)), out=out[1:])
        return out

    def n_minus(self, k: int) -> np.ndarray:
        """``N-(x) = |{v : c(v x) > 0}|``: distinct left extensions of each level-``k`` entry
        (needs ``k < order``)."""
        if not 1 <= k < self.order:
            raise ValueError(f"N- of level {k} needs level {k + 1} in the table (order {self.order})")
        return np.bincount(self.suffix[k + 1], minlength=self.n(k)).astype(np.int64)

    def n_plus(self, k: int) -> np.ndarray:
        """``N+(h) = |{w : c(h w) > 0}|``: distinct right extensions of each level-``k`` entry
        (needs ``k < order``)."""
        if not 1 <= k < self.order:
            raise ValueError(f"N+ of level {k} needs level {k + 1} in the table (order {self.order})")
        return np.diff(self.offsets(k + 1))

    def count_of_counts(self, k: int, max_r: int = 4) -> np.ndarray:
        """``n_r`` for r = 0..max_r of the adjusted counts of level ``k`` (``[0]`` unused, 0)."""
        a = self.adjusted[k]
        out = np.bincount(np.minimum(a, max_r + 1), minlength=max_r + 2)[: max_r + 1].astype(np.int64)
        out[0] = 0
        return out

    def ngram(self, k: int, i: int) -> tuple[int, ...]:
        """Word ids of entry ``i`` of level ``k`` (slow; for tests and ARPA output)."""
        out = []
        while k > 1:
            out.append(int(self.words[k][i]))
            i = int(self.ctx[k][i])
            k -= 1
        out.append(int(i))
        return tuple(reversed(out))

    def all_ngrams(self, k: int) -> np.ndarray:
        """``(n_k, k)`` array of the word ids of every level-``k`` entry."""
        cols = [self.words[k].astype(np.int64)]
        idx = np.arange(self.n(k))
        for j in range(k, 1, -1):
            idx = self.ctx[j][idx]
            cols.append(self.words[j - 1][idx].astype(np.int64))
        return np.stack(cols[::-1], axis=1)


def count_ngrams(stream: TokenStream, order: int, vocab_size: int) -> NGramCounts:
    """All n-grams of orders 1..``order`` of a token stream, with raw and adjusted counts."""
    if not 1 <= order <= MAX_ORDER:
        raise ValueError(f"order must be 1..{MAX_ORDER}, got {order}")
    tokens = stream.tokens.astype(np.int64)
    if len(tokens) and (tokens.min() < 0 or tokens.max() >= vocab_size):
        raise ValueError("token ids outside the vocabulary")
    V = np.int64(vocab_size)
    n_tok = len(tokens)
    ends = np.repeat(stream.starts[1:], np.diff(stream.starts))
    words = [None, np.arange(vocab_size, dtype=np.int32)]
    ctx = [None, np.zeros(vocab_size, np.int64)]
    suffix = [None, np.zeros(vocab_size, np.int64)]
    raw = [None, np.bincount(tokens, minlength=vocab_size).astype(np.int64)]
    first = [None, np.arange(vocab_size) == BOS_ID]
    node = tokens.copy()              # level-(k-1) entry of the (k-1)-gram starting at each position
    pos = np.arange(n_tok, dtype=np.int64)  # positions where that (k-1)-gram exists
    for k in range(2, order + 1):
        pos = pos[pos + (k - 1) < ends[pos]]
        key = node[pos] * V + tokens[pos + (k - 1)]
        uniq, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
        inv = inv.reshape(-1)
        n_k = len(uniq)
        ctx.append(uniq // V)
        words.append((uniq % V).astype(np.int32))
        suf = np.empty(n_k, np.int64)
        suf[inv] = node[pos + 1]
        suffix.append(suf)
        fst = np.zeros(n_k, bool)
        fst[inv] = tokens[pos] == BOS_ID
        first.append(fst)
        raw.append(cnt.astype(np.int64))
        new = np.full(n_tok, -1, np.int64)
        new[pos] = inv
        node = new
    adjusted = [None]
    for k in range(1, order + 1):
        if k < order:
            a = np.bincount(suffix[k + 1], minlength=len(words[k])).astype(np.int64)  # N-
            a[first[k]] = raw[k][first[k]]
        else:
            a = raw[k].copy()
        if k == 1:
            a[BOS_ID] = 0
        adjusted.append(a)
    return NGramCounts(order, vocab_size, words, ctx, suffix, raw, adjusted, first)
