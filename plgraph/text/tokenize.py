"""PTB tokenisation of one raw sentence: :func:`tokenize`.

NLTK's Treebank tokenizer (``TreebankWordTokenizer``, the Penn Treebank's own ``sed``
script in Python) does the work: ``n't``, ``'s``, ``'re`` ... split off, ``"`` as ``````
or ``''``, punctuation split, brackets as ``-LRB-``/``-RRB-``, ``-LSB-``, ``-LCB-``.  Three
things are added around it, each a convention of the treebank that the tokenizer misses:

* typographic characters are written as the treebank's ASCII first (:func:`normalise`:
  curly quotes, dashes, the ellipsis, non-breaking spaces);
* ``&`` between letters or digits (``S&P``, ``AT&T``) and ``$`` after capitals (``US$``,
  ``C$``) stay inside their word;
* a sentence that ends with an abbreviation (``Inc.``, ``U.S.``) ends as in the treebank,
  with the abbreviation's own period kept and a ``.`` token after it (``Inc. .``); what
  counts as an abbreviation is given (:class:`plgraph.text.sentences.SentenceSplitter`
  knows those of the training split) or :func:`looks_abbreviated` (letters with periods
  inside, ``U.S.``).
"""
from __future__ import annotations

import re
from functools import lru_cache

#: typographic characters and what the treebank writes for them
_TYPOGRAPHIC = {"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2018": "'", "\u2019": "'", "\u201a": "'",
                "\u2026": "...", "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2014": " -- ",
                "\u2212": "-", "\u00ad": ""}
_SPACED_EN_DASH = re.compile(r"\s\u2013\s")
#: private-use characters that hold ``&`` and ``$`` while NLTK splits the rest
_AMP, _DOLLAR = "\ue000", "\ue001"
_INNER_AMP = re.compile(r"(?<=[A-Za-z0-9])&(?=[A-Za-z0-9])")
_CURRENCY = re.compile(r"(?<=\b[A-Z])\$|(?<=\b[A-Z]{2})\$")
_DOTTED = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]?$")


@lru_cache(maxsize=1)
def _treebank():
    from nltk.tokenize.treebank import TreebankWordTokenizer

    return TreebankWordTokenizer()


def normalise(text: str) -> str:
    """``text`` with typographic quotes, dashes, the ellipsis and special spaces written
    as the treebank writes them (``\u201c`` -> ``"``, ``\u2019`` -> ``'``, ``\u2014`` -> `` -- ``,
    a spaced en dash -> `` -- ``, an en dash inside a word -> ``-``, ``\u2026`` -> ``...``)."""
    text = _SPACED_EN_DASH.sub(" -- ", text).replace("\u2013", "-")
    return "".join(_TYPOGRAPHIC.get(c, c) for c in text)


def looks_abbreviated(token: str) -> bool:
    """True for a token of single letters with periods (``U.S.``, ``p.m.``, ``N.J.``)."""
    return bool(_DOTTED.match(token)) and token.endswith(".")


def tokenize(sentence: str, abbreviations=frozenset()) -> list[str]:
    """The PTB tokens of one raw sentence (module docstring); ``abbreviations``: words
    written with their final period (``U.S.``; case counts) that end a sentence as
    ``U.S. .``.  White space only: ``[]``."""
    text = normalise(sentence)
    text = _CURRENCY.sub(_DOLLAR + " ", _INNER_AMP.sub(_AMP, text))
    tokens = [t.replace(_AMP, "&").replace(_DOLLAR, "$") for t in
              _treebank().tokenize(text, convert_parentheses=True)]
    if len(tokens) >= 2 and tokens[-1] == ".":
        last = tokens[-2] + "."
        if last in abbreviations:
            tokens[-2] = last
    return tokens


__all__ = ["looks_abbreviated", "normalise", "tokenize"]
