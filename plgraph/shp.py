"""Reading and writing the SHP ("split head parse") text format.

One sentence per block, blank line between blocks, ``#`` lines are comments.
Token lines::

    <i> <word> <POS> <spine> <structural parent> <parent node>  [<t> <t-node> <T|F> <s-node> <T|F> <trace>]*

Every 6-field group is an edge whose *child is the line's word*: ``t`` is the
parent word, ``t-node`` the node of the parent's spine (``T`` if null),
``s-node`` the node of the child's own spine, then the trace type.  Columns are
padded as the reference converter pads them, so files written here are
byte-identical on token lines.

Extra information plgraph needs for exact round trips goes into comment lines
that the reference tools ignore::

    # plgraph-options heads=jkk1 null_reversal=1 gapping_shift=0
    # plgraph-null <word> <host node> <k> [<PTB text of a dropped null>]
    # plgraph-orphan <word> <node> <T|F> <-|=>
"""
from __future__ import annotations

import io
import os
import re
from typing import Iterable

import numpy as np

from .files.atomic import atomic_write_with
from .errors import ConversionError, SHPFormatError
from .graph import Graph, NullRecord, OrphanIndex, STRUCTURAL, TRACE, structural_problem
from .ptb.clean import coindex_of
from .ptb.edits import collect_coindexation
from .spine import split_top
from .tree import Tree

_DEFAULT_READ_OPTIONS = {"heads": "jkk1", "null_reversal": True, "gapping_shift": False}


# ---------------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------------
def _text_tree_lines(tree: Tree) -> list[str]:
    """The reference converter's multi-line tree layout (``# Parse`` lines).

    Iterative (an explicit stack), so trees of any depth can be written."""
    out: list[str] = []
    stack: list = [(tree, 0, False)]
    while stack:
        node, depth, newline = stack.pop()
        if depth < 0:  # closing bracket of ``node``
            if node.children and node.children[-1].word is not None and out[-1][-1:] != " ":
                out.append(" ")
            out.append(")")
            continue
        if depth > 0:
            if newline or node.word is None:
                out.append("\n" + "\t" * depth)
            else:
                out.append(" ")
        out.append("(" + node.label)
        if node.word is not None:
            out.append(" " + node.word)
            out.append(")")
            continue
        stack.append((node, -1, False))
        kids = node.children
        for i in range(len(kids) - 1, -1, -1):
            stack.append((kids[i], depth + 1, i > 0 and kids[i - 1].word is None))
    return "".join(out).split("\n")


def _conv_edges(graph: Graph):
    """Edges in the reference converter's own direction (before it reverses
    gapping and null-null edges on output): (child, parent, child_null, trace)."""
    rev = graph.options.get("null_reversal", True)
    out = []
    for c, p, k, pn, cn, tr in zip(graph.child.tolist(), graph.parent.tolist(), graph.kind.tolist(),
                                   graph.parent_null.tolist(), graph.child_null.tolist(), graph.trace.tolist()):
        if k == TRACE and (tr == "=" or (rev and pn and cn)):
            out.append((p, c, pn, tr))
        else:
            out.append((c, p, cn if k == TRACE else False, tr))
    return out


def _has_cycle(edges, reverse_null: bool) -> bool:
    succ: dict[int, set] = {}
    for c, p, cnull, _ in edges:
        a, b = (c, p) if (reverse_null and cnull) else (p, c)
        succ.setdefault(a, set()).add(b)
        succ.setdefault(b, set())
    for start in succ:
        seen = set()
        queue = [start]
        while queue:
            cur = queue.pop()
            for other in succ[cur]:
                if other == start and cur != start:
                    return True
                if other not in seen:
                    seen.add(other)
                    queue.append(other)
    return False


