"""What ``plgraph parse`` reads: sentences as ``(words, tags or None, id)``, in input order.

Formats (``--in``):

* ``ptb``: bracketed trees (any layout ``plgraph.ptb.reader`` reads); the words are the
  overt leaves of the cleaned tree (null elements dropped), the tags their pre-terminals;
  ids are the trees' (``wsj_0001.0``);
* ``tagged``: one sentence a line, tokens ``word_TAG`` separated by white space, split at
  the token's last ``_`` (``New_York_NNP`` is the word ``New_York``);
* ``text``: one tokenised sentence a line, tokens separated by white space (tagged by
  the model's POS tagger);
* ``raw``: one untokenised sentence a line, tokenised as the treebank is
  (:func:`plgraph.text.tokenize.tokenize`: ``don't`` -> ``do n't``, ``"`` -> ``````/``''``,
  ``(`` -> ``-LRB-``); ids ``<file name>:<line>``;
* ``doc``: running text, its sentences found by plgraph's splitter
  (:class:`plgraph.text.sentences.SentenceSplitter`) within paragraphs -- each line, or
  (``wrapped``) each run of lines up to a blank one -- and tokenised as ``raw``; ids
  ``<file name>:<line>.<k>``, the k-th sentence (from 1) of the paragraph that starts on
  that line;
* ``auto`` (the command line's default): ``ptb`` when the input's first non-blank
  character is ``(``, else ``raw``; :func:`iter_input` tells ``on_format`` which.

A ``ptb`` input that begins with text outside any tree is not bracketed trees: an
InputError that names ``--in raw`` and ``--in doc``.

In the line formats (all but ``ptb``) only ``\n`` (or ``\r\n``) ends a line, so each non-blank line is one
sentence; any other character Python counts as white space (``\x0b``, ``\x0c``,
``\x1c``, ``\x85``, U+2028 ...) separates tokens within it.  Blank lines are skipped; ids
are ``<file name>:<line>``.  A UTF-8 byte order mark at the start of a file is dropped.

Words and tags are held in the treebank's form (:mod:`plgraph.ptb.escape`): ``(`` is
read as ``-LRB-``, ``)`` as ``-RRB-``, ``{``/``}`` as ``-LCB-``/``-RCB-``, so that every
parse can be written as a tree that reads back.

The input is read as a stream (:func:`iter_input`), a line (``ptb``: a tree) at a time,
so that memory does not grow with the input: a line -- or a tree, from the line where
it starts -- longer than ``max_bytes`` (:data:`MAX_RECORD_BYTES`) stops the reading with
an :class:`~plgraph.errors.InputError` naming the file and the line (no sentence is that
long: the input is not what ``--in`` says, or not text at all -- ``/dev/zero``).

A ``raw`` or ``doc`` sentence is a :class:`TextRecord`, the triple with the text it was
tokenised from.  A sentence that cannot be read or written is a :class:`Skipped` record in its place;
the run goes on.  That is: a ``tagged`` token without ``_``; a line with bytes that are
not UTF-8 (the reason gives the byte offset); a word with a control character (NUL,
``\x1b`` ...); a tag that would not read back as itself
(:func:`plgraph.ptb.escape.tag_problem`: ``-NONE-``, ``NN-1``, ``NN=2`` ...); a tree
that does not parse.  Text outside any tree in a ``ptb`` input is a Skipped record that
stands for no sentence (``sentence`` False).  ``"-"`` reads standard input.
"""
from __future__ import annotations

import codecs
import os
import sys
from dataclasses import dataclass, field
from typing import Iterator

from ...errors import InputError
from ...ptb.escape import escape_tag, escape_word, sentence_problem

FORMATS = ("auto", "ptb", "tagged", "text", "raw", "doc")
#: the formats of untagged input (tags come from the model)
UNTAGGED = ("text", "raw", "doc")
#: the longest line (``ptb``: tree) :func:`iter_input` reads, in bytes
MAX_RECORD_BYTES = 64 * 2 ** 20


