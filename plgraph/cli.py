"""Command line: ``python -m plgraph <command> ...`` (also installed as ``plgraph``).

Commands
--------
coverage   the two coverage tables of the seed, ours beside the paper's
convert    PTB <-> SHP conversion of one file, or of every .mrg file under a folder
parse      parse sentences with a trained graph parser (PTB trees with traces, or SHP)
figures    regenerate every figure of figures/ (same as ``python -m plgraph.figures``)
synthetic-treebank  lay out the PTB sample as an LDC treebank at several times its size (for
           exercising ``--ptb DIR``; a model's accuracy on it means nothing)

Each subsystem adds its commands from its own module: a module listed in
:data:`COMMAND_MODULES` defines ``register(subparsers)``, which adds sub-commands
whose ``func(args) -> int`` runs them.

``coverage``, ``convert`` and ``dep parse`` take ``--dask [ADDRESS]``
(:mod:`plgraph.dist`): the work goes out in chunks of files (or sentences), the output is
byte-identical to the serial run's, and with an output file the finished chunks are kept
in ``OUT.chunks/`` so that an interrupted run continues with ``--resume``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass

from .dist.cli import (add_resume_option, bad_from_json, bad_to_json, dask_state_dir, dask_summary,
                       file_items, run_corpus_chunks, write_output)
from .cliargs import ArgumentParser, positive_int
from .errors import OutputError, PlgraphError
from .signals import TerminationAsInterrupt, held_interrupts


def _add_representation_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--heads", default="jkk1",
                   help="head rules: jkk1/modified (default), collins/cck, jkk0, jkk2..jkk5")
    p.add_argument("--no-null-reversal", action="store_true", help="keep null-null trace edges unreversed")
    p.add_argument("--gapping-shift", action="store_true", help="move gapping correlates' indices to their parent")
    p.add_argument("--strict", action="store_true",
                   help="treat dangling or duplicated co-indices as errors (the sentence is skipped)")


def _options(args):
    from .convert import ConversionOptions

    return ConversionOptions(args.heads, not args.no_null_reversal, args.gapping_shift).normalised()


def coverage_task(spec: dict, chunk: list) -> dict:
    """Dask task of ``coverage --dask``: read the chunk's files (``[name, path, size,
    mtime_ns]`` items) and turn every tree into its :func:`plgraph.coverage.sentence_records`.
    Returns ``{"bad": [...], "items": [...]}``: the trees that could not be read (as
    BadSentence lists) and, per readable tree in file order, ``{"records": [...]}`` or
    ``{"skipped": BadSentence list}`` -- everything the driver needs to assemble the same
    :class:`~plgraph.coverage.CoverageResult` as the serial run."""
    from .coverage import sentence_records, skipped_sentence
    from .errors import InputError
    from .ptb.reader import BadSentence, read_ptb

    bad, items = [], []
    for name, path, *_ in chunk:
        for item in read_ptb(path, on_error="skip"):
            if isinstance(item, BadSentence):
                bad.append(bad_to_json(item, name, path))
                continue
            try:
                items.append({"records": sentence_records(item, spec["root"], spec["strict"])})
            except InputError as err:
                items.append({"skipped": bad_to_json(skipped_sentence(item, err), name, path)})
    return {"bad": bad, "items": items}


def _coverage_on_dask(args, files, client, state):
    """The serial run's :class:`CoverageResult` (same tables, same skipped list in the
    same order), computed by :func:`coverage_task` on chunks of ``--chunk-size`` files
    (finished chunks kept in ``state``)."""
    from .coverage import coverage_from_records
    from .dist.chunks import cut

    run = run_corpus_chunks("coverage", client, coverage_task, {"root": args.root, "strict": bool(args.strict)},
                            cut(file_items(files), args.chunk_size), state, args, desc="coverage", unit="file")
    bad, records, skipped = [], [], []
    for part in run.results:
        bad.extend(bad_from_json(b) for b in part["bad"])
        for item in part["items"]:
            if "records" in item:
                records.extend(item["records"])
            else:
                skipped.append(bad_from_json(item["skipped"]))
    result = coverage_from_records(records, skipped, args.root)
    result.skipped = bad + result.skipped
    return result, run


def cmd_coverage(args) -> int:
    """Both coverage tables.  With ``--dask`` the files go out in chunks
    (:func:`coverage_task`) and the driver assembles the same result, so the tables and
    ``--json`` are byte-identical to the serial run's; with ``--json`` the finished chunks
    are kept in ``JSON.chunks/`` until the JSON is written (``--resume`` continues)."""
    from .coverage import compute_coverage
    from .data import ptb_files
    from .atomic import check_writable, check_writable_dir
    from .dist.chunks import remove_state
    from .dist.cli import client_for
    from .structure import warmup

    state = dask_state_dir(args, args.json, "--json")      # --resume checks, before any work
    warmup()
    for out in filter(None, [args.json]):
        check_writable(out)
    if args.figures:
        check_writable_dir(args.figures)
    files = ptb_files(args.split, args.ptb)
    start = time.perf_counter()
    run = None
    with client_for(args) as client:
        if client is None:
            from .corpora import iter_trees

            bad: list = []
            trees = list(iter_trees(files, progress=args.progress, bad=bad))
            result = compute_coverage(trees, root=args.root, progress=args.progress, strict=args.strict)
            result.skipped = bad + result.skipped
        else:
            result, run = _coverage_on_dask(args, files, client, state)
    elapsed = time.perf_counter() - start
    source = args.ptb or "NLTK PTB sample"
    if args.json:  # the results first: a failing terminal must not lose them
        result.write_json(args.json)
        remove_state(state)
    if run is not None:
        dask_summary("coverage", run)
    print(f"# {source}, split {args.split}: {result.n_sentences} sentences from {len(files)} files "
          f"({elapsed:.1f} s)")
    print(result.format_text())
    if args.json:
        print(f"\nwrote {args.json}")
    if args.figures:
        from .figures import write_coverage_figures

        written = write_coverage_figures(result, args.figures)
        print("wrote " + ", ".join(os.path.relpath(p) for p in written))
    return 0


# -- convert ------------------------------------------------------------------------------
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
    from .convert import ConversionOptions, graph_to_tree, tree_to_graph
    from .ptb.reader import BadSentence, read_ptb
    from .shp import format_shp, read_shp

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

    from .errors import InputError

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
    from .dist.chunks import remove_state
    from .dist.cli import client_for
    from .errors import InputError

    src = args.input
    state = dask_state_dir(args, args.out)
    settings = convert_settings(args)
    files = convert_inputs(src, args.from_format)
    run = None
    with client_for(args) as client:
        if client is None:
            converted = [convert_file(f, settings) for f in files]
        else:
            from .dist.chunks import cut

            if args.out:
                from .atomic import check_writable

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


#: modules that add sub-commands via ``register(subparsers)``
COMMAND_MODULES: list[str] = [
    "plgraph.rules.cli",
    "plgraph.pruners.cli",
    "plgraph.lm.cli",
    "plgraph.dep.cli",
    "plgraph.eval.cli",
    "plgraph.parser.cli.train",
    "plgraph.parser.cli.parse",
    "plgraph.parser.cli.demo",
    "plgraph.release.cli",
]


def cmd_figures(args) -> int:
    """``figures``: :func:`plgraph.figures.regenerate`."""
    import os

    from . import figures

    os.environ.setdefault("MPLBACKEND", "Agg")
    figures.regenerate(args.out, args.only, args.ptb, train_missing=args.train_missing)
    return 0


def cmd_synthetic_treebank(args) -> int:
    """``synthetic-treebank``: :func:`plgraph.ptb.synthetic.write_synthetic_treebank`."""
    from .ptb.synthetic import write_synthetic_treebank

    done = write_synthetic_treebank(args.out, args.copies)
    print(done.summary())
    return 0


def build_parser() -> argparse.ArgumentParser:
    import importlib

    from .dist.cli import add_dask_options

    parser = ArgumentParser(prog="python -m plgraph", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)

    p = sub.add_parser("coverage", help="coverage tables (structure types; representation steps)")
    p.add_argument("--ptb", metavar="DIR", help="full LDC treebank: folder with WSJ section folders 00-24")
    p.add_argument("--split", default="all", choices=["all", "train", "dev", "test"])
    p.add_argument("--json", metavar="PATH", help="write the tables as JSON")
    p.add_argument("--figures", metavar="DIR", help="also write CSV/Markdown tables and bar charts to DIR")
    p.add_argument("--root", default="end", choices=["end", "start"], help="ROOT position (only the locked-chain test depends on it)")
    p.add_argument("--strict", action="store_true", help="skip sentences with dangling co-indices")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help="show progress bars")
    add_dask_options(p, chunks="files", chunk_default=4)
    add_resume_option(p, "--json")
    p.set_defaults(func=cmd_coverage)

    p = sub.add_parser("figures", help="regenerate every figure of figures/ from the library")
    p.add_argument("--out", default="figures", help="output folder (default: figures)")
    p.add_argument("--only", action="append", help="regenerate only this figure (repeatable)")
    p.add_argument("--ptb", metavar="DIR", help="use a full LDC treebank instead of the sample")
    p.add_argument("--train-missing", action="store_true",
                   help="train the models a figure lacks (the learning curve's: ~20-36 min each on 2 cores) instead "
                        "of skipping that figure")
    p.set_defaults(func=cmd_figures)

    p = sub.add_parser("synthetic-treebank",
                       help="lay out the PTB sample as an LDC treebank (sections 02-23) at COPIES times its train "
                            "split, for exercising --ptb DIR; the accuracy of a model trained on it means nothing")
    p.add_argument("out", metavar="OUT", help="a new folder")
    p.add_argument("--copies", type=positive_int, default=4,
                   help="copies of the sample's train files in sections 02-21 (default 4; at most 14)")
    p.set_defaults(func=cmd_synthetic_treebank)

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
    return parser


def _tolerant_streams() -> None:
    """Let messages that quote undecodable input (surrogate escapes) or characters the
    terminal's encoding lacks print as escapes instead of dying with UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):  # replaced streams (pytest capture, notebooks)
            pass


