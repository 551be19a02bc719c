"""Reading Penn Treebank bracketed files (``.mrg``) into :class:`plgraph.tree.Tree`.

The reader tokenises a whole file at once and builds trees in one pass; when
anything is wrong (unbalanced brackets, stray words, empty constituents,
bytes that are not UTF-8) it re-reads the file in a slower mode that knows the
line of every token, so errors name the file, the 0-based tree index and the
line.  ``on_error="skip"`` returns :class:`BadSentence` records instead of raising,
which is what corpus runs use so that one bad tree never stops a run.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterator

from ..errors import PTBFormatError
from ..tree import Tree
from .clean import homogenise, ptb_cleaning

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


@dataclass
class SentenceTree:
    """A successfully read tree: ``id`` is ``<file stem>.<K>`` (K = 0-based index)."""

    id: str
    tree: Tree
    source: str
    index: int


@dataclass
class BadSentence:
    """A tree that could not be read (or converted) and was skipped."""

    id: str
    source: str
    index: int
    line: int | None
    reason: str

    def __str__(self) -> str:
        loc = f"{self.source}:{self.line}" if self.line is not None else self.source
        return f"{self.id} ({loc}): {self.reason}"


class _TreeError(Exception):
    def __init__(self, reason: str, token_index: int):
        super().__init__(reason)
        self.reason = reason
        self.token_index = token_index


def _build_trees(tokens: list[str]):
    """Yield ``(first_token_index, Tree | _TreeError)`` for each top-level tree.

    After an error the rest of that tree (up to bracket depth 0) is skipped.
    """
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if tok != "(":
            err = _TreeError(
                "unbalanced ')' outside any tree" if tok == ")" else f"stray text {tok!r} outside any tree", i
            )
            yield i, err
            i += 1
            continue
        start = i
        stack: list[Tree] = []
        result = None
        try:
            while True:
                if i >= n:
                    raise _TreeError("unbalanced brackets: end of file inside a tree (missing ')')", start)
                tok = tokens[i]
                if tok == "(":
                    i += 1
                    label = ""
                    if i < n and tokens[i] != "(" and tokens[i] != ")":
                        label = tokens[i]
                        i += 1
                    node = Tree(label)
                    if stack:
                        parent = stack[-1]
                        if parent.word is not None:
                            raise _TreeError(f"constituent ({parent.label} {parent.word} ...) has both a word and children", i)
                        node.parent = parent
                        parent.children.append(node)
                    stack.append(node)
                elif tok == ")":
                    node = stack.pop()
                    if node.word is None and not node.children:
                        raise _TreeError(f"empty constituent ({node.label})", i)
                    i += 1
                    if not stack:
                        result = node
                        break
                else:
                    node = stack[-1]
                    if node.word is not None:
                        raise _TreeError(f"two words in one leaf: ({node.label} {node.word} {tok} ...)", i)
                    if node.children:
                        raise _TreeError(f"stray word {tok!r} among the children of ({node.label} ...)", i)
                    if not node.label:
                        raise _TreeError(f"leaf {tok!r} has no POS tag", i)
                    node.word = tok
                    i += 1
        except _TreeError as err:
            # skip to the end of this tree
            depth = 0
            j = start
            while j < n:
                if tokens[j] == "(":
                    depth += 1
                elif tokens[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if err.token_index is None:
                err.token_index = start
            yield start, err
            i = max(j + 1, i + 1) if j < n else n
            continue
        yield start, result


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _finish(tree: Tree, clean: bool) -> Tree:
    if clean:
        ptb_cleaning(tree)
        tree = homogenise(tree)
    tree.compute_spans()
    return tree


def read_ptb_string(text: str, source: str = "<string>", *, stem: str | None = None, clean: bool = True,
                    on_error: str = "raise", _check_encoding: bool = False) -> list:
    """Read every tree in ``text``.

    Parameters
    ----------
    text : str
        Bracketed trees, any whitespace layout, several per line allowed.
    source : str
        Name used in error messages.
    stem : str, optional
        Prefix of sentence ids (default: file name without extension).
    clean : bool
        Apply :func:`ptb_cleaning` and :func:`homogenise` (default True).
    on_error : {"raise", "skip"}
        ``"raise"`` raises :class:`PTBFormatError` at the first bad tree;
        ``"skip"`` puts a :class:`BadSentence` in the result instead.

    Returns
    -------
    list of SentenceTree or BadSentence, in file order.
    """
    if on_error not in ("raise", "skip"):
        raise ValueError("on_error must be 'raise' or 'skip'")
    if stem is None:
        stem = os.path.splitext(os.path.basename(source))[0]
    tokens = _TOKEN.findall(text)
    out: list = []
    bad_found = False
    for k, (_, item) in enumerate(_build_trees(tokens)):
        if isinstance(item, _TreeError):
            bad_found = True
            break
        out.append(item)
    if _check_encoding:
        bad_found = True
    if bad_found:
        return _read_slow(text, source, stem, clean, on_error)
    if not out:
        err = PTBFormatError("file contains no trees" if not text.strip() else "no bracketed tree found", source)
        if on_error == "raise":
            raise err
        return [BadSentence(f"{stem}", source, -1, None, err.reason)]
    result = []
    for k, tree in enumerate(out):
        sid = f"{stem}.{k}"
        try:
            tree = _finish(tree, clean)
        except PTBFormatError:
            raise
        except Exception as exc:  # homogenise failure
            if on_error == "raise":
                raise PTBFormatError(str(exc), source, sid) from None
            result.append(BadSentence(sid, source, k, None, str(exc)))
            continue
        result.append(SentenceTree(sid, tree, source, k))
    return result


def _read_slow(text: str, source: str, stem: str, clean: bool, on_error: str) -> list:
    """Error path: tokenise with positions to report lines, and check encoding."""
    matches = list(_TOKEN.finditer(text))
    tokens = [m.group(0) for m in matches]
    result = []
    k = 0
    for start, item in _build_trees(tokens):
        sid = f"{stem}.{k}"
        if isinstance(item, _TreeError):
            pos = matches[min(item.token_index, len(matches) - 1)].start() if matches else 0
            line = _line_of(text, pos)
            if tokens[start] != "(":
                # text outside any tree: report but do not consume a tree index
                if on_error == "raise":
                    raise PTBFormatError(item.reason, source, None, line)
                result.append(BadSentence(f"{stem}:{line}", source, -1, line, item.reason))
                continue
            if on_error == "raise":
                raise PTBFormatError(item.reason, source, sid, line)
            result.append(BadSentence(sid, source, k, line, item.reason))
            k += 1
            continue
        # encoding check over this tree's text
        first = matches[start].start()
        bad = _first_undecodable(item)
        if bad is not None:
            line = _line_of(text, first)
            reason = f"bytes that are not UTF-8: {bad}"
            if on_error == "raise":
                raise PTBFormatError(reason, source, sid, line)
            result.append(BadSentence(sid, source, k, line, reason))
            k += 1
            continue
        try:
            tree = _finish(item, clean)
        except Exception as exc:
            line = _line_of(text, first)
            if on_error == "raise":
                raise PTBFormatError(str(exc), source, sid, line) from None
            result.append(BadSentence(sid, source, k, line, str(exc)))
            k += 1
            continue
        result.append(SentenceTree(sid, tree, source, k))
        k += 1
    if not result:
        err = PTBFormatError("file contains no trees", source)
        if on_error == "raise":
            raise err
        return [BadSentence(stem, source, -1, None, err.reason)]
    return result


def _first_undecodable(tree: Tree) -> str | None:
    for node in tree.subtrees():
        for text in (node.label, node.word or ""):
            for ch in text:
                if "\udc80" <= ch <= "\udcff":
                    return f"0x{ord(ch) - 0xDC00:02x} in {text.encode('utf-8', 'surrogateescape')!r}"
    return None


def read_ptb(path, *, clean: bool = True, on_error: str = "raise", stem: str | None = None) -> list:
    """Read a ``.mrg`` file; see :func:`read_ptb_string` for the options.

    Bytes that are not valid UTF-8 make the tree that holds them bad (the
    rest of the file is still read when ``on_error="skip"``).  A leading UTF-8
    byte-order mark is dropped.
    """
    path = os.fspath(path)
    with open(path, "rb") as handle:
        data = handle.read()
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark is not text of the first tree
        data = data[3:]
    try:
        text = data.decode("utf-8")
        undecodable = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="surrogateescape")
        undecodable = True
    return read_ptb_string(text, path, stem=stem, clean=clean, on_error=on_error, _check_encoding=undecodable)


def iter_ptb_file(path, **kwargs) -> Iterator:
    """Iterate over :func:`read_ptb` results."""
    yield from read_ptb(path, **kwargs)
