"""The treebank's forms of bracket characters, and which POS tags a tree can carry.

Bracketed trees use ``(`` and ``)`` as syntax, so the Penn Treebank writes the words
``(``/``)`` as ``-LRB-``/``-RRB-`` (tag ``-LRB-``/``-RRB-``) and ``{``/``}`` as
``-LCB-``/``-RCB-``.  Text that goes into a tree is held in that form:
:func:`escape_word` and :func:`escape_tag` map a token to it (a bracket inside a longer
word is written ``-LRB-``/``-RRB-`` in place), and :meth:`plgraph.tree.Tree.to_string`
writes any bracket left in a word or label the same way, so every tree it writes
reads back.

A POS tag must also read back as itself: the reader takes ``NN-1`` for ``NN`` with
co-index 1, ``NN=2`` for a gapping index, ``NN-LOC`` for a function tag, ``NN|VB`` for
its first alternative and anything starting ``-NONE-`` for a null element.
:func:`tag_problem` says why a tag cannot be written (``None`` when it can).
"""
from __future__ import annotations

import re

from ..tree import NONE_LABEL, bracket_free
from .clean import base_label, coindex_of, gap_index_of

#: whole words the treebank writes in escaped form
WORD_ESCAPES = {"(": "-LRB-", ")": "-RRB-", "{": "-LCB-", "}": "-RCB-"}
#: whole tags that cannot be written as they are, in the treebank's form
TAG_ESCAPES = {"(": "-LRB-", ")": "-RRB-"}


def escape_word(word: str) -> str:
    """``word`` in the treebank's form: ``(`` -> ``-LRB-``, ``)`` -> ``-RRB-``, ``{`` ->
    ``-LCB-``, ``}`` -> ``-RCB-``; a round bracket inside a longer word is replaced in
    place (``f(x)`` -> ``f-LRB-x-RRB-``); other words are returned unchanged."""
    return WORD_ESCAPES.get(word) or bracket_free(word)


def escape_tag(tag: str) -> str:
    """A bracket given as a tag in the treebank's form (``(`` -> ``-LRB-``); other tags
    unchanged (a tag that still holds a bracket is refused by :func:`tag_problem`)."""
    return TAG_ESCAPES.get(tag, tag)


def tag_problem(tag: str) -> str | None:
    """Why ``tag`` cannot stand as a POS tag in a written tree (it would not read back
    as itself), or ``None`` when it can."""
    if not tag:
        return "empty tag"
    if tag.startswith(NONE_LABEL):
        return f"tag {tag!r} marks a null element; input sentences hold overt words only"
    if any(ch in "()" or ch.isspace() for ch in tag):
        return f"tag {tag!r} contains a bracket or white space"
    if "|" in tag:
        return f"tag {tag!r} would read back as {tag.split('|')[0]!r} (the reader keeps one alternative)"
    index = coindex_of(tag)
    if index is not None:
        return f"tag {tag!r} would read back as a node with co-index {index}"
    gap = gap_index_of(tag)
    if gap is not None:
        return f"tag {tag!r} would read back as a node with gapping index {gap}"
    if base_label(tag) != tag:
        return f"tag {tag!r} would read back as {base_label(tag)!r} with a function tag"
    return None


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def undecodable(text: str) -> str | None:
    """The first undecodable byte in ``text`` as ``0xe9`` (a surrogate escape, as
    ``errors="surrogateescape"`` decoding leaves it; any other lone surrogate as
    ``U+D800``), or ``None`` when there is none."""
    m = _SURROGATE.search(text)
    if m is None:
        return None
    code = ord(m.group())
    return f"0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"


def sentence_problem(words, tags=None) -> str | None:
    """Why a sentence (words and tags in the treebank's form) cannot be parsed into a
    tree that reads back, or ``None``: a word or tag with a control character or an
    undecodable byte (a surrogate escape), or a tag :func:`tag_problem` refuses.  Words
    are numbered from 1."""
    for kind, tokens in (("word", words), ("tag", tags or ())):
        for i, token in enumerate(tokens, start=1):
            m = _CONTROL.search(token)
            if m:
                return f"{kind} {i} contains the control character U+{ord(m.group()):04X}"
            byte = undecodable(token)
            if byte:
                return f"{kind} {i} holds bytes that are not UTF-8 ({byte})"
    for i, tag in enumerate(tags or (), start=1):
        problem = tag_problem(tag)
        if problem:
            return f"word {i}: {problem}"
    return None


__all__ = ["WORD_ESCAPES", "TAG_ESCAPES", "escape_word", "escape_tag", "tag_problem", "sentence_problem",
           "undecodable"]