def _closed_standard_streams() -> None:
    """Standard streams closed when plgraph started (``<&-``, ``>&-``, ``2>&-``): each
    free descriptor 0-2 gets ``os.devnull``, so that no file opened later takes it (and
    the writes meant for the stream); then standard error writes to ``os.devnull`` --
    messages are lost, as with any Unix tool, never mixed into standard output --
    standard output fails at its first write (:class:`_StandardOutput`) and standard
    input stays None (reading ``-`` says it is closed)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            devnull = os.open(os.devnull, os.O_RDWR)
            if devnull != fd:
                os.dup2(devnull, fd)
                os.close(devnull)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")


class StandardOutputError(OutputError):
    """Standard output cannot be written (a full disk, a closed terminal)."""


class _StandardOutput:
    """``sys.stdout`` while a command runs: a failed write or flush is a
    :class:`StandardOutputError` that names standard output; a closed pipe stays a
    ``BrokenPipeError``."""

    def __init__(self, stream):
        self._stream = stream
        #: standard output was closed when plgraph started (``>&-``): every write fails
        self.closed_at_start = stream is None

    def _guarded(self, method, *args):
        if self._stream is None:
            raise StandardOutputError("standard output is closed: give --out PATH (where the command has it)")
        try:
            return method(*args)
        except BrokenPipeError:
            raise
        except OSError as err:
            raise StandardOutputError(f"cannot write to standard output: {err.strerror or err}") from None

    def write(self, text):
        return self._guarded(lambda: self._stream.write(text))

    def flush(self):
        if self._stream is not None:
            return self._guarded(self._stream.flush)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point file descriptor 1 at ``os.devnull``, so that the interpreter's last flush of
    what is left in ``sys.stdout``'s buffer (for a closed pipe or a full disk) neither
    fails nor prints."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):       # no real standard output (tests, notebooks)
        pass


def main(argv=None) -> int:
    """Run a command; its exit status: 0 done, 2 an error (named on standard error), 130
    interrupted (Ctrl-C), 143 terminated (SIGTERM), 141 standard output closed (a pipe's
    reader stopped: nothing more is written, nothing is printed, as Unix tools do)."""
    _closed_standard_streams()
    try:
        with held_interrupts():          # start-up: imports every command module
            _tolerant_streams()
            parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("plgraph: interrupted", file=sys.stderr)
        return 130
    stdout, sys.stdout = sys.stdout, _StandardOutput(sys.stdout)
    terminated = TerminationAsInterrupt()
    try:
        with terminated:
            status = args.func(args)
            sys.stdout.flush()
        return status
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except PlgraphError as err:
        if isinstance(err, StandardOutputError):
            _silence_stdout()
        print(f"plgraph {args.command}: error: {err}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, SystemError) as err:
        from .learn.interrupts import caused_by_interrupt

        if not caused_by_interrupt(err):     # a SystemError of a kernel that no interrupt hit
            raise
        print(f"plgraph {args.command}: {'terminated' if terminated.seen else 'interrupted'}", file=sys.stderr)
        return 143 if terminated.seen else 130
    except OSError as err:
        print(f"plgraph {args.command}: error: {err}", file=sys.stderr)
        return 2
    finally:
        sys.stdout = stdout


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
