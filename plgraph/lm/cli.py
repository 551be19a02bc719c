"""``python -m plgraph lm ...``: train, evaluate and export language models.

::

    python -m plgraph lm train --order 3 --method int-mkn TRAIN --model M
    python -m plgraph lm train --order 3 --method plre TRAIN --model M [--term 2:0.5:0.002 ...]
    python -m plgraph lm eval --model M TEST [--json]
    python -m plgraph lm export-arpa --model M OUT.arpa
    python -m plgraph lm prepare-brown [DIR]
"""
from __future__ import annotations

import argparse
import json
import sys

from ..files.atomic import check_writable
from ..errors import InputError


def _term(text: str):
    from .plre import Term

    try:
        level, power, rank = text.split(":")
        return Term(int(level), float(power), float(rank))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a term is LEVEL:POWER:RANK, e.g. 3:0.5:0.005 (got {text!r})") from None


def cmd_train(args) -> int:
    from .plre import DEFAULT_CONFIG, PLREConfig
    from .train import train

    plre = None
    if args.method == "plre":
        try:
            plre = PLREConfig(tuple(args.term) if args.term else DEFAULT_CONFIG.terms,
                              args.discount or DEFAULT_CONFIG.discount,
                              DEFAULT_CONFIG.iterations if args.iterations is None else args.iterations,
                              DEFAULT_CONFIG.seed if args.seed is None else args.seed,
                              DEFAULT_CONFIG.restarts if args.restarts is None else args.restarts)
        except ValueError as err:
            raise InputError(f"bad PLRE options: {err}") from None
    elif args.term or args.discount or args.iterations is not None or args.seed is not None \
            or args.restarts is not None:
        raise InputError("--term, --discount, --iterations, --restarts and --seed apply to --method plre only")
    if args.method == "plre" and args.order < 2:
        raise InputError("PLRE needs --order 2 or more")
    above = [t for t in args.term or () if t.level > args.order]
    if above:
        t = above[0]
        raise InputError(f"--term {t.level}:{t.power:g}:{t.rank:g} is a level-{t.level} term but the model has "
                         f"--order {args.order}: use --order {max(t.level for t in above)} or drop the term")
    if args.min_count < 1:
        raise InputError("--min-count must be 1 or more")
    check_writable(args.model)  # before training, not after it
    model = train(args.train, order=args.order, method=args.method, min_count=args.min_count, plre=plre,
                  progress=args.progress)
    model.save(args.model)
    sizes = "/".join(str(model.n_entries(k)) for k in range(1, model.order + 1))
    secs = model.header["train_seconds"]
    print(f"{args.method} order {model.order}: vocabulary {len(model.vocab)}, n-grams {sizes}, "
          f"trained in {secs['total']:.2f} s -> {args.model}")
    return 0


def cmd_eval(args) -> int:
    from .model import load_model

    model = load_model(args.model)
    ev = model.evaluate(args.test)
    if args.json:
        print(json.dumps(ev.to_json_dict()))
    else:
        print(f"perplexity {ev.perplexity:.4f}  tokens {ev.tokens}  oov {ev.oov}  "
              f"tokens/s {ev.tokens_per_s:,.0f}  ({model.method}, order {model.order})")
    return 0


def cmd_export_arpa(args) -> int:
    from .arpa import write_arpa
    from .model import load_model

    model = load_model(args.model)
    sizes = write_arpa(model, args.out, progress=args.progress)
    note = ""
    if len(sizes) < model.order:
        note = (f" (order-{model.order} model whose training text has no {len(sizes) + 1}-grams: "
                f"written as order {len(sizes)}, the same probabilities)")
    print(f"wrote {args.out}: " + ", ".join(f"{n} {k}-grams" for k, n in sizes.items()) + note,
          file=sys.stderr if args.out == "-" else sys.stdout)
    return 0


def cmd_prepare_brown(args) -> int:
    from .corpora import brown_protocol

    paths = brown_protocol(args.dir)
    for name, p in paths.items():
        print(f"{name}: {p}")
    return 0


def register(subparsers) -> None:
    """Add the ``lm`` command and its sub-commands."""
    from .model import METHODS

    lm = subparsers.add_parser("lm", help="n-gram language models: Kneser-Ney family and PLRE",
                               description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = lm.add_subparsers(dest="lm_command", required=True)

    p = sub.add_parser("train", help="train a model on a text file (one sentence per line)")
    p.add_argument("train", metavar="TRAIN", help="training text")
    p.add_argument("--model", required=True, metavar="M", help="model file to write (.npz)")
    p.add_argument("--order", type=int, default=3, choices=range(1, 6), metavar="{1..5}",
                   help="n-gram order (default 3)")
    p.add_argument("--method", default="int-mkn", choices=METHODS, help="estimator (default int-mkn)")
    p.add_argument("--min-count", type=int, default=1, metavar="K",
                   help="training words seen fewer than K times become <unk> (2: singletons; default 1)")
    p.add_argument("--term", type=_term, action="append", metavar="LEVEL:POWER:RANK",
                   help="PLRE low-rank term (repeatable); RANK is a fraction of the vocabulary size. "
                        "Default: the tuned 2:0.5:0.002 and 3:0.5:0.0002 (see plgraph.lm.plre)")
    p.add_argument("--discount", choices=["kn", "mkn"], help="PLRE base discounts (default kn)")
    p.add_argument("--iterations", type=int, help="PLRE multiplicative-update iterations per fit (default 40)")
    p.add_argument("--restarts", type=int, help="PLRE: independently started fits averaged per term (default 8)")
    p.add_argument("--seed", type=int, help="PLRE factor start values")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help="progress bars")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("eval", help="perplexity of a model on a text file")
    p.add_argument("test", metavar="TEST", help="text to score")
    p.add_argument("--model", required=True, metavar="M")
    p.add_argument("--json", action="store_true",
                   help='print {"perplexity": .., "tokens": .., "oov": .., "tokens_per_s": ..}')
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("export-arpa", help="write a Kneser-Ney model as an ARPA file")
    p.add_argument("out", metavar="OUT.arpa")
    p.add_argument("--model", required=True, metavar="M")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help="progress bars")
    p.set_defaults(func=cmd_export_arpa)

    p = sub.add_parser("prepare-brown", help="write the Brown protocol's train/valid/test files (notes §5)")
    p.add_argument("dir", nargs="?", help="output folder (default: the plgraph cache)")
    p.set_defaults(func=cmd_prepare_brown)


if __name__ == "__main__":  # pragma: no cover
    from ..cli import main

    sys.exit(main(["lm", *sys.argv[1:]]))
