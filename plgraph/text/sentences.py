"""Sentence splitting of running text: :class:`SentenceSplitter`.

The splitter is NLTK's Punkt (Kiss & Strunk 2006), an unsupervised model of
abbreviations, collocations and sentence starters.  NLTK's pip package ships no trained
Punkt parameters, so plgraph trains them on the text of its training split
(:meth:`SentenceSplitter.train`, ``python -m plgraph text train-splitter``) and ships them
as JSON beside this module (:data:`SPLITTER_FILE`), never as a pickle.  Punkt is also
told the training split's capitalised and dotted words that end in a period (``Inc.``,
``Calif.``, ``N.J.``); and the file holds the few that the treebank writes with their own
period and a ``.`` at the end of a sentence (``U.S. .``, where ``Corp.`` ends one as
``Corp .``), for :func:`plgraph.text.tokenize.tokenize`.

Running text is split into paragraphs first (:func:`paragraphs`): a sentence never
crosses a blank line, nor -- unless the text is hard-wrapped (``wrapped=True``) -- a line
break, so a headline on a line of its own is a sentence of its own.  The treebank has
no running text, so :func:`running_text` writes a file's sentences as the Wall Street
Journal printed them: detokenised (NLTK's ``TreebankWordDetokenizer``), one period for a
sentence-final ``U.S. .``, separated by a space, and by a line break after a sentence
that does not end in ``.``, ``?`` or ``!`` (headlines and list heads).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Iterable, Iterator

from .tokenize import looks_abbreviated, tokenize

#: the splitter plgraph ships: Punkt trained on the PTB sample's training split
SPLITTER_FILE = os.path.join(os.path.dirname(__file__), "punkt_wsj_train.json")
FORMAT = "plgraph-punkt"
_ENDED = re.compile(r"[.?!][\"')\]]*$")


@dataclass
class SentenceSplitter:
    """Punkt parameters (``abbreviations`` lower case without the final period, as Punkt
    keeps them; ``collocations`` pairs; ``sentence_starters``; ``ortho_context`` word ->
    Punkt's orthographic flags) and the words that keep their period before a
    sentence's final ``.`` in the treebank (``final_abbreviations``, case kept: ``U.S.``,
    where ``Corp.`` ends a sentence as ``Corp .``); ``ending_abbreviations``: the
    abbreviations that end sentences in the training text (``Inc.``, ``Corp.``, ``Mass.``),
    after which a capitalised word or an opening quote begins a new sentence (Punkt keeps
    the sentence going after an abbreviation unless the next word is known to start
    sentences, and names are not); ``source``: what it was trained on."""

    abbreviations: list
    collocations: list
    sentence_starters: list
    ortho_context: dict
    final_abbreviations: list
    ending_abbreviations: list
    source: str = ""

    # -- training and files ----------------------------------------------------------
    @classmethod
    def train(cls, documents: Iterable[list], source: str = "") -> "SentenceSplitter":
        """Train Punkt on ``documents`` (each a list of sentences as treebank tokens,
        written out by :func:`running_text`).  Punkt's abbreviations are joined by the
        documents' words within a sentence that end in a period and begin with a capital or
        are dotted letters (``Inc.``, ``N.J.``); ``final_abbreviations`` are the words before a
        sentence's final ``.`` that keep their own period (``U.S. .``);
        ``ending_abbreviations`` the joined ones that end a sentence of the documents (there
        written without their period, ``Corp .``)."""
        from nltk.tokenize.punkt import PunktTrainer

        documents = [list(d) for d in documents]
        trainer = PunktTrainer()
        trainer.INCLUDE_ALL_COLLOCS = True
        trainer.train("\n".join(running_text(d) for d in documents), finalize=True)
        params = trainer.get_params()
        final = sorted({s[-2] for d in documents for s in d if len(s) >= 2 and s[-1] == "." and s[-2].endswith(".")
                        and s[-2] != "..."})
        known = {w[:-1].lower() for d in documents for s in d for w in s[:-1]
                 if len(w) > 1 and w.endswith(".") and w != "..." and (w[0].isupper() or looks_abbreviated(w))}
        ending = sorted({s[-2] + "." for d in documents for s in d if len(s) >= 2 and s[-1] == "."
                         and s[-2][:1].isupper() and s[-2].lower() in known})
        return cls(sorted(set(params.abbrev_types) | known), sorted(map(list, params.collocations)),
                   sorted(params.sent_starters), dict(sorted(params.ortho_context.items())), final, ending, source)

    def to_json(self) -> dict:
        return {"format": FORMAT, "format_version": 1, "source": self.source, "abbreviations": self.abbreviations,
                "collocations": self.collocations, "sentence_starters": self.sentence_starters,
                "ortho_context": self.ortho_context, "final_abbreviations": self.final_abbreviations,
                "ending_abbreviations": self.ending_abbreviations}

    @classmethod
    def from_json(cls, doc: dict, where: str = "splitter") -> "SentenceSplitter":
        """The splitter of a :meth:`to_json` document; InputError naming ``where`` for
        anything else."""
        from ..errors import InputError

        if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("format_version") != 1:
            raise InputError(f"not a {FORMAT} file (format_version 1)", source=where)
        try:
            return cls([str(a) for a in doc["abbreviations"]], [[str(a), str(b)] for a, b in doc["collocations"]],
                       [str(s) for s in doc["sentence_starters"]],
                       {str(k): int(v) for k, v in doc["ortho_context"].items()},
                       [str(a) for a in doc["final_abbreviations"]], [str(a) for a in doc["ending_abbreviations"]],
                       str(doc.get("source", "")))
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise InputError(f"damaged {FORMAT} file: {err!r}", source=where) from None

    def save(self, path) -> None:
        from ..files.atomic import atomic_json

        atomic_json(path, self.to_json())

    @classmethod
    def load(cls, path=None) -> "SentenceSplitter":
        """The splitter in ``path`` (default: the one plgraph ships, :data:`SPLITTER_FILE`)."""
        from ..errors import InputError

        path = SPLITTER_FILE if path is None else str(path)
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except FileNotFoundError:
            raise InputError("no such file (python -m plgraph text train-splitter --out PATH makes one)",
                             source=path) from None
        except (OSError, ValueError) as err:
            raise InputError(f"cannot read the splitter: {err}", source=path) from None
        return cls.from_json(doc, path)

    # -- splitting -------------------------------------------------------------------
    @cached_property
    def _punkt(self):
        from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

        params = PunktParameters()
        params.abbrev_types = set(self.abbreviations)
        params.collocations = {tuple(c) for c in self.collocations}
        params.sent_starters = set(self.sentence_starters)
        for word, flags in self.ortho_context.items():
            params.ortho_context[word] = flags
        return PunktSentenceTokenizer(params)

    @cached_property
    def final_set(self) -> frozenset:
        return frozenset(self.final_abbreviations)

    @cached_property
    def _ending(self):
        words = "|".join(re.escape(w) for w in sorted(self.ending_abbreviations, key=len, reverse=True))
        return re.compile(rf"(?<![\w.])(?:{words})(?=\s+[\"'`(\[]*[A-Z])") if words else None

    def spans(self, paragraph: str) -> list[tuple[int, int]]:
        """``(start, end)`` character offsets of the sentences of one paragraph: Punkt's,
        split again after an ending abbreviation (class docstring)."""
        out = []
        for a, b in self._punkt.span_tokenize(paragraph):
            if self._ending is not None:
                for m in self._ending.finditer(paragraph, a, b):
                    out.append((a, m.end()))
                    a = m.end() + len(paragraph[m.end():b]) - len(paragraph[m.end():b].lstrip())
            out.append((a, b))
        return out

    def split(self, text: str, wrapped: bool = False) -> list[str]:
        """The sentences of running ``text`` (paragraphs: :func:`paragraphs`)."""
        return [p[a:b] for _, p in paragraphs(text, wrapped) for a, b in self.spans(p)]

    def tokenize(self, sentence: str) -> list[str]:
        """:func:`plgraph.text.tokenize.tokenize` with this splitter's period-final words."""
        return tokenize(sentence, self.final_set)

    def sentences(self, text: str, wrapped: bool = False) -> list[list[str]]:
        """The tokenised sentences of running ``text``."""
        return [t for t in (self.tokenize(s) for s in self.split(text, wrapped)) if t]