def graph_type_line(graph: Graph) -> str:
    """The reference converter's ``# Graph type`` comment (ROOT at position 0)."""
    from .structure import crossing_flags

    edges = _conv_edges(graph)
    a = np.array([min(c, p) for c, p, _, _ in edges], dtype=np.int32)
    b = np.array([max(c, p) for c, p, _, _ in edges], dtype=np.int32)
    proj, one_ec = crossing_flags(a, b)
    text = "# Graph type "
    text += " proj" if proj else ("  1ec" if one_ec else "other")
    children = [c for c, _, _, _ in edges]
    text += " tree" if len(set(children)) == len(children) else " graph"
    text += " has-cycle" if _has_cycle(edges, False) else " no-cycle"
    text += " has-cycle-rev-edges" if _has_cycle(edges, True) else " no-cycle-rev-edges"
    text += " has-len1-cycle" if any(c == p for c, p, _, _ in edges) else " no-len1-cycle"
    pairs = [(c, p) for c, p, _, _ in edges]
    text += " has-double" if len(set(pairs)) != len(pairs) else " no-double"
    return text


def token_lines(graph: Graph) -> list[str]:
    """The token lines of a graph, padded exactly as the reference converter pads them."""
    n = len(graph.words)
    rows = [[str(i + 1), graph.words[i], graph.tags[i], graph.spines[i]] for i in range(n)]
    for row in rows:
        for text in row[1:]:
            if len(text.split()) != 1:
                raise ConversionError(f"token {row[0]}: {text!r} is empty or has whitespace; "
                                      "SHP fields are whitespace-separated", sentence=graph.id)
    groups: list[list[str]] = [[] for _ in range(n)]
    for c, p, k, lab, pn, cl, cn, tr in graph.edge_tuples():
        if k == STRUCTURAL:
            rows[c - 1].extend((str(p), lab))
        else:
            groups[c - 1].append(f"{p} {lab} {'T' if pn else 'F'} {cl} {'T' if cn else 'F'} {tr}")
    for row, grp in zip(rows, groups):
        grp.sort()
        row.extend(grp)
    widths: dict[int, int] = {}
    for row in rows:
        for i, text in enumerate(row[:6]):
            if len(text) > widths.get(i, 0):
                widths[i] = len(text)
    out = []
    for row in rows:
        padded = []
        for i, text in enumerate(row):
            if i < 6:
                padded.append(text.rjust(widths[i]) if i in (0, 4) else text.ljust(widths[i]))
            else:
                padded.append(text)
        out.append(" ".join(padded))
    return out


def _trace_info_lines(tree: Tree) -> list[str]:
    identities, gaps, refs, _ = collect_coindexation(tree)
    lines = []
    key = lambda x: int(x) if x.isdigit() else 0  # noqa: E731
    for num in sorted(identities, key=key):
        node = identities[num]
        lines.append(f"# Identity   {num} ({node.start}, {node.end}) {node.label} {node.start == node.end}")
    for num in sorted(gaps, key=key):
        for node in gaps[num]:
            lines.append(f"# Gapping    {num} ({node.start}, {node.end}) {node.label}")
    for num in sorted(refs, key=key):
        for node in refs[num]:
            lines.append(f"# Reference  {num} ({node.start}, {node.end}) {node.word}")
    for node in tree.subtrees():
        if node.word is not None and node.label == "-NONE-" and coindex_of(node.word) is None:
            lines.append(f"# Empty      ({node.start}, {node.end}) {node.word}")
    return lines


def format_shp(graph: Graph, comments: bool = True) -> str:
    """One SHP block (ending with a blank line) for ``graph``."""
    lines: list[str] = []
    if graph.id is not None:
        lines.append(f"# SentID {graph.id}")
    if comments:
        tree = graph.source_tree
        if isinstance(tree, Tree):
            lines.extend("# Parse " + line for line in _text_tree_lines(tree))
        lines.append("# Sentence   " + " ".join(graph.words))
        lines.append("# Tokens     " + "  ".join(f"{i + 1} {w}" for i, w in enumerate(graph.words)))
        if isinstance(tree, Tree):
            lines.extend(_trace_info_lines(tree))
        lines.append(graph_type_line(graph))
    opts = graph.options or _DEFAULT_READ_OPTIONS
    lines.append("# plgraph-options heads={} null_reversal={:d} gapping_shift={:d}".format(
        opts.get("heads", "jkk1"), bool(opts.get("null_reversal", True)), bool(opts.get("gapping_shift", False))))
    for rec in graph.nulls:
        lines.append(f"# plgraph-null {rec.word} {rec.host} {rec.k}" + (f" {rec.text}" if rec.text else ""))
    for orph in graph.orphans:
        lines.append(f"# plgraph-orphan {orph.word} {orph.node} {'T' if orph.null else 'F'} {orph.kind}")
    lines.extend(token_lines(graph))
    lines.append("")
    return "\n".join(lines) + "\n"


