"""Reading Penn Treebank bracketed files (``.mrg``) into :class:`plgraph.tree.Tree`.

The reader tokenises a whole file at once and builds trees in one pass; when
anything is wrong (unbalanced brackets, stray words, empty constituents,
bytes that are not UTF-8) it re-reads the file in a slower mode that knows the
line of every token, so errors name the file, the 0-based tree index and the
line.  ``on_error="skip"`` returns :class:`BadSentence` records instead of raising,
which is what corpus runs use so that one bad tree never stops a run.

A leading UTF-8 byte-order mark (U+FEFF) is dropped, by every reading path.  A tree
that is never closed does not swallow the trees after it: it is skipped, and reading
resumes at the next tree start line (see :func:`read_ptb_string`).
"""
from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass
from typing import Iterator

from ..errors import PTBFormatError
from ..tree import Tree
from .clean import homogenise, ptb_cleaning
from .escape import undecodable

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
BOM = "\ufeff"


@dataclass
class SentenceTree:
    """A successfully read tree: ``id`` is ``<file stem>.<K>``, ``index`` is K (the
    0-based index of the tree in its file, numbered as :func:`read_ptb_string` says);
    ``line``, the 1-based line where it starts, is known when the text was read with
    ``lines=True`` (else ``None``)."""

    id: str
    tree: Tree
    source: str
    index: int
    line: int | None = None


@dataclass
class BadSentence:
    """A tree that could not be read (or converted) and was skipped.

    ``line`` is the 1-based line where the tree starts, or where the error is (for
    text outside any tree); the reader always sets it (line 1 for a file without
    trees).  ``index`` is the tree's K, or -1 for text outside any tree and for a
    file without trees.
    """

    id: str
    source: str
    index: int
    line: int | None
    reason: str

    def __str__(self) -> str:
        loc = f"{self.source}:{self.line}" if self.line is not None else self.source
        return f"{self.id} ({loc}): {self.reason}"


