"""Reading language-model text, the vocabulary, and token-id streams.

Text format (the PTB/KenLM convention): UTF-8 (a leading byte order mark is
dropped), one sentence per line, tokens separated by whitespace.  Blank lines are skipped (KenLM would read them as
empty sentences; our corpora have none).  The reserved words ``<s>`` and
``</s>`` may not occur in the text; ``<unk>`` may (the Mikolov PTB split uses it
as its unknown word) and is then an ordinary, counted word.

Vocabulary (the PLRE paper §5, "singletons were replaced with <unk>"): the
training words, optionally without those seen fewer than ``min_count`` times,
which become ``<unk>``.  Ids 0, 1, 2 are ``<unk>``, ``<s>``, ``</s>``; the other
words follow by descending training count, ties by code point order.  ``<unk>``
is always in the vocabulary, with count zero when the training text has none
(KenLM does the same: it is then a zeroton that receives only the uniform
share of the unigram level).  The predicted vocabulary is every id except
``<s>``, which is never predicted.

A token stream is a flat ``int32`` array of padded sentences
``<s> w1 ... wm </s>`` with sentence start offsets, as the counting and scoring
kernels want it.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from ..errors import InputError

UNK, BOS, EOS = "<unk>", "<s>", "</s>"
UNK_ID, BOS_ID, EOS_ID = 0, 1, 2
RESERVED = (UNK, BOS, EOS)
BOM = "\ufeff"


class LMTextError(InputError):
    """Language-model text that cannot be read (names file and line)."""


def read_sentences(path) -> list[list[str]]:
    """Sentences of the text file ``path`` as lists of tokens.

    Raises
    ------
    LMTextError
        Invalid UTF-8, or a reserved word ``<s>``/``</s>`` in the text, with the
        file and 1-based line; also for a file without any token.
    """
    path = os.fspath(path)
    data = Path(path).read_bytes()
    return parse_sentences(data, source=path)


def parse_sentences(data: bytes | str, source: str = "<string>") -> list[list[str]]:
    """:func:`read_sentences` for bytes or text already in memory."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            line = data.count(b"\n", 0, err.start) + 1
            raise LMTextError(f"not valid UTF-8 (byte {data[err.start]:#04x})", source, line=line) from None
    else:
        text = data
    if text.startswith(BOM):  # a byte order mark is not part of the first word
        text = text[1:]
    sentences = []
    # splitlines() would also break on \x1c, \x85, \u2028 ...; only \n (and \r\n) end a line here
    for lineno, line in enumerate(text.split("\n"), 1):
        tokens = line.split()
        if not tokens:
            continue
        if BOS in tokens or EOS in tokens:
            bad = BOS if BOS in tokens else EOS
            raise LMTextError(f"reserved word {bad} in the text (sentence boundaries are implicit: one "
                              f"sentence per line)", source, line=lineno)
        sentences.append(tokens)
    if not sentences:
        raise LMTextError("no tokens in the text", source)
    return sentences


@dataclass
class Vocabulary:
    """Word <-> id mapping.  ``words[0:3]`` are ``<unk>``, ``<s>``, ``</s>``."""

    words: list[str]
    counts: np.ndarray  # training count per id (after the <unk> mapping); <s>: number of sentences
    index: dict = field(repr=False, default_factory=dict)

    def __post_init__(self):
        if list(self.words[:3]) != list(RESERVED):
            raise ValueError("a vocabulary starts with <unk>, <s>, </s>")
        if not self.index:
            self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            raise ValueError("duplicate words in the vocabulary")

    def __len__(self) -> int:
        return len(self.words)

    @property
    def n_predicted(self) -> int:
        """Size of the predicted vocabulary: every word but ``<s>`` (KenLM's uniform denominator)."""
        return len(self.words) - 1

    def id(self, word: str) -> int:
        return self.index.get(word, UNK_ID)

    @classmethod
    def from_sentences(cls, sentences: Sequence[Sequence[str]], min_count: int = 1) -> "Vocabulary":
        """Vocabulary of training sentences; words seen fewer than ``min_count`` times become ``<unk>``."""
        if min_count < 1:
            raise ValueError("min_count must be >= 1")
        counter: Counter = Counter()
        for s in sentences:
            counter.update(s)
        unk = counter.pop(UNK, 0)
        kept = []
        for w, c in counter.items():
            if c >= min_count:
                kept.append((w, c))
            else:
                unk += c
        kept.sort(key=lambda wc: (-wc[1], wc[0]))
        words = list(RESERVED) + [w for w, _ in kept]
        counts = np.array([unk, len(sentences), len(sentences)] + [c for _, c in kept], np.int64)
        return cls(words, counts)


@dataclass
class TokenStream:
    """Sentences as one flat id array of padded sentences.

    ``tokens[starts[i]:starts[i+1]]`` is ``<s> w1 ... wm </s>`` of sentence i.
    ``oov`` counts words that were not in the vocabulary (mapped to ``<unk>``).
    """

    tokens: np.ndarray  # int32
    starts: np.ndarray  # int64, len = n_sentences + 1
    oov: int

    @property
    def n_sentences(self) -> int:
        return len(self.starts) - 1

    @property
    def n_predictions(self) -> int:
        """Words plus one ``</s>`` per sentence (``<s>`` is never predicted)."""
        return len(self.tokens) - self.n_sentences


def encode(sentences: Iterable[Sequence[str]], vocab: Vocabulary) -> TokenStream:
    """Map sentences to a :class:`TokenStream` (unknown words become ``<unk>``)."""
    index = vocab.index
    ids: list[int] = []
    starts = [0]
    oov = 0
    for s in sentences:
        ids.append(BOS_ID)
        for w in s:
            i = index.get(w)
            if i is None:
                oov += 1
                i = UNK_ID
            elif i == BOS_ID or i == EOS_ID:
                raise ValueError(f"reserved word {w} inside a sentence")
            ids.append(i)
        ids.append(EOS_ID)
        starts.append(len(ids))
    return TokenStream(np.asarray(ids, np.int32), np.asarray(starts, np.int64), oov)
