"""``python -m plgraph demo``: parse the demo's three sentences with traces (``make demo``).

::

    python -m plgraph demo [--model-dir M] [--scorer linear|neural] [--svg PATH]

Parses :data:`plgraph.parser.parsing.demo.DEMO_SENTENCES` from raw text (the quick-start
sentence, a wh-question, a passive, raising with control) with the released model by
default, prints their PTB trees with null elements and co-indices and their trace
records, and draws the quick-start sentence's graph into ``PATH`` (default
``figures/demo_parse.svg``, the picture of the README's quick start).
"""
from __future__ import annotations

import argparse
import sys


def cmd_demo(args) -> int:
    from ...files.atomic import atomic_text
    from ...viz import render_svg
    from ..parsing.demo import demo_text, run_demo
    from .parse import scorers_of, use_released_model

    released = use_released_model(args)
    scorer = scorers_of(args)[0]
    if released:
        print(f"the released model (python -m plgraph parse uses it without --model-dir); --scorer "
              f"{'linear' if scorer == 'neural' else 'neural'} for the other scorer")
    run = run_demo(args.model_dir, scorer)
    sys.stdout.write(demo_text(run))
    if args.svg:
        atomic_text(args.svg, render_svg(run.items[0][1].graph))
        print(f"\nthe first sentence's graph (spines, structural and trace edges) -> {args.svg}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("demo", help="parse four raw sentences with traces (embedded question, wh-question, passive, "
                                    "raising/control) with the released model", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model-dir", default=None, metavar="M",
                   help="a folder of `python -m plgraph parser train` (default: plgraph's released model)")
    p.add_argument("--scorer", choices=["linear", "neural"], default=None,
                   help="default: neural when M holds a neural model and PyTorch is installed, else linear")
    p.add_argument("--svg", default="figures/demo_parse.svg", metavar="PATH",
                   help="draw the first sentence's graph here (default figures/demo_parse.svg; '' for none)")
    p.set_defaults(func=cmd_demo, dask=None)
