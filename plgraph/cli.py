"""Command line: ``python -m plgraph <command> ...`` (also installed as ``plgraph``).

Commands
--------
coverage   the two coverage tables of the seed, ours beside the paper's
convert    PTB <-> SHP conversion of one file
parse      parse sentences with a trained graph parser (PTB trees with traces, or SHP)
figures    regenerate every figure of figures/ (same as ``python -m plgraph.figures``)

Each subsystem adds its commands from its own module: a module listed in
:data:`COMMAND_MODULES` defines ``register(subparsers)``, which adds sub-commands
whose ``func(args) -> int`` runs them.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from .errors import PlgraphError


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


def cmd_coverage(args) -> int:
    from .corpora import iter_trees
    from .coverage import compute_coverage
    from .data import ptb_files
    from .atomic import check_writable, check_writable_dir
    from .structure import warmup

    warmup()
    for out in filter(None, [args.json]):
        check_writable(out)
    if args.figures:
        check_writable_dir(args.figures)
    files = ptb_files(args.split, args.ptb)
    bad: list = []
    start = time.perf_counter()
    trees = list(iter_trees(files, progress=args.progress, bad=bad))
    result = compute_coverage(trees, root=args.root, progress=args.progress, strict=args.strict)
    result.skipped = bad + result.skipped
    elapsed = time.perf_counter() - start
    source = args.ptb or "NLTK PTB sample"
    if args.json:  # the results first: a failing terminal must not lose them
        result.write_json(args.json)
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


def cmd_convert(args) -> int:
    """Convert one file.  Sentences that cannot be read or converted are skipped and
    listed on stderr (file, line, sentence id), as are the warnings the conversion
    attaches to a graph.  When no sentence converts, nothing is written (an existing
    output stays as it was) and the run fails."""
    from .convert import graph_to_tree, tree_to_graph
    from .errors import InputError
    from .ptb.reader import BadSentence, read_ptb
    from .shp import format_shp, read_shp

    src = args.input
    fmt_in = args.from_format or ("shp" if src.endswith(".shp") else "ptb")
    opts = _options(args)
    comments = not args.no_comments
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
        if args.to == "ptb":
            return item.tree.to_string() + "\n", []
        graph = tree_to_graph(item.tree, opts, sid=item.id, strict=args.strict)
        return format_shp(graph, comments=comments), list(graph.warnings)

    def shp_item(graph):
        if args.to == "shp":
            return format_shp(graph, comments=comments), list(graph.warnings)
        before = len(graph.warnings)
        tree = graph_to_tree(graph, use_null_positions=not args.guess_nulls)
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
    for sid, warning in notes:
        print(f"plgraph convert: warning: {src}, sentence {sid}: {warning}", file=sys.stderr)
    if bad:
        print(f"plgraph convert: skipped {len(bad)} sentence(s) of {src}:", file=sys.stderr)
        for b in bad:
            print(f"  {b}", file=sys.stderr)
    n_ok = len(out_chunks)
    if not n_ok:
        kept = f"; {args.out} left unchanged" if args.out else ""
        raise InputError(f"no sentence could be converted{kept}", source=src)
    text = "".join(out_chunks)
    if args.out:
        from .atomic import atomic_text

        atomic_text(args.out, text)
        print(f"plgraph convert: wrote {n_ok} sentence(s) to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


#: modules that add sub-commands via ``register(subparsers)``
COMMAND_MODULES: list[str] = [
    "plgraph.rules.cli",
    "plgraph.pruners.cli",
    "plgraph.lm.cli",
    "plgraph.dep.cli",
    "plgraph.eval.cli",
    "plgraph.parser.cli",
    "plgraph.parser.parse_cli",
]


def cmd_figures(args) -> int:
    from . import figures

    argv = ["--out", args.out] + (["--ptb", args.ptb] if args.ptb else [])
    for name in args.only or []:
        argv += ["--only", name]
    return figures.main(argv)


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = argparse.ArgumentParser(prog="python -m plgraph", description=__doc__,
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
    p.set_defaults(func=cmd_coverage)

    p = sub.add_parser("figures", help="regenerate every figure of figures/ from the library")
    p.add_argument("--out", default="figures", help="output folder (default: figures)")
    p.add_argument("--only", action="append", help="regenerate only this figure (repeatable)")
    p.add_argument("--ptb", metavar="DIR", help="use a full LDC treebank instead of the sample")
    p.set_defaults(func=cmd_figures)

    p = sub.add_parser("convert", help="convert a file between PTB brackets and SHP")
    p.add_argument("input", help="input file (.shp is read as SHP, anything else as PTB brackets)")
    p.add_argument("--to", required=True, choices=["shp", "ptb"])
    p.add_argument("--from", dest="from_format", choices=["shp", "ptb"], help="input format (default: by extension)")
    p.add_argument("--out", metavar="PATH", help="output file (default: standard output)")
    p.add_argument("--no-comments", action="store_true", help="SHP without the # Parse/# Sentence/... comments")
    p.add_argument("--guess-nulls", action="store_true",
                   help="SHP->PTB: place null elements by the reference heuristic, ignoring recorded positions")
    _add_representation_flags(p)
    p.set_defaults(func=cmd_convert)
    return parser


def _tolerant_streams() -> None:
    """Let messages that quote undecodable input (surrogate escapes) or characters the
    terminal's encoding lacks print as escapes instead of dying with UnicodeEncodeError.

    A Ctrl-C landing inside ``reconfigure`` can leave stderr unusable ("lost sys.stderr"),
    so "interrupted" could not be printed: while the streams are reconfigured SIGINT only
    records itself (Python runs signal handlers in the main thread, whichever thread the
    OS delivered it to), and is raised again, to the previous handler, right after."""
    import signal
    import threading

    got: list = []
    guard = threading.current_thread() is threading.main_thread()
    if guard:
        previous = signal.signal(signal.SIGINT, lambda *_: got.append(True))
    try:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (AttributeError, ValueError):  # replaced streams (pytest capture, notebooks)
                pass
    finally:
        if guard:
            signal.signal(signal.SIGINT, previous)
    if got:
        signal.raise_signal(signal.SIGINT)


def main(argv=None) -> int:
    try:
        _tolerant_streams()
        parser = build_parser()      # imports every command module: Ctrl-C may land here
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("plgraph: interrupted", file=sys.stderr)
        return 130
    try:
        return args.func(args)
    except PlgraphError as err:
        print(f"plgraph {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"plgraph {args.command}: interrupted", file=sys.stderr)
        return 130
    except OSError as err:
        print(f"plgraph {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
