"""Benchmark: training and decoding pass 2.

Trains pass 2 on the sample's train split (sentences of at most ``--max-words`` words) with
the released defaults for ``--epochs`` epochs, once per label back-off and thread count (the
process pinned to that many cores; the model is the same for every count), and prints per
run the epoch time, the dev scores, dev decoding speed, the arithmetic checks and the peak
RSS.

    python bench/bench_pass2.py [--pruners DIR] [--epochs 1] [--threads 1,2] [--max-words 40]
                                [--backoff kind,none,kind+cats,kind+nodes]

Without ``--pruners`` the notebooks' cached full coarse models are used (trained first if
missing, ~7 minutes on 2 cores).
"""
from __future__ import annotations

import argparse
import resource
import sys
import time

from _util import pin_cores


def _train(pdir, train, dev, vocab, rules, config, threads: int, max_words: int) -> list[dict]:
    """Pass 2 trained as ``parser train`` trains it (:func:`plgraph.parser.training.passes.train_pass`)
    into a temporary model folder; its per-epoch records."""
    import tempfile

    from plgraph.learn.loop import training_folder
    from plgraph.parser.model import ParserFolder, pruners_fingerprint
    from plgraph.parser.scoring.pass2 import Pass2Model, batch_gradient
    from plgraph.parser.training.corpus import evaluate_pass2
    from plgraph.parser.training.passes import train_pass

    with tempfile.TemporaryDirectory(prefix="bench-pass2-") as tmp, training_folder(tmp):
        folder = ParserFolder.create(tmp, vocab=vocab, rules=rules, rules_info={}, conversion=None, pruners_dir=pdir,
                                     pruners_print=pruners_fingerprint(pdir), max_words=max_words, limit=None, seed=0)
        model = Pass2Model(vocab, config)
        model.take_positive(train.sents, train.tokens)
        res = train_pass(folder, "pass2", model, config, train, dev, rules, batch_gradient, evaluate_pass2,
                         threads=threads, progress=False)
    return res.rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pruners", help="a coarse-model folder (python -m plgraph pruners train)")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--max-words", type=int, default=40)
    ap.add_argument("--backoff", default="kind", help="comma-separated label back-offs (Pass2Config.backoff)")
    args = ap.parse_args()

    import plgraph
    from plgraph.parser.scoring.labels import LabelVocab
    from plgraph.parser.scoring.pass2 import Pass2Config
    from plgraph.parser.training.corpus import prepare_corpus
    from plgraph.pruners.model import Pruners
    from plgraph.pruners.notebook import notebook_models, notebook_models_folder
    from plgraph.rules import count_rules

    pr = Pruners.load(args.pruners) if args.pruners else notebook_models(quick=False)
    pdir = args.pruners or str(notebook_models_folder(False))
    start = time.perf_counter()
    train_c, dev_c = plgraph.corpus("train"), plgraph.corpus("dev")
    vocab = LabelVocab.from_graphs(train_c.graphs())
    rules = count_rules(train_c.sentences()).pruned(1)
    train = prepare_corpus(train_c.graphs(), pr, vocab, training=True, rules=rules, max_words=args.max_words)
    dev = prepare_corpus(dev_c.graphs(), pr, vocab, training=False, max_words=args.max_words)
    prep = time.perf_counter() - start
    print(f"prepared {len(train.sents)} train and {len(dev.sents)} dev sentences in {prep:.1f} s")
    rows = []
    for backoff in args.backoff.split(","):
        for threads in [int(t) for t in args.threads.split(",")]:
            pin_cores(threads)
            history = _train(pdir, train, dev, vocab, rules, Pass2Config(epochs=args.epochs, backoff=backoff),
                             threads, args.max_words)
            for rec in history:
                rows.append((backoff, threads, rec))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\n{'backoff':>10} {'threads':>7} {'epoch':>5} {'train s':>8} {'dev UAS':>8} {'dev LAS':>8} {'trace P':>8} "
          f"{'trace R':>8} {'dev sent/s':>10} {'search err':>10} {'mismatch':>8}")
    for backoff, threads, r in rows:
        print(f"{backoff:>10} {threads:>7} {r['epoch']:>5} {r['train_seconds']:>8.1f} {r['dev_uas']:>8.2f} "
              f"{r['dev_las']:>8.2f} {r['dev_trace_p']:>8.2f} {r['dev_trace_r']:>8.2f} "
              f"{r['dev_sentences_per_second']:>10.1f} "
              f"{r['search_errors']:>10} {r['mismatches']:>8}")
    print(f"\npeak RSS {rss:.0f} MB (preparation, training and decoding in one process)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