class _TreeError(Exception):
    def __init__(self, reason: str, token_index: int, resume: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.token_index = token_index
        self.resume = resume  # token where reading resumes after an unclosed tree


def _build_trees(tokens: list[str], resync=None):
    """Yield ``(first_token_index, Tree | _TreeError)`` for each top-level tree.

    After an error the rest of that tree (up to bracket depth 0) is skipped.  A
    tree that is never closed (depth 0 is not reached before the end) is cut short
    at ``resync(first_token_index)``, the index of the token where the next tree
    starts (or ``None`` when there is none): the error is then "unclosed tree" with
    ``resume`` set to that token, and reading goes on from it.  Whether a tree is
    closed is known before it is built, so each token is looked at a bounded number
    of times however many trees are unclosed.
    """
    i = 0
    n = len(tokens)
    floors = _depth_floors(tokens) if resync is not None else None  # else made at the first error
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
        if floors is not None and floors[1][start + 1] > floors[0][start]:  # never closed
            resume = resync(start)
            if resume is not None:
                yield start, _TreeError("unclosed tree (missing ')')", start, resume)
                i = resume
                continue
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
            if floors is None:
                floors = _depth_floors(tokens)
            before, floor = floors
            # skip to the end of this tree (none when it is never closed)
            depth = 0
            j = start if floor[start + 1] <= before[start] else n
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


def _depth_floors(tokens: list[str]) -> tuple[list[int], list[int]]:
    """``(before, floor)``: ``before[i]`` is the bracket depth before token ``i``;
    ``floor[i]`` the lowest depth before any token from ``i`` on, or at the end.  The
    tree opened by token ``i`` is closed iff ``floor[i + 1] <= before[i]``."""
    before = []
    depth = 0
    for tok in tokens:
        before.append(depth)
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
    floor = before + [depth]
    for i in range(len(before) - 1, -1, -1):
        if floor[i + 1] < floor[i]:
            floor[i] = floor[i + 1]
    return before, floor


def _finish(tree: Tree, clean: bool) -> Tree:
    if clean:
        ptb_cleaning(tree)
        tree = homogenise(tree)
    tree.compute_spans()
    return tree


def read_ptb_string(text: str, source: str = "<string>", *, stem: str | None = None, clean: bool = True,
                    on_error: str = "raise", lines: bool = False, first_line: int = 1, first_index: int = 0) -> list:
    """Read every tree in ``text``.

    A leading byte-order mark (U+FEFF) is dropped; line numbers count from the line
    it starts.  Tree K (ids ``<stem>.<K>``) is the K-th top-level bracket of the
    text, 0-based: a tree that cannot be read counts as one tree (so the trees after
    it keep the ids they would have if it were fine), text outside any tree counts
    as none.

    A tree that is never closed (a missing ``)``) would swallow the trees after it.
    Instead it ends before the next line, after the line where it starts, whose first
    non-blank character is ``(`` and which is indented no deeper than the line where
    it starts (in Penn Treebank files: the next line starting with ``(`` at the left
    margin, ``( (S`` or ``(S``).  That tree is bad ("unclosed tree (missing ')');
    reading resumed at line N") and reading resumes at line N, whose tree gets the
    next index.  When there is no such line, the tree is bad to the end of the
    text ("unbalanced brackets: end of file inside a tree").  A tree of one word
    without a phrase label (``( (NN hello) )``) is read as ``(ROOT (NN hello))``.

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
    lines : bool
        Read in the mode that knows every token's line (slower): each SentenceTree
        gets its ``line``, and words with undecodable bytes (surrogate escapes) make
        their tree bad.  Without it that mode is used only when something is wrong.
    first_line, first_index : int
        The line number of ``text``'s first line and the index K of its first tree, when
        ``text`` is a piece of a longer file that starts at a line start outside any
        tree (a reader streaming the file; default 1 and 0).

    Returns
    -------
    list of SentenceTree or BadSentence, in file order.  Every BadSentence has the
    line of the tree (or of the text outside any tree) that is bad.
    """
    if on_error not in ("raise", "skip"):
        raise ValueError("on_error must be 'raise' or 'skip'")
    if text.startswith(BOM) and first_line == 1:  # a byte-order mark is not text of the first tree
        text = text[1:]
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
    if lines:
        bad_found = True
    if bad_found:
        return _read_slow(text, source, stem, clean, on_error, first_line, first_index)
    if not out:
        err = PTBFormatError("file contains no trees" if not text.strip() else "no bracketed tree found", source,
                             line=1)
        if on_error == "raise":
            raise err
        return [BadSentence(f"{stem}", source, -1, 1, err.reason)]
    result = []
    for k, tree in enumerate(out, start=first_index):
        try:
            tree = _finish(tree, clean)
        except Exception:  # cleaning failed: the slow mode knows the tree's line
            return _read_slow(text, source, stem, clean, on_error, first_line, first_index)
        result.append(SentenceTree(f"{stem}.{k}", tree, source, k))
    return result


def _read_slow(text: str, source: str, stem: str, clean: bool, on_error: str, first_line: int = 1,
               first_index: int = 0) -> list:
    """Error path: tokenise with positions to report lines, and check encoding."""
    matches = list(_TOKEN.finditer(text))
    tokens = [m.group(0) for m in matches]

    def resync(start: int) -> int | None:
        """First token after tree ``start`` that opens a line no deeper indented than its line."""
        pos = matches[start].start()
        line_start = text.rfind("\n", 0, pos) + 1
        head = text[line_start:pos]
        indent = len(head) - len(head.lstrip())
        for r in range(start + 1, len(tokens)):
            if tokens[r] != "(":
                continue
            pos = matches[r].start()
            line_start = text.rfind("\n", matches[r - 1].end(), pos) + 1
            if line_start and pos - line_start <= indent:  # only white space lies between tokens
                return r
        return None

    newlines = [m.start() for m in re.finditer("\n", text)]

    def line_of(pos: int) -> int:
        return bisect.bisect_left(newlines, pos) + first_line

    result = []
    k = first_index
    for start, item in _build_trees(tokens, resync):
        sid = f"{stem}.{k}"
        if isinstance(item, _TreeError):
            pos = matches[min(item.token_index, len(matches) - 1)].start() if matches else 0
            line = line_of(pos)
            if item.resume is not None:
                resumed = line_of(matches[item.resume].start())
                item.reason += (f"; the next tree starts at line {resumed}" if on_error == "raise"
                                else f"; reading resumed at line {resumed}")
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
            line = line_of(first)
            reason = f"bytes that are not UTF-8: {bad}"
            if on_error == "raise":
                raise PTBFormatError(reason, source, sid, line)
            result.append(BadSentence(sid, source, k, line, reason))
            k += 1
            continue
        try:
            tree = _finish(item, clean)
        except Exception as exc:
            line = line_of(first)
            if on_error == "raise":
                raise PTBFormatError(str(exc), source, sid, line) from None
            result.append(BadSentence(sid, source, k, line, str(exc)))
            k += 1
            continue
        result.append(SentenceTree(sid, tree, source, k, line_of(first)))
        k += 1
    if not result:
        err = PTBFormatError("file contains no trees", source, line=first_line)
        if on_error == "raise":
            raise err
        return [BadSentence(stem, source, -1, first_line, err.reason)]
    return result


def _first_undecodable(tree: Tree) -> str | None:
    for node in tree.subtrees():
        for text in (node.label, node.word or ""):
            byte = undecodable(text)
            if byte:
                return f"{byte} in {text.encode('utf-8', 'surrogateescape')!r}"
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
    try:
        text = data.decode("utf-8")
        undecodable = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="surrogateescape")
        undecodable = True
    return read_ptb_string(text, path, stem=stem, clean=clean, on_error=on_error, lines=undecodable)


def iter_ptb_file(path, **kwargs) -> Iterator:
    """Iterate over :func:`read_ptb` results."""
    yield from read_ptb(path, **kwargs)
