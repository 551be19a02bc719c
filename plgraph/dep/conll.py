"""CoNLL-U and CoNLL-X reading and writing.

Both formats have ten tab-separated columns per token line and a blank line after
each sentence; CoNLL-X's CPOSTAG/POSTAG/PHEAD/PDEPREL columns sit where CoNLL-U has
UPOS/XPOS/DEPS/MISC, so one reader serves both.  Everything is kept on the way
through: comment lines (``# sent_id = ...``), multiword-token lines (``3-4``) and
empty nodes (``8.1``) are stored verbatim and written back unchanged; writing a
parse replaces only the HEAD and DEPREL columns of the syntactic words.

Checks (each failure is a :class:`ConllFormatError` naming file, line and sentence):
ten tab-separated fields; word ids 1, 2, ... in order; multiword ranges ``a-b``
starting at the next word with ``a <= b``; empty nodes ``i.j`` after word ``i``;
comments only before the first token line of a sentence; HEAD an integer in
``0..n`` (or ``_`` when ``require_heads=False``); with ``check_tree=True`` the heads
form a tree (every word reaches 0, no cycle).  Several HEAD = 0 words are allowed
(CoNLL 2007 Basque has them); :func:`plgraph.dep.evaluate` and the parser's
single-root mode deal with roots.

Encoding: ``encoding="auto"`` (default) decodes each line as UTF-8 and falls back
to Latin-1 for a line that is not valid UTF-8 (NLTK's ``eus.*`` files mix
ISO-8859-1 and UTF-8 lines); ``encoding="utf-8"`` makes such a line an error.
A leading UTF-8 byte order mark is dropped (it is not part of the first token id).
Ids and HEADs are ASCII digits only (``str.isdigit`` would let ``²`` through).
Output is always UTF-8.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..ptb.reader import BadSentence

__all__ = ["ConllFormatError", "DepSentence", "BadSentence", "read_conll", "read_conll_string",
           "format_conll", "write_conll", "parse_feats"]

ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC = range(10)
BOM = "\ufeff"


class ConllFormatError(InputError):
    """A CoNLL-U / CoNLL-X file that cannot be read."""


@dataclass
class DepSentence:
    """One sentence: its comment lines and every token line split into 10 fields.

    Attributes
    ----------
    comments : list of str
        Comment lines (with the leading ``#``), in order.
    rows : list of list of str
        Every token line (words, multiword ranges, empty nodes) in file order.
    words : list of int
        Indices into ``rows`` of the syntactic words (integer ids 1..n).
    source, line, index :
        File name, 1-based line of the sentence's first line, 0-based sentence index.
    """

    comments: list
    rows: list
    words: list
    source: str = "<string>"
    line: int | None = None
    index: int = 0
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.words)

    def _col(self, c: int) -> list:
        return [self.rows[i][c] for i in self.words]

    @property
    def id(self) -> str:
        for c in self.comments:
            body = c[1:].strip()
            if body.startswith("sent_id"):
                key, _, value = body.partition("=")
                if key.strip() == "sent_id" and value.strip():
                    return value.strip()
        stem = os.path.splitext(os.path.basename(self.source))[0]
        return f"{stem}.{self.index}"

    @property
    def forms(self) -> list:
        return self._col(FORM)

    @property
    def lemmas(self) -> list:
        return self._col(LEMMA)

    @property
    def upos(self) -> list:
        return self._col(UPOS)

    @property
    def xpos(self) -> list:
        return self._col(XPOS)

    @property
    def feats(self) -> list:
        return self._col(FEATS)

    @property
    def deprels(self) -> list:
        return self._col(DEPREL)

    @property
    def heads(self) -> np.ndarray:
        """HEAD of words 1..n as int64 (-1 where the column is ``_``)."""
        return np.array([-1 if h == "_" else int(h) for h in self._col(HEAD)], np.int64)

    def with_parse(self, heads, deprels) -> "DepSentence":
        """A copy whose words carry ``heads`` / ``deprels`` (everything else unchanged)."""
        if len(heads) != len(self.words) or len(deprels) != len(self.words):
            raise ValueError(f"sentence {self.id}: {len(self.words)} words, got {len(heads)} heads "
                             f"and {len(deprels)} labels")
        rows = [list(r) for r in self.rows]
        for i, h, lab in zip(self.words, heads, deprels):
            rows[i][HEAD] = str(int(h))
            rows[i][DEPREL] = str(lab)
        return DepSentence(list(self.comments), rows, list(self.words), self.source, self.line, self.index)

    def to_conll(self) -> str:
        lines = list(self.comments)
        lines += ["\t".join(r) for r in self.rows]
        return "\n".join(lines) + "\n\n"


def parse_feats(feats: str) -> dict:
    """UD FEATS ``A=x|B=y`` -> {"A": "x", "B": "y"}; keyless CoNLL-X values
    ``ERG|NUMS`` -> {"ERG": "", "NUMS": ""}; ``_`` -> {}."""
    if not feats or feats == "_":
        return {}
    out = {}
    for part in feats.split("|"):
        k, _, v = part.partition("=")
        out[k] = v
    return out


def _decode_lines(data: bytes, source: str, encoding: str) -> list:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    out = []
    for no, raw in enumerate(lines, 1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError as err:
            if encoding == "auto":
                out.append(raw.decode("latin-1"))
            else:
                raise ConllFormatError(f"bytes that are not UTF-8 ({err.reason} at byte {err.start})",
                                       source, None, no) from None
    return out


def _is_number(text: str) -> bool:
    """Whether ``text`` is a non-negative integer written in ASCII digits (``str.isdigit``
    also accepts superscripts such as ``²``, which ``int`` then rejects)."""
    return text.isascii() and text.isdigit()


class _SentenceError(Exception):
    def __init__(self, reason: str, line: int):
        super().__init__(reason)
        self.reason = reason
        self.line = line


def _parse_block(block, source, index, require_heads, check_tree, first_line):
    comments: list = []
    rows: list = []
    words: list = []
    n_words = 0
    empty_after = {}
    mwt_end = 0
    for no, text in block:
        if text.startswith("#"):
            if rows:
                raise _SentenceError("comment line after the first token line of the sentence", no)
            comments.append(text)
            continue
        fields = text.split("\t")
        if len(fields) != 10:
            hint = " (columns must be separated by tabs)" if len(fields) == 1 and len(text.split()) >= 10 else ""
            raise _SentenceError(f"expected 10 tab-separated fields, found {len(fields)}{hint}", no)
        tid = fields[ID]
        if _is_number(tid):
            k = int(tid)
            if k != n_words + 1:
                raise _SentenceError(f"word id {tid} out of order (expected {n_words + 1})", no)
            n_words = k
            words.append(len(rows))
        elif "-" in tid:
            a, _, b = tid.partition("-")
            if not (_is_number(a) and _is_number(b)):
                raise _SentenceError(f"bad multiword token id {tid!r}", no)
            if int(a) != n_words + 1 or int(b) < int(a):
                raise _SentenceError(f"multiword token range {tid} does not start at the next word "
                                     f"{n_words + 1} or is empty", no)
            mwt_end = max(mwt_end, int(b))
        elif "." in tid:
            a, _, b = tid.partition(".")
            if not (_is_number(a) and _is_number(b)) or int(b) < 1:
                raise _SentenceError(f"bad empty node id {tid!r}", no)
            if int(a) != n_words:
                raise _SentenceError(f"empty node {tid} is not placed after word {a}", no)
            if int(b) != empty_after.get(n_words, 0) + 1:
                raise _SentenceError(f"empty node {tid} out of order", no)
            empty_after[n_words] = int(b)
        else:
            raise _SentenceError(f"bad token id {tid!r} (expected 1, 2, ..., a range 3-4 or an empty node 5.1)", no)
        for c in (FORM,):
            if fields[c] == "":
                raise _SentenceError("empty FORM field", no)
        rows.append(fields)
    if not words:
        raise _SentenceError("sentence without words", block[0][0])
    if mwt_end > n_words:
        raise _SentenceError(f"multiword token range reaches word {mwt_end} but the sentence has {n_words} words",
                             block[0][0])
    line_of = {}
    for no, text in block:
        if not text.startswith("#"):
            fid = text.split("\t", 1)[0]
            if _is_number(fid):
                line_of[int(fid)] = no
    heads = []
    for w, ri in enumerate(words, 1):
        h = rows[ri][HEAD]
        if h == "_":
            if require_heads:
                raise _SentenceError(f"word {w} has no HEAD", line_of[w])
            heads.append(-1)
            continue
        if not _is_number(h):
            raise _SentenceError(f"HEAD {h!r} of word {w} is not a number", line_of[w])
        hv = int(h)
        if hv > n_words:
            raise _SentenceError(f"HEAD {hv} of word {w} is outside the sentence (1..{n_words} or 0)", line_of[w])
        if hv == w:
            raise _SentenceError(f"word {w} is its own HEAD", line_of[w])
        heads.append(hv)
    if check_tree and all(h >= 0 for h in heads):
        hs = [-1] + heads
        state = [0] * (n_words + 1)  # 0 new, 1 on path, 2 reaches root
        state[0] = 2
        for d in range(1, n_words + 1):
            path = []
            v = d
            while state[v] == 0:
                state[v] = 1
                path.append(v)
                v = hs[v]
            if state[v] == 1:
                raise _SentenceError(f"the heads contain a cycle through word {v}", line_of[v])
            for p in path:
                state[p] = 2
    return DepSentence(comments, rows, words, source, first_line, index)


def read_conll_string(text: str, source: str = "<string>", *, on_error: str = "raise", require_heads: bool = True,
                      check_tree: bool = True, _lines=None) -> list:
    """Read every sentence of ``text`` (see the module docstring for the checks).

    Parameters
    ----------
    on_error : {"raise", "skip"}
        ``"skip"`` puts a :class:`BadSentence` in the result in place of a bad sentence
        and goes on with the next one (corpus runs count them instead of dying).
    require_heads : bool
        Whether HEAD may be ``_`` (False for text to be parsed).
    check_tree : bool
        Reject heads that do not form a tree.

    Returns
    -------
    list of DepSentence or BadSentence, in file order.
    """
    if on_error not in ("raise", "skip"):
        raise ValueError("on_error must be 'raise' or 'skip'")
    if _lines is None and text.startswith(BOM):
        text = text[1:]
    lines = _lines if _lines is not None else text.split("\n")
    if _lines is None and lines and lines[-1] == "":
        lines.pop()
    out: list = []
    block: list = []
    index = 0
    stem = os.path.splitext(os.path.basename(source))[0]

    def flush():
        nonlocal index, block
        if not block:
            return
        first = block[0][0]
        try:
            out.append(_parse_block(block, source, index, require_heads, check_tree, first))
        except _SentenceError as err:
            if on_error == "raise":
                raise ConllFormatError(err.reason, source, f"{stem}.{index}", err.line) from None
            out.append(BadSentence(f"{stem}.{index}", source, index, err.line, err.reason))
        index += 1
        block = []

    for no, raw in enumerate(lines, 1):
        t = raw[:-1] if raw.endswith("\r") else raw
        if t.strip() == "":  # a blank (or whitespace-only) line ends the sentence
            flush()
            continue
        block.append((no, t))
    flush()
    return out


def read_conll(path, *, encoding: str = "auto", on_error: str = "raise", require_heads: bool = True,
               check_tree: bool = True) -> list:
    """Read a CoNLL-U or CoNLL-X file; see :func:`read_conll_string` for the options."""
    if encoding not in ("auto", "utf-8"):
        raise ValueError("encoding must be 'auto' or 'utf-8'")
    path = os.fspath(path)
    with open(path, "rb") as handle:
        data = handle.read()
    if data.startswith(BOM.encode("utf-8")):
        data = data[len(BOM.encode("utf-8")):]
    try:
        lines = _decode_lines(data, path, encoding)
    except ConllFormatError:
        if on_error == "raise":
            raise
        lines = [raw.decode("utf-8", "replace") for raw in data.split(b"\n")]
        if lines and lines[-1] == "":
            lines.pop()
        # the undecodable line makes its sentence bad; re-read strictly sentence by sentence
        return _read_marking_bad_bytes(data, path, lines, require_heads, check_tree)
    return read_conll_string("", path, on_error=on_error, require_heads=require_heads, check_tree=check_tree,
                             _lines=lines)


def _read_marking_bad_bytes(data, path, lines, require_heads, check_tree):
    raw_lines = data.split(b"\n")
    bad_lines = set()
    for no, raw in enumerate(raw_lines, 1):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            bad_lines.add(no)
    items = read_conll_string("", path, on_error="skip", require_heads=require_heads, check_tree=check_tree,
                              _lines=lines)
    out = []
    for it in items:
        if isinstance(it, DepSentence):
            span_end = it.line + len(it.comments) + len(it.rows) - 1
            hit = [no for no in bad_lines if it.line <= no <= span_end]
            if hit:
                stem = os.path.splitext(os.path.basename(path))[0]
                it = BadSentence(f"{stem}.{it.index}", path, it.index, hit[0], "bytes that are not UTF-8")
        out.append(it)
    return out


def sentences_only(items, bad: list | None = None) -> list:
    """The :class:`DepSentence` items of a read result; bad ones go to ``bad``."""
    out = []
    for it in items:
        if isinstance(it, DepSentence):
            out.append(it)
        elif bad is not None:
            bad.append(it)
    return out


def format_conll(sentences) -> str:
    return "".join(s.to_conll() for s in sentences)


def write_conll(sentences, path) -> None:
    """Write atomically (temporary file in the same folder, then ``os.replace``)."""
    from ..files.atomic import atomic_write_with

    def write(tmp):
        with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
            for s in sentences:
                handle.write(s.to_conll())

    atomic_write_with(path, write)
