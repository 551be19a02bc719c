"""What the neural scorer learns from a graph, and the vocabularies it reads words with
(numpy only: no torch here).

A graph of ``n`` words, in the chart's positions (words ``0..n-1``, ROOT ``n``), gives
(:func:`targets`):

* ``heads[w]``: the structural parent of word ``w`` (every word has exactly one in the
  parser's graphs; ROOT = ``n``) and ``labels[w]`` the index of that edge's label among
  the structural labels of the :class:`~plgraph.parser.scoring.labels.LabelVocab`
  (:class:`LabelMaps`; -1: a label not seen in training);
* ``trace_c``, ``trace_p``, ``trace_lab``: the trace edges between two words (the pairs
  of :func:`plgraph.parser.scoring.pass2.gold_graph`: at most one per ordered pair, none
  into ROOT), the label as an index among the trace labels;
* ``spines[w]``: the index of the word's spine identity
  (:func:`plgraph.encoding.spine_identity`) among the train split's (-1: unseen).

Words are read through :class:`Vocab`\\ s of word forms (:func:`word_form`: lower case,
digits as ``0``; forms seen once in training are unknown), characters and tags; index 0
is padding, 1 the unknown item.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ....encoding import spine_identity
from ....graph import STRUCTURAL

PAD, UNK = "<pad>", "<unk>"
_DIGITS = re.compile(r"\d")


def word_form(word: str) -> str:
    """The form a word is looked up by: lower case, every digit ``0``."""
    return _DIGITS.sub("0", word.lower())


class Vocab:
    """Items numbered from 2 (0 padding, 1 unknown); ``index(item)`` is 1 for an item not
    in it."""

    def __init__(self, items):
        self.items = [PAD, UNK] + [x for x in items if x not in (PAD, UNK)]
        self._index = {x: i for i, x in enumerate(self.items)}

    def __len__(self) -> int:
        return len(self.items)

    def index(self, item: str) -> int:
        return self._index.get(item, 1)

    def indices(self, items) -> np.ndarray:
        return np.array([self._index.get(x, 1) for x in items], np.int64)

    @classmethod
    def counted(cls, items, min_count: int = 1) -> "Vocab":
        """The items seen at least ``min_count`` times, most frequent first (ties by text)."""
        c = Counter(items)
        return cls(sorted((x for x, k in c.items() if k >= min_count), key=lambda x: (-c[x], x)))


@dataclass
class Vocabularies:
    """The word forms, characters and tags of the train split, and its spine identities."""

    words: Vocab
    chars: Vocab
    tags: Vocab
    spines: list

    @classmethod
    def from_graphs(cls, graphs, min_word_count: int = 2) -> "Vocabularies":
        words = [word_form(w) for g in graphs for w in g.words]
        chars = [ch for g in graphs for w in g.words for ch in w]
        tags = [t for g in graphs for t in g.tags]
        spines = Counter(spine_identity(g, w) for g in graphs for w in range(len(g)))
        return cls(Vocab.counted(words, min_word_count), Vocab.counted(chars), Vocab.counted(tags),
                   sorted(spines, key=lambda s: (-spines[s], s)))

    def to_json(self) -> dict:
        return {"words": self.words.items[2:], "chars": self.chars.items[2:], "tags": self.tags.items[2:],
                "spines": list(self.spines)}

    @classmethod
    def from_json(cls, doc: dict) -> "Vocabularies":
        return cls(Vocab(doc["words"]), Vocab(doc["chars"]), Vocab(doc["tags"]), list(doc["spines"]))


class LabelMaps:
    """The structural and trace labels of a :class:`~plgraph.parser.scoring.labels.LabelVocab`
    as the network's classes: ``structural[k]`` / ``trace[k]`` the vocabulary id of class
    ``k``; ``s_class`` / ``t_class`` (L,) the class of a vocabulary id (-1: other kind)."""

    def __init__(self, vocab):
        kind = np.asarray(vocab.kind)
        self.structural = np.flatnonzero(kind == STRUCTURAL).astype(np.int64)
        self.trace = np.flatnonzero(kind != STRUCTURAL).astype(np.int64)
        self.s_class = np.full(kind.shape[0], -1, np.int64)
        self.s_class[self.structural] = np.arange(self.structural.shape[0])
        self.t_class = np.full(kind.shape[0], -1, np.int64)
        self.t_class[self.trace] = np.arange(self.trace.shape[0])


@dataclass
class Targets:
    """A sentence's words and tags, and what the network learns of it (module docstring)."""

    id: str
    words: list
    tags: list
    heads: np.ndarray
    labels: np.ndarray
    trace_c: np.ndarray
    trace_p: np.ndarray
    trace_lab: np.ndarray
    spines: np.ndarray

    @property
    def n(self) -> int:
        return len(self.words)


def targets(graph, vocab, maps: LabelMaps, spine_index: dict) -> Targets:
    """The :class:`Targets` of ``graph`` under the label vocabulary ``vocab`` (its
    :class:`LabelMaps` ``maps``) and the spine identities ``spine_index`` (identity ->
    class).  ValueError naming the sentence when a word has no structural parent or
    more than one (not a graph of the parser's representation)."""
    from ..labels import graph_labels
    from ..pass2 import gold_graph

    n = len(graph)
    heads = np.full(n, -1, np.int64)
    labels = np.full(n, -1, np.int64)
    count = np.zeros(n, np.int64)
    for e, lab in enumerate(graph_labels(graph)):
        if lab.kind != STRUCTURAL:
            continue
        c, p = int(graph.child[e]) - 1, int(graph.parent[e])
        count[c] += 1
        heads[c] = n if p == 0 else p - 1
        labels[c] = maps.s_class[vocab.index[lab]] if lab in vocab.index else -1
    if (count != 1).any():
        w = int(np.flatnonzero(count != 1)[0])
        raise ValueError(f"sentence {graph.id}: word {w} has {int(count[w])} structural parents (expected 1)")
    G, _unseen = gold_graph(graph, vocab)
    tc, tp = np.nonzero(G.t >= 0)
    return Targets(str(graph.id), list(graph.words), list(graph.tags), heads, labels, tc.astype(np.int64),
                   tp.astype(np.int64), maps.t_class[G.t[tc, tp]], np.array(
                       [spine_index.get(spine_identity(graph, w), -1) for w in range(n)], np.int64))


__all__ = ["PAD", "UNK", "word_form", "Vocab", "Vocabularies", "LabelMaps", "Targets", "targets"]