def write_shp(graphs: Iterable[Graph], path=None, comments: bool = True):
    """Write graphs as SHP.

    ``path=None`` returns the text; otherwise the file is written atomically
    (a temporary file in the same folder, then renamed), so an interrupted run
    never leaves a half-written file behind.
    """
    if path is None:
        return "".join(format_shp(g, comments) for g in graphs)
    path = os.fspath(path)

    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as handle:
            for g in graphs:
                handle.write(format_shp(g, comments))

    atomic_write_with(path, write)
    return path


# ---------------------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------------------
def top_node_name(spine: str) -> str:
    """The name of a spine's top node (``VP_S`` -> ``S_0``, ``VP_VP`` -> ``VP_1``; ``_`` for none)."""
    if spine == "_":
        return "_"
    parts = [p for p in split_top(spine) if p and p[0] != "("]
    if not parts:
        return "_"
    top = parts[-1]
    return f"{top}_{parts.count(top) - 1}"


_UNDECODABLE = re.compile("[\udc80-\udcff]")


def _undecodable_byte(text: str) -> int | None:
    """The first byte that was not UTF-8 (decoded with ``surrogateescape``), or None."""
    m = _UNDECODABLE.search(text)
    return None if m is None else ord(m.group(0)) - 0xDC00


def _flag_of(text: str, source, sid, line) -> bool:
    if text == "T":
        return True
    if text == "F":
        return False
    raise SHPFormatError(f"null flag must be T or F, got {text!r}", source, sid, line)


def _parse_block(lines: list[tuple[int, str]], source: str, fallback_id: str) -> Graph:
    sid = None
    opts = dict(_DEFAULT_READ_OPTIONS)
    nulls: list[NullRecord] = []
    orphans: list[OrphanIndex] = []
    words, tags, spines = [], [], []
    structural = []
    traces = []
    comment_words: list[tuple[int, int]] = []  # (word, line) named by plgraph-null/-orphan comments
    for lineno, line in lines:
        bad_byte = _undecodable_byte(line)
        if bad_byte is not None:
            raise SHPFormatError(f"byte 0x{bad_byte:02x} is not UTF-8", source, sid or fallback_id, lineno)
        if line.startswith("#"):
            body = line[1:].strip()
            if body.startswith("SentID"):
                sid = body[len("SentID"):].strip()
            elif body.startswith("plgraph-options"):
                for item in body.split()[1:]:
                    key, _, value = item.partition("=")
                    if key == "heads":
                        opts["heads"] = value
                    elif key in ("null_reversal", "gapping_shift"):
                        opts[key] = value == "1"
            elif body.startswith("plgraph-null"):
                parts = body.split(None, 4)
                try:
                    nulls.append(NullRecord(int(parts[1]), parts[2], int(parts[3]), parts[4] if len(parts) > 4 else None))
                    comment_words.append((nulls[-1].word, lineno))
                except (IndexError, ValueError):
                    raise SHPFormatError(f"malformed plgraph-null comment {line!r}", source, sid or fallback_id, lineno) from None
            elif body.startswith("plgraph-orphan"):
                parts = body.split()
                if len(parts) != 5 or parts[3] not in ("T", "F") or parts[4] not in ("-", "="):
                    raise SHPFormatError(f"malformed plgraph-orphan comment {line!r}", source, sid or fallback_id, lineno)
                try:
                    orphans.append(OrphanIndex(int(parts[1]), parts[2], parts[3] == "T", parts[4]))
                    comment_words.append((orphans[-1].word, lineno))
                except ValueError:
                    raise SHPFormatError(f"malformed plgraph-orphan comment {line!r}", source, sid or fallback_id,
                                         lineno) from None
            continue
        fields = line.split()
        here = sid or fallback_id
        if len(fields) < 6 or (len(fields) - 6) % 6:
            raise SHPFormatError(
                f"token line needs 6 fields plus groups of 6, got {len(fields)} fields", source, here, lineno)
        try:
            idx = int(fields[0])
            head = int(fields[4])
        except ValueError:
            raise SHPFormatError("word index and structural parent must be integers", source, here, lineno) from None
        if idx != len(words) + 1:
            raise SHPFormatError(f"expected token {len(words) + 1}, found {idx}", source, here, lineno)
        words.append(fields[1])
        tags.append(fields[2])
        spines.append(fields[3])
        structural.append((idx, head, fields[5], lineno))
        for g in range(6, len(fields), 6):
            try:
                t = int(fields[g])
            except ValueError:
                raise SHPFormatError(f"trace target must be an integer, got {fields[g]!r}", source, here, lineno) from None
            traces.append((idx, t, fields[g + 1], _flag_of(fields[g + 2], source, here, lineno),
                           fields[g + 3], _flag_of(fields[g + 4], source, here, lineno), fields[g + 5], lineno))
    n = len(words)
    here = sid or fallback_id
    if n == 0:
        raise SHPFormatError("block has no token lines", source, here, lines[0][0] if lines else None)
    edges = []
    for idx, head, lab, lineno in structural:
        if not 0 <= head <= n:
            raise SHPFormatError(f"structural parent {head} outside 0..{n}", source, here, lineno)
        edges.append((idx, head, STRUCTURAL, lab, False, top_node_name(spines[idx - 1]), False, "_"))
    for word, lineno in comment_words:
        if not 1 <= word <= n:
            raise SHPFormatError(f"plgraph comment names word {word}, outside 1..{n}", source, here, lineno)
    problem = structural_problem(n, [e[0] for e in structural], [e[1] for e in structural])
    if problem is not None:
        word, message = problem
        raise SHPFormatError(message, source, here, structural[word - 1][3])
    for idx, t, tnode, tnull, snode, snull, ttype, lineno in traces:
        if not 1 <= t <= n:
            raise SHPFormatError(f"trace parent {t} outside 1..{n}", source, here, lineno)
        edges.append((idx, t, TRACE, tnode, tnull, snode, snull, ttype))
    return Graph.from_edges(words, tags, spines, edges, id=sid or fallback_id, options=opts, nulls=nulls,
                            orphans=orphans)


