"""``python -m plgraph release``: make the released model, or check it.

::

    python -m plgraph release [--model-dir M] [--out DIR] [--card PATH] [--jobs N]
                              [--linear-precision P] [--neural-precision P] [--ptb DIR]
    python -m plgraph release --check [--out DIR]
    python -m plgraph release --rescore [--out DIR] [--card PATH] [--jobs N]

The first packs the trained folder ``M`` (default ``runs/parser``), scores it and
replaces the release (:func:`plgraph.release.build.release_model`), then writes the card
(:func:`plgraph.release.card.render_card`, default ``docs/model.md``).  ``--check`` compares
the released files with their record and prints its scores; ``--rescore`` measures the
release's scores again when plgraph's parsing changed and its files did not
(:func:`plgraph.release.build.rescore_release`), and rewrites the card.
"""
from __future__ import annotations

import argparse
import shlex
import sys

from ..cliargs import positive_int, progress_of


def cmd_release(args) -> int:
    from ..files.atomic import atomic_text
    from .card import render_card
    from ..models import released_dir
    from .record import changed_files, load_record

    out = args.out or str(released_dir())
    if args.rescore:
        from .build import rescore_release

        record = rescore_release(out, jobs=args.jobs, ptb=args.ptb, command=_command(), progress=progress_of(args))
        if args.card:
            atomic_text(args.card, render_card(record))
            print(f"card -> {args.card}")
        return 0
    if args.check:
        record = load_record(out)
        problems = changed_files(out, record)
        for line in problems:
            print(f"plgraph release --check: {line}", file=sys.stderr)
        for scorer, e in record["scorers"].items():
            print(f"{scorer}: dev evalb F1 {e['dev']['len40']['evalb_f1']:.2f}, "
                  f"test {e['test']['len40']['evalb_f1']:.2f} (gold tags; <= 40 words)")
        print(f"{out}: {len(record['files'])} files, " + ("as released" if not problems else
                                                            f"{len(problems)} differ from the record"))
        return 1 if problems else 0
    from .build import ReleaseConfig, release_model

    config = ReleaseConfig(model_dir=args.model_dir, out=args.out, linear_precision=args.linear_precision,
                           neural_precision=args.neural_precision, jobs=args.jobs, ptb=args.ptb)
    record = release_model(config, command=_command(), progress=progress_of(args))
    if args.card:
        atomic_text(args.card, render_card(record))
        print(f"card -> {args.card}")
    return 0


def _command() -> str:
    """How this run was invoked, for the record."""
    return "python -m plgraph " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:] else ""


def register(sub) -> None:
    from ..files.packing import PRECISIONS

    p = sub.add_parser("release", help="pack a trained parser folder into plgraph's released model (or --check it)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model-dir", default="runs/parser", metavar="M",
                   help="the trained folder (default runs/parser; its neural/ too when there is one)")
    p.add_argument("--out", metavar="DIR", help="the released folder (default: plgraph/models/parser)")
    p.add_argument("--card", default="docs/model.md", metavar="PATH",
                   help="write the model card here (default docs/model.md; '' for none)")
    p.add_argument("--linear-precision", default="bfloat16", choices=PRECISIONS)
    p.add_argument("--neural-precision", default="float16", choices=PRECISIONS)
    p.add_argument("--jobs", type=positive_int, default=2, help="parsing threads while scoring (default 2)")
    p.add_argument("--ptb", metavar="DIR", help="score on a full LDC treebank's dev / test sections")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true", help="compare the released files with their record; no packing")
    g.add_argument("--rescore", action="store_true",
                   help="score the release again with this plgraph (its files checked against the record first) and "
                        "record the new scores; no packing")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help="show progress bars")
    p.set_defaults(func=cmd_release)