@dataclass(frozen=True)
class Skipped:
    """An input record that could not be read: ``where`` (``<file name>:<line>``) and
    why; ``sentence``: whether it stands for a sentence (a line of a line format, a
    tree), so that the output keeps a place for it, or for none (text outside any tree)."""

    where: str
    reason: str
    sentence: bool = True


class TextRecord(tuple):
    """A sentence of raw text (``raw``, ``doc``): the triple ``(words, None, id)`` with
    the ``text`` it was tokenised from."""

    text: str

    def __new__(cls, words, sid, text: str):
        record = super().__new__(cls, (words, None, sid))
        record.text = text
        return record


@dataclass
class ParseInput:
    """Readable sentences (``(words, tags or None, id)``), the unreadable ones
    (``(where, reason)``), and ``records``: both, in input order (a triple or a
    :class:`Skipped`)."""

    sentences: list
    bad: list = field(default_factory=list)
    records: list = field(default_factory=list)


class _Source:
    """A binary stream over a file or standard input (``-``), its name in messages, and
    a bounded line reader."""

    def __init__(self, path, max_bytes: int):
        self.path, self.max_bytes = str(path), int(max_bytes)
        self._k = self._offset = 0      # lines and bytes read
        self._ahead = []                # lines read ahead by first_character, for lines()
        if self.path == "-":
            stdin = sys.stdin
            if stdin is None:
                raise InputError("standard input is closed: give the input as a file", source="-")
            self.stream = getattr(stdin, "buffer", None) or _TextAsBytes(stdin)
            self.name, self.owned = "<stdin>", False
            return
        try:
            self.stream = open(path, "rb")
        except FileNotFoundError:
            raise InputError("no such file", source=self.path) from None
        except IsADirectoryError:
            raise InputError("is a folder, not a file", source=self.path) from None
        except OSError as err:
            raise InputError(f"cannot read: {err.strerror or err}", source=self.path) from None
        self.name, self.owned = os.path.basename(self.path), True

    def _read(self, what: str):
        """The next ``(line number, byte offset, bytes without the newline)``, or None at the end."""
        raw = self.stream.readline(self.max_bytes + 1)
        if not raw:
            return None
        self._k += 1
        if len(raw) > self.max_bytes and not raw.endswith(b"\n"):
            raise self.too_long(self._k, what)
        start, self._offset = self._offset, self._offset + len(raw)
        if self._k == 1 and raw.startswith(codecs.BOM_UTF8):
            raw, start = raw[len(codecs.BOM_UTF8):], start + len(codecs.BOM_UTF8)
        return self._k, start, raw.removesuffix(b"\n")

    def first_character(self) -> bytes:
        """The first non-white-space byte of the input (b"" for none), the lines read to find
        it kept for :meth:`lines`."""
        ahead = self._ahead
        while True:
            line = self._read("line")
            if line is None:
                return b""
            ahead.append(line)
            if line[2].strip():
                return line[2].strip()[:1]

    def lines(self, what: str = "line") -> Iterator[tuple[int, int, bytes]]:
        """``(line number, byte offset in the input, bytes without the newline)`` of every
        line; a UTF-8 byte order mark at the start dropped; InputError for a line over
        ``max_bytes``."""
        try:
            yield from self._ahead
            self._ahead = []
            while True:
                line = self._read(what)
                if line is None:
                    return
                yield line
        finally:
            if self.owned:
                self.stream.close()

    def too_long(self, line: int, what: str) -> InputError:
        return InputError(f"the {what} starting here is longer than {self.max_bytes:,} bytes: not one sentence "
                          f"(is the input the --in format, and text?)", source=self.name, line=line)


