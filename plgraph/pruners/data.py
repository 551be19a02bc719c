"""Training data of the coarse passes, extracted from lexicalised graphs.

Per sentence (:class:`plgraph.encoding.EncodedSentence`, built once from the graph;
arrays are 0-based over words, ROOT after the last word):

* normalised word and POS ids (:class:`Vocabulary`) — words normalised as the
  reference parser does: digits become ``0``, tokens with two
  adjacent capitals are lower-cased, and rare words map to their longest frequent
  suffix (``_ing``) or ``_UNK``;
* the gold structural tree: head (chart positions, ROOT = n) and attachment label of
  every word;
* the gold trace edges between words (self-loops excluded: they belong to the
  spine), one per ordered pair (the parser's multiplicity limit);
* the gold spine of every word: the spine string plus its self-loop traces,
  which together are the parser's spine identity.

The frequency threshold for "rare" is the reference's 100 occurrences in WSJ 2-21
(950,028 tokens), scaled proportionally to the size of the training data (the thesis is
silent on this).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field


from ..encoding import EncodedSentence, encode_graph, spine_identity  # noqa: F401  (re-exported)
from ..graph import Graph

_DIGITS = re.compile(r"[0-9]")
_TWO_CAPS = re.compile(r"[A-Z][A-Z]")
REFERENCE_TOKENS = 950_028
REFERENCE_MIN_COUNT = 100


def shape(word: str) -> str:
    """Digits to 0; lower-case tokens with two adjacent capitals."""
    w = _DIGITS.sub("0", word)
    return w.lower() if _TWO_CAPS.search(w) else w


@dataclass
class WordNormaliser:
    """Maps words to the parser's normalised forms (fit on training words)."""

    min_count: int = 100
    frequent: set = field(default_factory=set)
    suffixes: set = field(default_factory=set)
    #: length of the longest frequent suffix: only that many trailing characters of a word
    #: are looked at, so normalising takes time linear in the word's length
    longest: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        self.longest = max(map(len, self.suffixes), default=0)

    @classmethod
    def fit(cls, words, min_count: int | None = None) -> "WordNormaliser":
        shaped = [shape(w) for w in words]
        if min_count is None:
            min_count = max(2, round(REFERENCE_MIN_COUNT * len(shaped) / REFERENCE_TOKENS))
        counts = Counter(shaped)
        suffix_counts: Counter = Counter()
        for w, c in counts.items():
            for k in range(1, len(w)):
                suffix_counts[w[k:]] += c
        return cls(min_count, {w for w, c in counts.items() if c >= min_count},
                   {s for s, c in suffix_counts.items() if c >= min_count})

    def __call__(self, word: str) -> str:
        w = shape(word)
        if w in self.frequent:
            return w
        for k in range(max(1, len(w) - self.longest), len(w)):
            if w[k:] in self.suffixes:
                return "_" + w[k:]
        return "_UNK"

    def to_json(self) -> dict:
        return {"min_count": self.min_count, "frequent": sorted(self.frequent), "suffixes": sorted(self.suffixes)}

    @classmethod
    def from_json(cls, doc: dict) -> "WordNormaliser":
        return cls(int(doc["min_count"]), set(doc["frequent"]), set(doc["suffixes"]))


class Vocabulary:
    """A growable string -> id map that can be frozen (unknown -> ``unk``)."""

    def __init__(self, items=(), unk: str | None = None):
        self.items: list[str] = []
        self.index: dict[str, int] = {}
        self.frozen = False
        self.unk = unk
        if unk is not None:
            self.add(unk)
        for it in items:
            self.add(it)

    def add(self, item: str) -> int:
        k = self.index.get(item)
        if k is None:
            if self.frozen:
                return self.index[self.unk] if self.unk is not None else -1
            k = len(self.items)
            self.items.append(item)
            self.index[item] = k
        return k

    def get(self, item: str) -> int:
        k = self.index.get(item)
        if k is None:
            return self.index[self.unk] if self.unk is not None else -1
        return k

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, k: int) -> str:
        return self.items[k]

    def freeze(self) -> "Vocabulary":
        self.frozen = True
        return self


#: one sentence's arrays -- the shared :class:`plgraph.encoding.EncodedSentence`
#: (gold heads in chart positions as ``head``, ROOT = n; ``heads`` and ``traces`` are
#: the former fields: dependency positions with 0 = ROOT, and a dict)
SentenceData = EncodedSentence


def sentence_data(graph: Graph) -> SentenceData:
    """The former entry point: :func:`plgraph.encoding.encode_graph`."""
    return encode_graph(graph)
