"""``python -m plgraph pruners train|stats``."""
from __future__ import annotations

import json
import sys
import time

from ..cliargs import finite_float, positive_int, progress_of


def _graphs(split, ptb, progress):
    from ..corpora import Corpus

    c = Corpus(split, ptb, progress=progress)
    return c.graphs(), c.skipped


def _train(args) -> int:
    """Check the folder is writable and free (not locked by another run) before the
    corpora are read, then train (see :func:`plgraph.pruners.training.train_pruners`)."""
    from ..files.atomic import check_writable_dir
    from ..files.lock import folder_lock

    from ..dist.cli import client_for

    check_writable_dir(args.model_dir)
    with folder_lock(args.model_dir, "pruner model folder"), client_for(args) as client:
        return _train_locked(args, client)


def _train_locked(args, client=None) -> int:
    from dataclasses import fields

    from .model import PrunerConfig

    from .training import train_pruners

    cfg = PrunerConfig()
    overrides = {f.name: getattr(args, f.name) for f in fields(PrunerConfig)
                 if getattr(args, f.name, None) is not None}
    cfg = PrunerConfig(**{**cfg.__dict__, **overrides})
    start = time.perf_counter()
    progress = progress_of(args)
    train, bad_tr = _graphs("train", args.ptb, progress)
    dev, bad_dv = _graphs("dev", args.ptb, progress)
    if args.limit:
        train = train[: args.limit]
    for b in bad_tr + bad_dv:
        print(f"skipped {b}", file=sys.stderr)
    print(f"training on {len(train)} sentences, tuning on {len(dev)} ({args.ptb or 'NLTK PTB sample'})")
    train_pruners(train, dev, args.model_dir, cfg, resume=args.resume, progress=progress, log=print, client=client)
    print(f"models, thresholds and training curves in {args.model_dir} ({time.perf_counter() - start:.0f} s)")
    return 0


def _stats(args) -> int:
    from ..files.atomic import atomic_text
    from .measure import pruning_stats
    from .model import Pruners

    if args.json:
        from ..files.atomic import check_writable

        check_writable(args.json)
    pr = Pruners.load(args.model_dir)
    from ..parser.scoring.labels import LabelVocab

    graphs, bad = _graphs(args.split, args.ptb, progress_of(args))
    vocab = LabelVocab.from_graphs(_graphs("train", args.ptb, progress_of(args))[0])   # the thesis's edge labels
    doc = pruning_stats(pr, graphs, curves=args.curves, label_vocab=vocab)
    doc["split"] = args.split
    doc["seed_operating_points"] = {"edges_kept_pct": 0.302, "cells_kept_pct": 53.0, "traces_kept_pct": 6.0,
                                    "spines_kept_pct": 6.5, "edges_gold_recall_pct": 99.0,
                                    "spines_gold_recall_pct": 99.5, "source": "thesis, WSJ section 22"}
    print(f"{args.split}: {doc['sentences']} sentences ({doc['sentences_per_second']} sentences/s)")
    rows = [("structural edges, seed's definition", doc["edges_kept_seed_pct"], doc["edges_gold_recall_pct"],
             "0.302% / 99%"),
            ("  arc pass labels", doc["edges_kept_pct"], doc["edges_gold_recall_pct"], ""),
            ("  (child, parent) pairs", doc["edge_pairs_kept_pct"], doc["edges_gold_recall_pct"], ""),
            ("chart cells", doc["cells_kept_pct"], None, "53.0%"),
            ("traces (pair, type)", doc["traces_kept_pct"], doc["traces_gold_recall_pct"], "6.0%"),
            ("  of POS-allowed candidates", doc["traces_kept_of_candidates_pct"], None, ""),
            ("spines (of all spines)", doc["spines_kept_pct"], doc["spines_gold_recall_pct"], "6.5% / 99.5%"),
            ("  of POS candidates", doc["spines_kept_of_candidates_pct"], doc["spines_reachable_recall_pct"], "")]
    print(f"{'pruner':36s} {'kept %':>8s} {'gold kept %':>12s}   seed (WSJ 22)")
    for name, kept, rec, thesis in rows:
        print(f"{name:36s} {kept:8.3f} {'' if rec is None else f'{rec:12.2f}':>12s}   {thesis}")
    print(f"pass 1: UAS {doc['arc_uas']} LAS {doc['arc_las']}; spine accuracy {doc['spine_acc']}; "
          f"trace classifier P {doc['trace_p']} R {doc['trace_r']} F {doc['trace_f']}")
    print("thresholds:", json.dumps(doc["thresholds"]))
    if args.json:
        atomic_text(args.json, json.dumps(doc, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


def register(sub) -> None:
    from ..dist.cli import add_dask_options

    p = sub.add_parser("pruners", help="the graph parser's coarse passes: train them, measure pruning")
    ps = p.add_subparsers(dest="pruners_command", required=True)
    t = ps.add_parser("train", help="train the arc pass, trace and spine classifiers; tune thresholds on dev")
    t.add_argument("--model-dir", required=True, metavar="M")
    t.add_argument("--ptb", metavar="DIR", help="full LDC treebank (train 02-21, dev 22)")
    t.add_argument("--resume", action="store_true", help="continue from the checkpoints in --model-dir")
    t.add_argument("--limit", type=positive_int, help="train on the first N sentences only (quick runs)")
    t.add_argument("--progress", action="store_true", default=None)
    add_dask_options(t, chunks=None)
    for name in ("spine_epochs", "trace_epochs", "arc_epochs", "spine_batch", "trace_batch", "arc_batch",
                 "threads"):
        t.add_argument("--" + name.replace("_", "-"), dest=name, type=positive_int, default=None)
    t.add_argument("--seed", dest="seed", type=int, default=None)
    for name in ("spine_eta", "spine_C", "trace_eta", "trace_C", "arc_eta", "arc_C", "arc_recall", "spine_recall",
                 "trace_prob", "trace_rank"):
        t.add_argument("--" + name.replace("_", "-"), dest=name, type=finite_float, default=None)
    t.set_defaults(func=_train)
    s = ps.add_parser("stats", help="kept fraction against gold recall for each pruner")
    s.add_argument("--model-dir", required=True, metavar="M")
    s.add_argument("--split", default="dev", choices=["train", "dev", "test", "all"])
    s.add_argument("--ptb", metavar="DIR")
    s.add_argument("--json", metavar="PATH")
    s.add_argument("--curves", action="store_true", help="also compute recall vs kept curves (in the JSON)")
    s.add_argument("--progress", action="store_true", default=None)
    s.set_defaults(func=_stats)