class _TextAsBytes:
    """A text stream put in place of standard input (notebooks, tests) read as UTF-8 bytes."""

    def __init__(self, stream):
        self.stream = stream

    def readline(self, size: int = -1) -> bytes:
        return self.stream.readline(size).encode("utf-8", "surrogateescape")


def _line_sentence(line: str, fmt: str, splitter=None):
    """``(words, tags or None)`` of a non-blank line, or the reason it cannot be read."""
    tokens = splitter.tokenize(line) if fmt == "raw" else line.split()
    if not tokens:
        return "no token (only characters the tokenizer drops)"
    if fmt in ("text", "raw"):
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


def _decoded_lines(source: _Source) -> Iterator:
    """``(where, line text or a Skipped for bytes that are not UTF-8)`` of every line."""
    for k, start, raw in source.lines():
        where = f"{source.name}:{k}"
        try:
            yield where, raw.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError as err:
            yield where, Skipped(where, f"bytes that are not UTF-8: 0x{raw[err.start]:02x} at byte {start + err.start} "
                                        f"of the file (byte {err.start + 1} of the line)")


def _iter_doc(source: _Source, wrapped: bool, splitter) -> Iterator:
    """The records of a ``doc`` input: the sentences of each paragraph (module docstring).
    A line with bytes that are not UTF-8 is a Skipped record of its own (and ends a
    paragraph); a paragraph over ``max_bytes`` stops the reading with an InputError."""

    def sentences(first: str, text: str):
        for j, (a, b) in enumerate(splitter.spans(text), 1):
            got = _line_sentence(text[a:b], "raw", splitter)
            sid = f"{first}.{j}"
            yield Skipped(sid, got) if isinstance(got, str) else TextRecord(got[0], sid, text[a:b])

    block, first, size = [], "", 0
    for where, line in _decoded_lines(source):
        if isinstance(line, Skipped) or not line.strip():
            if block:
                yield from sentences(first, " ".join(block))
                block, size = [], 0
            if isinstance(line, Skipped):
                yield line
            continue
        if not wrapped:
            yield from sentences(where, line.strip())
            continue
        if not block:
            first = where
        block.append(line.strip())
        size += len(line) + 1
        if size > source.max_bytes:
            raise source.too_long(int(first.rsplit(":", 1)[1]), "paragraph")
    if block:
        yield from sentences(first, " ".join(block))


def _iter_lines(source: _Source, fmt: str, splitter=None) -> Iterator:
    """The records of a ``tagged``, ``text`` or ``raw`` input: one sentence per ``\n``-ended line."""
    for where, line in _decoded_lines(source):
        if isinstance(line, Skipped):
            yield line
            continue
        if not line.strip():
            continue
        got = _line_sentence(line, fmt, splitter)
        if isinstance(got, str):
            yield Skipped(where, got)
        else:
            yield TextRecord(got[0], where, line.strip()) if fmt == "raw" else (got[0], got[1], where)


def tree_words_tags(tree) -> tuple[list, list]:
    """The overt words of a tree and their tags (null elements left out)."""
    pre = [p for p in tree.preterminals() if not p.is_null_leaf()]
    return [p.word for p in pre], [p.label for p in pre]


def _tree_chunks(source: _Source) -> Iterator[tuple[int, str]]:
    """``(first line, text)`` of the pieces of a ``ptb`` input that end where the
    brackets opened since the piece began are closed at a line end (a tree that is never
    closed runs to the end of the input, where the reader finds where it resumes);
    InputError when a piece outgrows ``max_bytes``."""
    parts, size, depth, first = [], 0, 0, 1
    for k, _, raw in source.lines("tree"):
        if not parts:
            first = k
        parts.append(raw)
        size += len(raw) + 1
        if size > source.max_bytes:
            raise source.too_long(first, "tree")
        depth += raw.count(b"(") - raw.count(b")")
        if depth <= 0:
            yield first, b"\n".join(parts).decode("utf-8", "surrogateescape") + "\n"
            parts, size, depth = [], 0, 0
    if parts:
        yield first, b"\n".join(parts).decode("utf-8", "surrogateescape") + "\n"


