"""``python -m plgraph text {train-splitter,evaluate,tokenize}``: raw text in.

::

    python -m plgraph text train-splitter [--ptb DIR] [--out PATH]   # Punkt on the train split's text
    python -m plgraph text evaluate [--split dev] [--json PATH]      # tokens and sentences vs the treebank
    python -m plgraph text tokenize IN [--doc] [--wrapped]           # one tokenised sentence a line

Without ``--out``, ``train-splitter`` rewrites the splitter plgraph ships
(:data:`plgraph.text.sentences.SPLITTER_FILE`).
"""
from __future__ import annotations

import sys

from ..cliargs import progress_of


def _documents(split: str, ptb, args):
    from ..corpora import corpus
    from .accuracy import documents

    return documents(corpus(split, ptb, progress=progress_of(args)))


def cmd_train(args) -> int:
    from .sentences import SPLITTER_FILE, SentenceSplitter

    docs = _documents("train", args.ptb, args)
    source = f"the train split of {'the PTB sample' if args.ptb is None else 'the treebank'} ({len(docs)} files)"
    splitter = SentenceSplitter.train([[s.words for s in d] for d in docs.values()], source)
    out = args.out or SPLITTER_FILE
    splitter.save(out)
    print(f"Punkt splitter trained on {source}: {len(splitter.abbreviations)} abbreviations, "
          f"{len(splitter.collocations)} collocations, {len(splitter.sentence_starters)} sentence starters -> {out}")
    return 0


def cmd_evaluate(args) -> int:
    from ..corpora import corpus
    from ..files.atomic import atomic_json, check_writable
    from .accuracy import splitting_accuracy, tokenisation_accuracy
    from .sentences import SentenceSplitter

    if args.json:
        check_writable(args.json)
    splitter = SentenceSplitter.load(args.splitter)
    sentences = list(corpus(args.split, args.ptb, progress=progress_of(args)))
    tok = tokenisation_accuracy(sentences, splitter)
    split = splitting_accuracy(sentences, splitter, wrapped=args.wrapped)
    print(f"split {args.split}: tokenised exactly {tok['exact']}/{tok['sentences']} sentences ({tok['percent']:.2f}%); "
          f"found with exactly their tokens in running text {split['found']}/{split['sentences']} "
          f"({split['percent']:.2f}%, {len(split['files'])} files)")
    for m in tok["mismatches"]:
        print(f"  tokens differ in {m['id']}: " + " ".join(m["got"]))
    for m in split["missed"]:
        print(f"  not found: {m['id']}: " + " ".join(m["gold"]))
    if args.json:
        atomic_json(args.json, {"split": args.split, "tokenisation": tok, "splitting": split})
    return 0


def cmd_tokenize(args) -> int:
    from .sentences import SentenceSplitter

    splitter = SentenceSplitter.load(args.splitter)
    with (sys.stdin if args.input == "-" else open(args.input, encoding="utf-8")) as f:
        text = f.read()
    if args.doc:
        sentences = splitter.sentences(text, wrapped=args.wrapped)
    else:
        sentences = [t for t in (splitter.tokenize(line) for line in text.splitlines()) if t]
    sys.stdout.write("".join(" ".join(s) + "\n" for s in sentences))
    return 0


def register(sub) -> None:
    import argparse

    t = sub.add_parser("text", help="raw text in: PTB tokenisation and sentence splitting, and their accuracy",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ts = t.add_subparsers(dest="text_command", required=True)
    a = ts.add_parser("train-splitter", help="train the Punkt sentence splitter on the train split's text")
    a.add_argument("--ptb", metavar="DIR", help="full LDC treebank (train: sections 02-21)")
    a.add_argument("--out", metavar="PATH", help="the splitter's JSON file (default: the one plgraph ships)")
    a.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    a.set_defaults(func=cmd_train)
    e = ts.add_parser("evaluate", help="tokenisation and sentence splitting against a split's treebank sentences")
    e.add_argument("--split", default="dev", choices=["train", "dev", "test"])
    e.add_argument("--ptb", metavar="DIR")
    e.add_argument("--splitter", metavar="PATH", help="a splitter's JSON file (default: the one plgraph ships)")
    e.add_argument("--wrapped", action="store_true", help="read the running text as hard-wrapped lines")
    e.add_argument("--json", metavar="PATH", help="also write the figures and every miss as JSON")
    e.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    e.set_defaults(func=cmd_evaluate)
    k = ts.add_parser("tokenize", help="raw text to one PTB-tokenised sentence a line")
    k.add_argument("input", metavar="IN", help="a text file (- for standard input)")
    k.add_argument("--doc", action="store_true", help="running text: find the sentences (default: one a line)")
    k.add_argument("--wrapped", action="store_true",
                   help="with --doc: lines are hard-wrapped; blank lines end paragraphs")
    k.add_argument("--splitter", metavar="PATH", help="a splitter's JSON file (default: the one plgraph ships)")
    k.set_defaults(func=cmd_tokenize)


__all__ = ["register", "cmd_train", "cmd_evaluate", "cmd_tokenize"]
