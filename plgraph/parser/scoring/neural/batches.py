"""Padded tensors of sentences for the network (:class:`~plgraph.parser.scoring.neural.network.Batch`) and
of their targets (:class:`~plgraph.parser.scoring.neural.network.GoldBatch`), and the order batches are
drawn in.

Encoder positions: 0 is ROOT, word ``w`` (0-based) is ``w + 1``; a chart position ``p``
is encoder position ``p + 1`` for a word and 0 for ROOT (``p == n``)
(:func:`chart_to_encoder`).
"""
from __future__ import annotations

import numpy as np

from . import require_torch
from .data import Vocabularies, word_form
from .network import Batch, GoldBatch

torch = require_torch()

#: characters of a word the character LSTM reads (the first ones)
MAX_CHARS = 20


def chart_to_encoder(p, n):
    """Encoder position of chart position(s) ``p`` of an ``n``-word sentence."""
    p = np.asarray(p)
    return np.where(p == n, 0, p + 1)


def make_batch(sents, vocabs: Vocabularies, pretrained_index: dict | None = None) -> Batch:
    """The :class:`Batch` of ``sents`` (objects with ``words`` and ``tags``)."""
    B = len(sents)
    L = max(len(s.words) for s in sents)
    words = np.zeros((B, L + 1), np.int64)
    tags = np.zeros((B, L + 1), np.int64)
    chars = np.zeros((B, L + 1, MAX_CHARS), np.int64)
    pre = np.zeros((B, L + 1), np.int64) if pretrained_index is not None else None
    for b, s in enumerate(sents):
        n = len(s.words)
        forms = [word_form(w) for w in s.words]
        words[b, 1:n + 1] = vocabs.words.indices(forms)
        tags[b, 1:n + 1] = vocabs.tags.indices(s.tags)
        for w, word in enumerate(s.words):
            cs = vocabs.chars.indices(word[:MAX_CHARS])
            chars[b, w + 1, :cs.shape[0]] = cs
        if pre is not None:
            pre[b, 1:n + 1] = [pretrained_index.get(f, 1) for f in forms]
    lens = torch.tensor([len(s.words) for s in sents], dtype=torch.long)
    return Batch(torch.from_numpy(words), torch.from_numpy(chars), torch.from_numpy(tags), lens,
                 None if pre is None else torch.from_numpy(pre))


def gold_batch(targets) -> GoldBatch:
    """The :class:`GoldBatch` of a list of :class:`~plgraph.parser.scoring.neural.data.Targets`."""
    B = len(targets)
    L = max(t.n for t in targets)
    heads = np.full((B, L + 1), -1, np.int64)
    labels = np.full((B, L + 1), -1, np.int64)
    spines = np.full((B, L + 1), -1, np.int64)
    trace = np.zeros((B, L + 1, L + 1), np.float32)
    tb, tx, ty, tl = [], [], [], []
    for b, t in enumerate(targets):
        n = t.n
        heads[b, 1:n + 1] = chart_to_encoder(t.heads, n)
        labels[b, 1:n + 1] = t.labels
        spines[b, 1:n + 1] = t.spines
        x, y = t.trace_c + 1, t.trace_p + 1
        trace[b, x, y] = 1.0
        tb += [b] * x.shape[0]
        tx += x.tolist()
        ty += y.tolist()
        tl += t.trace_lab.tolist()
    long = lambda a: torch.tensor(a, dtype=torch.long)  # noqa: E731
    return GoldBatch(torch.from_numpy(heads), torch.from_numpy(labels), torch.from_numpy(spines),
                     torch.from_numpy(trace), (long(tb), long(tx), long(ty), long(tl)))


def batch_order(lengths, max_words: int, rng: np.random.Generator) -> list:
    """Batches of sentence indices of about ``max_words`` words each: sentences sorted by
    length with random ties, cut into runs, the runs shuffled (similar lengths batch
    together, little padding)."""
    lengths = np.asarray(lengths)
    order = np.lexsort((rng.random(lengths.shape[0]), lengths))
    out, cur, words = [], [], 0
    for i in order:
        if cur and words + lengths[i] > max_words:
            out.append(cur)
            cur, words = [], 0
        cur.append(int(i))
        words += int(lengths[i])
    if cur:
        out.append(cur)
    rng.shuffle(out)
    return out


__all__ = ["MAX_CHARS", "chart_to_encoder", "make_batch", "gold_batch", "batch_order"]