def _iter_ptb(source: _Source) -> Iterator:
    """The records of a ``ptb`` input, read in the reader's line-aware mode so that every
    skipped tree is named ``<file name>:<line>``; InputError when it begins with text
    outside any tree (plain text, not trees)."""
    from ...ptb.reader import BadSentence, read_ptb_string

    stem = os.path.splitext(source.name)[0] if source.name != "<stdin>" else "stdin"
    trees = 0
    for first, text in _tree_chunks(source):
        if not text.strip():
            continue
        for item in read_ptb_string(text, source=source.path, stem=stem, on_error="skip", lines=True,
                                    first_line=first, first_index=trees):
            where = f"{source.name}:{item.line}"        # the line-aware mode sets every item's line
            if isinstance(item, BadSentence):
                if not trees and item.index < 0 and "stray text" in item.reason:
                    raise InputError(f"not bracketed trees: {item.reason}. For plain text use --in raw (one "
                                     f"sentence a line) or --in doc (running text); --in text for tokenised "
                                     f"sentences", source=source.name, line=item.line)
                yield Skipped(where, item.reason, item.index >= 0)
                trees += item.index >= 0
                continue
            trees += 1
            words, tags = tree_words_tags(item.tree)
            problem = sentence_problem(words, tags) if words else "no overt words"
            yield Skipped(where, f"sentence {item.id}: {problem}") if problem else (words, tags, item.id)


def iter_input(path, fmt: str, *, max_bytes: int = MAX_RECORD_BYTES, wrapped: bool = False, splitter=None,
               on_format=None) -> Iterator:
    """The records of ``path`` in format ``fmt``, in input order, read as a stream (module
    docstring): ``(words, tags or None, id)`` triples and :class:`Skipped` records.
    ``wrapped``: a ``doc`` input's lines are hard-wrapped (blank lines end paragraphs);
    ``splitter``: the :class:`~plgraph.text.sentences.SentenceSplitter` of ``raw`` and
    ``doc`` (default: plgraph's); ``on_format(path, format)`` is told the format ``auto``
    chose, before the first record.  InputError, naming the file, for a file that cannot
    be opened, closed standard input, a line or tree over ``max_bytes``, and a ``ptb``
    input that begins with plain text."""
    if fmt not in FORMATS:
        raise InputError(f"unknown input format {fmt!r} (one of {', '.join(FORMATS)})", source=str(path))
    source = _Source(path, max_bytes)
    return _records_of(source, fmt, wrapped, splitter, on_format)


def _records_of(source: _Source, fmt: str, wrapped: bool, splitter, on_format) -> Iterator:
    if fmt == "auto":
        fmt = "ptb" if source.first_character() == b"(" else "raw"
        if on_format is not None:
            on_format(source.path, fmt)
    if fmt in ("raw", "doc") and splitter is None:
        from ...text.sentences import default_splitter

        splitter = default_splitter()
    if fmt == "ptb":
        yield from _iter_ptb(source)
    elif fmt == "doc":
        yield from _iter_doc(source, wrapped, splitter)
    else:
        yield from _iter_lines(source, fmt, splitter)


def read_input(path, fmt: str, *, max_bytes: int = MAX_RECORD_BYTES, wrapped: bool = False) -> ParseInput:
    """All of :func:`iter_input` at once."""
    out = ParseInput([])
    for record in iter_input(path, fmt, max_bytes=max_bytes, wrapped=wrapped):
        out.records.append(record)
        if isinstance(record, Skipped):
            out.bad.append((record.where, record.reason))
        else:
            out.sentences.append(record)
    return out


__all__ = ["FORMATS", "UNTAGGED", "MAX_RECORD_BYTES", "ParseInput", "Skipped", "TextRecord", "iter_input", "read_input",
           "tree_words_tags"]