def read_shp_string(text: str, source: str = "<string>", on_error: str = "raise") -> list:
    """Parse SHP text; see :func:`read_shp`."""
    from .ptb.reader import BadSentence

    if on_error not in ("raise", "skip"):
        raise ValueError("on_error must be 'raise' or 'skip'")

    stem = os.path.splitext(os.path.basename(source))[0]
    out: list = []
    block: list[tuple[int, str]] = []
    k = 0

    def flush():
        nonlocal k, block
        if any(not ln.startswith("#") for _, ln in block):
            fallback = f"{stem}.{k}"
            try:
                out.append(_parse_block(block, source, fallback))
            except SHPFormatError as err:
                if on_error == "raise":
                    raise
                out.append(BadSentence(str(err.sentence or fallback), source, k, err.line, err.reason))
            k += 1
        block = []

    for lineno, raw in enumerate(io.StringIO(text), start=1):
        line = raw.strip()
        if not line:
            flush()
            continue
        block.append((lineno, line))
    flush()
    if not out:
        err = SHPFormatError("file contains no sentences", source)
        if on_error == "raise":
            raise err
        out.append(BadSentence(stem, source, -1, None, err.reason))
    return out


def read_shp(path, on_error: str = "raise") -> list:
    """Read an SHP file into a list of :class:`Graph`.

    Every block is checked: fields, indices, and that the structural edges
    form one tree under ROOT (one parent per word, one root word, no head
    cycle).  A bad block raises :class:`SHPFormatError` naming the file, line and
    sentence; ``on_error="skip"`` returns a
    :class:`~plgraph.ptb.reader.BadSentence` for it instead and reads on.
    Bytes that are not UTF-8 make the block holding them bad.
    """
    path = os.fspath(path)
    with open(path, "rb") as handle:
        data = handle.read()
    text = data.decode("utf-8", errors="surrogateescape")
    return read_shp_string(text, path, on_error=on_error)
