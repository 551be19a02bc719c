"""What ``plgraph parse`` reads: sentences as ``(words, tags or None, id)``.

Formats (``--in``):

* ``ptb``: bracketed trees (any layout ``plgraph.ptb.reader`` reads); the words are the
  overt leaves of the cleaned tree (null elements dropped), the tags their pre-terminals;
  ids are the trees' (``wsj_0001.0``);
* ``tagged``: one sentence a line, tokens ``word_TAG`` separated by white space, split at
  the token's last ``_`` (``New_York_NNP`` is the word ``New_York``);
* ``text``: one tokenised sentence a line, tokens separated by white space (tagged by
  the model's POS tagger).

In the line formats only ``\n`` (or ``\r\n``) ends a line, so each non-blank line is one
sentence; any other character Python counts as white space (``\x0b``, ``\x0c``,
``\x1c``, ``\x85``, U+2028 ...) separates tokens within it.  Blank lines are skipped; ids
are ``<file name>:<line>``.  A UTF-8 byte order mark at the start of a file is dropped.

Words and tags are held in the treebank's form (:mod:`plgraph.ptb.escape`): ``(`` is
read as ``-LRB-``, ``)`` as ``-RRB-``, ``{``/``}`` as ``-LCB-``/``-RCB-``, so that every
parse can be written as a tree that reads back.

A sentence that cannot be read or written is left out and listed in
:attr:`ParseInput.bad` as ``(where, reason)``; the run goes on.  That is: a ``tagged``
token without ``_``; a line with bytes that are not UTF-8 (the reason gives the byte
offset); a word with a control character (NUL, ``\x1b`` ...); a tag that would not read
back as itself (:func:`plgraph.ptb.escape.tag_problem`: ``-NONE-``, ``NN-1``, ``NN=2``
...); a tree that does not parse.  ``"-"`` reads standard input.
"""
from __future__ import annotations

import codecs
import os
import sys
from dataclasses import dataclass, field

from ...errors import InputError
from ...ptb.escape import escape_tag, escape_word, sentence_problem

FORMATS = ("ptb", "tagged", "text")


@dataclass
class ParseInput:
    """Readable sentences (``(words, tags or None, id)``) and the unreadable ones
    (``(where, reason)``)."""

    sentences: list
    bad: list = field(default_factory=list)


def _read_bytes(path) -> tuple[bytes, str]:
    """``(content, name)`` of a file or of standard input (``-``)."""
    if str(path) == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:          # a text stream put in place of stdin (notebooks, tests)
            return sys.stdin.read().encode("utf-8", "surrogateescape"), "<stdin>"
        return stream.read(), "<stdin>"
    try:
        with open(path, "rb") as fh:
            return fh.read(), os.path.basename(str(path))
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    except IsADirectoryError:
        raise InputError("is a folder, not a file", source=str(path)) from None


def _bom_length(data: bytes) -> int:
    """How many bytes of ``data`` a leading UTF-8 byte order mark takes (0 or 3)."""
    return len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0


def _line_sentence(line: str, fmt: str):
    """``(words, tags or None)`` of a non-blank line, or the reason it cannot be read."""
    tokens = line.split()
    if fmt == "text":
        words, tags = [escape_word(t) for t in tokens], None
    else:
        words, tags = [], []
        for t in tokens:
            w, sep, tag = t.rpartition("_")
            if not sep or not w or not tag:
                return f"token {t!r} is not word_TAG"
            words.append(escape_word(w))
            tags.append(escape_tag(tag))
    return sentence_problem(words, tags) or (words, tags)


def _read_lines(path, fmt: str) -> "ParseInput":
    """A ``tagged`` or ``text`` input: one sentence per ``\n``-ended line."""
    data, name = _read_bytes(path)
    offset = _bom_length(data)
    out = ParseInput([])
    for k, raw in enumerate(data[offset:].split(b"\n"), start=1):
        where = f"{name}:{k}"
        start, offset = offset, offset + len(raw) + 1
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            out.bad.append((where, f"bytes that are not UTF-8: 0x{raw[err.start]:02x} at byte {start + err.start} "
                                   f"of the file (byte {err.start + 1} of the line)"))
            continue
        if not line.strip():
            continue
        got = _line_sentence(line.removesuffix("\r"), fmt)
        if isinstance(got, str):
            out.bad.append((where, got))
        else:
            out.sentences.append((got[0], got[1], where))
    return out


def tree_words_tags(tree) -> tuple[list, list]:
    """The overt words of a tree and their tags (null elements left out)."""
    pre = [p for p in tree.preterminals() if not p.is_null_leaf()]
    return [p.word for p in pre], [p.label for p in pre]


def read_input(path, fmt: str) -> ParseInput:
    """Read ``path`` in format ``fmt`` (module docstring)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown input format {fmt!r} (one of {', '.join(FORMATS)})", source=str(path))
    return _read_ptb(path) if fmt == "ptb" else _read_lines(path, fmt)


def _read_ptb(path) -> ParseInput:
    """A ``ptb`` input, read in the reader's line-aware mode so that every skipped tree
    is named ``<file name>:<line>``."""
    from ...ptb.reader import BadSentence, read_ptb_string

    data, name = _read_bytes(path)
    text = data.decode("utf-8", "surrogateescape")       # the reader drops a BOM and reports undecodable bytes
    out = ParseInput([])
    stem = os.path.splitext(name)[0] if name != "<stdin>" else "stdin"
    for item in read_ptb_string(text, source=str(path), stem=stem, on_error="skip", lines=True):
        where = f"{name}:{item.line}"        # the line-aware mode sets every item's line
        if isinstance(item, BadSentence):
            out.bad.append((where, item.reason))
            continue
        words, tags = tree_words_tags(item.tree)
        problem = sentence_problem(words, tags) if words else "no overt words"
        if problem:
            out.bad.append((where, f"sentence {item.id}: {problem}"))
            continue
        out.sentences.append((words, tags, item.id))
    return out


__all__ = ["FORMATS", "ParseInput", "read_input", "tree_words_tags"]