@lru_cache(maxsize=1)
def default_splitter() -> SentenceSplitter:
    """The splitter plgraph ships (:data:`SPLITTER_FILE`), loaded once."""
    return SentenceSplitter.load()


def paragraphs(text: str, wrapped: bool = False) -> Iterator[tuple[int, str]]:
    """``(index of the first line, paragraph)`` of ``text``: each non-blank line, or with
    ``wrapped`` each run of non-blank lines joined by spaces (blank lines end paragraphs)."""
    block, first = [], 0
    for k, line in enumerate(text.split("\n")):
        line = line.rstrip("\r")
        if not line.strip():
            if block:
                yield first, " ".join(block)
                block = []
            continue
        if not wrapped:
            yield k, line.strip()
            continue
        if not block:
            first = k
        block.append(line.strip())
    if block:
        yield first, " ".join(block)


def detokenize(words: list) -> str:
    """A sentence's treebank tokens as raw text (NLTK's ``TreebankWordDetokenizer``,
    brackets written as brackets)."""
    from nltk.tokenize.treebank import TreebankWordDetokenizer

    return TreebankWordDetokenizer().detokenize(list(words), convert_parentheses=True)


def _raw_sentence(words: list) -> str:
    """One sentence as printed: detokenised, and a final abbreviation's doubled period
    (``Inc. .``) written once."""
    words = list(words)
    if len(words) >= 2 and words[-1] == "." and words[-2].endswith(".") and words[-2] != "...":
        words = words[:-1]
    return detokenize(words)


def running_text(sentences: Iterable[list]) -> str:
    """A document's sentences (treebank tokens) as running text (module docstring)."""
    out = []
    for words in sentences:
        s = _raw_sentence(words)
        out.append(s + (" " if _ENDED.search(s) else "\n"))
    return "".join(out).rstrip() + "\n"


__all__ = ["SPLITTER_FILE", "SentenceSplitter", "default_splitter", "detokenize", "paragraphs", "running_text"]
