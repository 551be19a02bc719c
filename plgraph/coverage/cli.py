"""``python -m plgraph coverage``: the two coverage tables (:mod:`plgraph.coverage`) of the
PTB sample or a full LDC treebank, ours beside the thesis's.

With ``--dask`` (:mod:`plgraph.dist`) the files go out in chunks (:func:`coverage_task`)
and the driver assembles the same result, so the tables and ``--json`` are byte-identical
to the serial run's; with ``--json`` the finished chunks are kept in ``JSON.chunks/``
until the JSON is written (``--resume`` continues).
"""
from __future__ import annotations

import argparse
import os
import time

from ..dist.cli import (add_dask_options, add_resume_option, bad_from_json, bad_to_json, dask_state_dir,
                        dask_summary, file_items, run_corpus_chunks)


def coverage_task(spec: dict, chunk: list) -> dict:
    """Dask task of ``coverage --dask``: read the chunk's files (``[name, path, size,
    mtime_ns]`` items) and turn every tree into its :func:`plgraph.coverage.sentence_records`.
    Returns ``{"bad": [...], "items": [...]}``: the trees that could not be read (as
    BadSentence lists) and, per readable tree in file order, ``{"records": [...]}`` or
    ``{"skipped": BadSentence list}`` -- everything the driver needs to assemble the same
    :class:`~plgraph.coverage.CoverageResult` as the serial run."""
    from . import sentence_records, skipped_sentence
    from ..errors import InputError
    from ..ptb.reader import BadSentence, read_ptb

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
    from . import coverage_from_records
    from ..dist.chunks import cut

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
    from . import compute_coverage
    from ..data import ptb_files
    from ..files.atomic import check_writable, check_writable_dir
    from ..dist.chunks import remove_state
    from ..dist.cli import client_for
    from ..structure import warmup

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
            from ..corpora import iter_trees

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
        from ..figures import write_coverage_figures

        written = write_coverage_figures(result, args.figures)
        print("wrote " + ", ".join(os.path.relpath(p) for p in written))
    return 0


def register(sub) -> None:
    """Add ``coverage`` to the sub-commands ``sub``."""
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



__all__ = ["register", "cmd_coverage", "coverage_task"]
