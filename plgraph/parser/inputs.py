"""What ``plgraph parse`` reads: sentences as ``(words, tags or None, id)``.

Formats (``--in``):

* ``ptb``: bracketed trees (any layout ``plgraph.ptb.reader`` reads); the words are the
  overt leaves of the cleaned tree (null elements dropped), the tags their pre-terminals;
  ids are the trees' (``wsj_0001.0``);
* ``tagged``: one sentence a line, tokens ``word_TAG`` separated by white space, split at
  the token's last ``_`` (``New_York_NNP`` is the word ``New_York``);
* ``text``: one tokenised sentence a line, tokens separated by white space (tagged by
  the model's POS tagger).

Blank lines are skipped; ids of line formats are ``<file name>:<line>``.  A sentence
that cannot be read (a ``tagged`` token without ``_``, a tree that does not parse) is
left out and listed in :attr:`ParseInput.bad` as ``(where, reason)``; the run goes on.
``"-"`` reads standard input.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from ..errors import InputError

FORMATS = ("ptb", "tagged", "text")


@dataclass
class ParseInput:
    """Readable sentences (``(words, tags or None, id)``) and the unreadable ones
    (``(where, reason)``)."""

    sentences: list
    bad: list = field(default_factory=list)


def _read_text(path) -> tuple[str, str]:
    """``(text, name)`` of a file or of standard input (``-``)."""
    if str(path) == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            return fh.read(), os.path.basename(str(path))
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    except IsADirectoryError:
        raise InputError("is a folder, not a file", source=str(path)) from None


def tree_words_tags(tree) -> tuple[list, list]:
    """The overt words of a tree and their tags (null elements left out)."""
    pre = [p for p in tree.preterminals() if not p.is_null_leaf()]
    return [p.word for p in pre], [p.label for p in pre]


def read_input(path, fmt: str) -> ParseInput:
    """Read ``path`` in format ``fmt`` (module docstring)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown input format {fmt!r} (one of {', '.join(FORMATS)})", source=str(path))
    if fmt == "ptb":
        return _read_ptb(path)
    text, name = _read_text(path)
    out = ParseInput([])
    for k, line in enumerate(text.splitlines(), start=1):
        tokens = line.split()
        if not tokens:
            continue
        sid = f"{name}:{k}"
        if fmt == "text":
            out.sentences.append((tokens, None, sid))
            continue
        words, tags, bad = [], [], None
        for t in tokens:
            w, sep, tag = t.rpartition("_")
            if not sep or not w or not tag:
                bad = f"token {t!r} is not word_TAG"
                break
            words.append(w)
            tags.append(tag)
        if bad:
            out.bad.append((f"{name}:{k}", bad))
        else:
            out.sentences.append((words, tags, sid))
    return out


def _read_ptb(path) -> ParseInput:
    from ..ptb.reader import BadSentence, read_ptb_string

    text, name = _read_text(path)
    out = ParseInput([])
    stem = os.path.splitext(name)[0] if name != "<stdin>" else "stdin"
    for item in read_ptb_string(text, source=str(path), stem=stem, on_error="skip"):
        if isinstance(item, BadSentence):
            out.bad.append((f"{name}:{item.line}" if item.line else f"{name}, tree {item.index}", item.reason))
            continue
        words, tags = tree_words_tags(item.tree)
        if not words:
            out.bad.append((f"{name}, sentence {item.id}", "no overt words"))
            continue
        out.sentences.append((words, tags, item.id))
    return out


__all__ = ["FORMATS", "ParseInput", "read_input", "tree_words_tags"]
