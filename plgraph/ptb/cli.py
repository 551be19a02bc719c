"""``python -m plgraph synthetic-treebank``: the PTB sample laid out as an LDC treebank
(:func:`plgraph.ptb.synthetic.write_synthetic_treebank`), for exercising ``--ptb DIR``."""
from __future__ import annotations

from ..cliargs import positive_int


def cmd_synthetic_treebank(args) -> int:
    """``synthetic-treebank``: :func:`plgraph.ptb.synthetic.write_synthetic_treebank`."""
    from .synthetic import write_synthetic_treebank

    done = write_synthetic_treebank(args.out, args.copies)
    print(done.summary())
    return 0


def register(sub) -> None:
    """Add ``synthetic-treebank`` to the sub-commands ``sub``."""
    p = sub.add_parser("synthetic-treebank",
                       help="lay out the PTB sample as an LDC treebank (sections 02-23) at COPIES times its train "
                            "split, for exercising --ptb DIR; the accuracy of a model trained on it means nothing")
    p.add_argument("out", metavar="OUT", help="a new folder")
    p.add_argument("--copies", type=positive_int, default=4,
                   help="copies of the sample's train files in sections 02-21 (default 4; at most 14)")
    p.set_defaults(func=cmd_synthetic_treebank)



__all__ = ["register", "cmd_synthetic_treebank"]
