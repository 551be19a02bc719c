"""``python -m plgraph convert``: PTB brackets <-> SHP, of one file or of every ``.mrg``
file under a folder (:func:`convert_file`, :mod:`plgraph.convert`).

With ``--dask`` (:mod:`plgraph.dist`) the files go out in chunks (:func:`convert_task`);
output and stderr report are byte-identical to the serial run's, and with ``--out`` the
finished chunks are kept in ``OUT.chunks/`` until the output is written (``--resume``
continues a killed run).
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

from ..dist.cli import (add_dask_options, add_resume_option, bad_from_json, bad_to_json, dask_state_dir,
                        dask_summary, file_items, run_corpus_chunks, write_output)
from ..errors import PlgraphError


def _add_representation_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--heads", default="jkk1",
                   help="head rules: jkk1/modified (default), collins/cck, jkk0, jkk2..jkk5")
    p.add_argument("--no-null-reversal", action="store_true", help="keep null-null trace edges unreversed")
    p.add_argument("--gapping-shift", action="store_true", help="move gapping correlates' indices to their parent")
    p.add_argument("--strict", action="store_true",
                   help="treat dangling or duplicated co-indices as errors (the sentence is skipped)")


@dataclass
class ConvertedFile:
    """What :func:`convert_file` made of one input file: the output ``text`` of its
    converted sentences (in file order), how many there are (``n_sentences``), the
    ``warnings`` attached to converted sentences (``(sentence id, warning)``, in order)
    and the ``skipped`` sentences (:class:`~plgraph.ptb.reader.BadSentence`, unreadable
    or unconvertible, in file order)."""

    text: str
    n_sentences: int
    warnings: list
    skipped: list

    def to_json(self, name: str, path: str) -> dict:
        """JSON-able form (what a Dask task returns); sources spelled ``name``."""
        return {"text": self.text, "n": self.n_sentences, "warnings": [list(w) for w in self.warnings],
                "skipped": [bad_to_json(b, name, path) for b in self.skipped]}

    @classmethod
    def from_json(cls, doc: dict) -> "ConvertedFile":
        return cls(doc["text"], doc["n"], [tuple(w) for w in doc["warnings"]],
                   [bad_from_json(b) for b in doc["skipped"]])


def convert_settings(args) -> dict:
    """The JSON-able settings of a ``convert`` run that :func:`convert_file` needs."""
    return {"from": args.from_format, "to": args.to, "heads": args.heads,
            "null_reversal": not args.no_null_reversal, "gapping_shift": bool(args.gapping_shift),
            "strict": bool(args.strict), "comments": not args.no_comments, "guess_nulls": bool(args.guess_nulls)}


def convert_file(src, settings: dict) -> ConvertedFile:
    """Convert one file (PTB brackets or SHP: ``settings["from"]``, or by extension:
    ``.shp`` is SHP, anything else PTB) to ``settings["to"]``.  A sentence that cannot be
    read or converted (a PlgraphError, or a structure too deep to handle) is skipped with
    its reason instead of stopping the file; an unreadable file raises.  The serial and
    the ``--dask`` runs of ``convert`` both call this, once per file."""
    from . import ConversionOptions, graph_to_tree, tree_to_graph
    from ..ptb.reader import BadSentence, read_ptb
    from ..shp import format_shp, read_shp

    src = os.fspath(src)
    fmt_in = settings["from"] or ("shp" if src.endswith(".shp") else "ptb")
    to, strict, comments = settings["to"], settings["strict"], settings["comments"]
    opts = ConversionOptions(settings["heads"], settings["null_reversal"], settings["gapping_shift"]).normalised()
    out_chunks: list[str] = []
    bad: list = []
    notes: list[tuple[str, str]] = []  # (sentence id, warning) of converted sentences

    def convert_one(sid, index, work) -> None:
        """``work() -> (text, warnings)``; a PlgraphError (or a structure too deep to
        handle) skips the sentence with its reason instead of stopping the run."""
        try:
            text, warnings = work()
        except PlgraphError as err:
            bad.append(BadSentence(str(sid), src, index, getattr(err, "line", None), getattr(err, "reason", str(err))))
            return
        except RecursionError:
            bad.append(BadSentence(str(sid), src, index, None, "structure nested too deeply to convert"))
            return
        out_chunks.append(text)
        notes.extend((str(sid), w) for w in warnings)

    def ptb_item(item):
        if to == "ptb":
            return item.tree.to_string() + "\n", []
        graph = tree_to_graph(item.tree, opts, sid=item.id, strict=strict)
        return format_shp(graph, comments=comments), list(graph.warnings)

    def shp_item(graph):
        if to == "shp":
            return format_shp(graph, comments=comments), list(graph.warnings)
        before = len(graph.warnings)
        tree = graph_to_tree(graph, use_null_positions=not settings["guess_nulls"])
        return tree.to_string() + "\n", graph.warnings[before:]

    if fmt_in == "ptb":
        items, work = read_ptb(src, on_error="skip"), ptb_item
    else:
        items, work = read_shp(src, on_error="skip"), shp_item
    for k, item in enumerate(items):
        if isinstance(item, BadSentence):
            bad.append(item)
            continue
        sid = item.id if fmt_in == "ptb" else (item.id or str(k))
        convert_one(sid, getattr(item, "index", k), lambda item=item: work(item))
    return ConvertedFile("".join(out_chunks), len(out_chunks), notes, bad)


def convert_task(spec: dict, chunk: list) -> list[dict]:
    """Dask task of ``convert --dask``: :func:`convert_file` on each of the chunk's files
    (``[name, path, size, mtime_ns]`` items), as :meth:`ConvertedFile.to_json`, in order."""
    return [convert_file(path, spec).to_json(name, path) for name, path, *_ in chunk]


def convert_inputs(src, from_format: str | None = None) -> list:
    """The files ``convert IN`` reads: ``IN`` itself, or for a folder every ``*.mrg``
    file under it (``*.shp`` with ``--from shp``), recursively, sorted by their path
    relative to ``IN`` (folder by folder).  A folder without one is an InputError."""
    from pathlib import Path

    from ..errors import InputError

    if not os.path.isdir(src):
        return [src]
    pattern = "*.shp" if from_format == "shp" else "*.mrg"
    root = Path(src)
    files = sorted((p for p in root.rglob(pattern) if p.is_file()), key=lambda p: p.relative_to(root).parts)
    if not files:
        raise InputError(f"no {pattern} file under this folder", source=src)
    return [os.fspath(p) for p in files]


def cmd_convert(args) -> int:
    """Convert one file, or every ``.mrg`` file under a folder (:func:`convert_inputs`),
    concatenated in that order.  Sentences that cannot be read or converted are skipped
    and listed on stderr (file, line, sentence id), as are the warnings the conversion
    attaches to a graph.  When no sentence converts, nothing is written (an existing
    output stays as it was) and the run fails.

    With ``--dask`` the files go out in chunks of ``--chunk-size``
    (:func:`convert_task`); output and stderr report are byte-identical to the serial
    run's.  With ``--out``, finished chunks are kept in ``OUT.chunks/`` until the output
    is written (``--resume`` continues a killed run)."""
    from ..dist.chunks import remove_state
    from ..dist.cli import client_for
    from ..errors import InputError

    src = args.input
    state = dask_state_dir(args, args.out)
    settings = convert_settings(args)
    files = convert_inputs(src, args.from_format)
    run = None
    with client_for(args) as client:
        if client is None:
            converted = [convert_file(f, settings) for f in files]
        else:
            from ..dist.chunks import cut

            if args.out:
                from ..files.atomic import check_writable

                check_writable(args.out)
            run = run_corpus_chunks("convert", client, convert_task, settings, cut(file_items(files), args.chunk_size),
                                    state, args, desc="convert", unit="file")
            converted = [ConvertedFile.from_json(doc) for part in run.results for doc in part]
    if run is not None:
        dask_summary("convert", run)
    for f, c in zip(files, converted):
        for sid, warning in c.warnings:
            print(f"plgraph convert: warning: {f}, sentence {sid}: {warning}", file=sys.stderr)
    bad = [b for c in converted for b in c.skipped]
    if bad:
        print(f"plgraph convert: skipped {len(bad)} sentence(s) of {src}:", file=sys.stderr)
        for b in bad:
            print(f"  {b}", file=sys.stderr)
    n_ok = sum(c.n_sentences for c in converted)
    if not n_ok:
        remove_state(state)        # a rerun would find the same: nothing to resume
        kept = f"; {args.out} left unchanged" if args.out else ""
        raise InputError(f"no sentence could be converted{kept}", source=src)
    write_output(args.out, "".join(c.text for c in converted), state)
    if args.out:
        files_note = f" from {len(files)} files" if len(files) > 1 else ""
        print(f"plgraph convert: wrote {n_ok} sentence(s){files_note} to {args.out}", file=sys.stderr)
    return 0


def register(sub) -> None:
    """Add ``convert`` to the sub-commands ``sub``."""
    p = sub.add_parser("convert", help="convert a file (or a folder of .mrg files) between PTB brackets and SHP")
    p.add_argument("input", help="input file (.shp is read as SHP, anything else as PTB brackets), or a folder: "
                                 "every .mrg file under it (.shp with --from shp), in path order, into one output")
    p.add_argument("--to", required=True, choices=["shp", "ptb"])
    p.add_argument("--from", dest="from_format", choices=["shp", "ptb"], help="input format (default: by extension)")
    p.add_argument("--out", metavar="PATH", help="output file (default: standard output)")
    p.add_argument("--no-comments", action="store_true", help="SHP without the # Parse/# Sentence/... comments")
    p.add_argument("--guess-nulls", action="store_true",
                   help="SHP->PTB: place null elements by the reference heuristic, ignoring recorded positions")
    _add_representation_flags(p)
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar of a --dask run (default: on a terminal)")
    add_dask_options(p, chunks="files", chunk_default=4)
    add_resume_option(p)
    p.set_defaults(func=cmd_convert)


__all__ = ["register", "cmd_convert", "convert_file", "convert_task", "convert_inputs", "convert_settings",
           "ConvertedFile"]
