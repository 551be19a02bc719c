"""Benchmark: the whole parsing cascade of a trained model.

For the dev sentences of at most the model's ``max_words`` words, one sentence at a time:
pass 1 and the classifiers (``Pruners.prune``), pass 2 (candidates, decode with outside
scores), pass 3 (candidates, decode; once more under relaxed pruning when it finds no
parse) -- timed per stage on one core (warm: a first sentence is parsed before timing), then the whole cascade over the sentences in two
threads pinned to two cores (wall time).  Then pass 3 alone at other beam and cube
depths with its dev scores, so the speed is read at a stated accuracy.  The seed's
figure (4.3 s a sentence, published, WSJ section 23) is printed beside; no peer runs here.

    python bench/bench_cascade.py --model-dir M [--limit N] [--settings 100:10000,100:2000,100:500,50:500]

``M``: a folder of ``python -m plgraph parser train`` with passes 2 and 3.
"""
from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from _util import pin_cores

THESIS_SECONDS = 4.3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--limit", type=int, default=0, help="only the first N dev sentences (0: all)")
    ap.add_argument("--settings", default="100:10000,100:2000,100:500,50:500",
                    help="pass-3 beam:cube pairs for the accuracy table")
    args = ap.parse_args()

    import plgraph
    from plgraph.encoding import encode_graph, encode_tokens
    from plgraph.parser.scoring import pass3 as P3
    from plgraph.parser.training.cascade import Prepared3, evaluate_pass3
    from plgraph.parser.model import ParserModel
    from plgraph.parser.scoring.pass2 import Pass2Config, Pass2Model, pass2_pruning, pass2_sentence

    m = ParserModel.load(args.model_dir)
    vocab, rules, pr = m.vocab, m.rules, m.pruners
    inv = P3.SpineInventory(pr.spine.labels.items, vocab)
    model2, read2 = m.pass_model("pass2", Pass2Config, lambda c: Pass2Model(vocab, c))
    model3, read3 = m.pass_model("pass3", P3.Pass3Config, lambda c: P3.Pass3Model(vocab, inv, c))
    cfg3 = model3.config
    graphs = [g for g in plgraph.corpus("dev").graphs() if len(g) <= m.max_words]
    if args.limit:
        graphs = graphs[:args.limit]
    types = pr.trace.labels.index
    labels = pr.spine.labels.items

    def cascade(g, times=None):
        """Parse one sentence through every pass; returns (pass-3 sentence, parsed, its
        sources): the decode itself (its chart) is dropped here, so that memory does not
        grow with the sentences."""
        marks = [time.perf_counter()]
        tokens = encode_tokens([encode_graph(g)], pr.normaliser, pr.tags)
        pruned = pr.prune(g)
        marks.append(time.perf_counter())
        s2 = pass2_sentence(g, pruned, vocab, types, 0, gold=True, protect_gold=False)
        out2 = pass2_pruning(model2, s2, tokens, read2, rules)
        marks.append(time.perf_counter())
        s3 = P3.pass3_sentence(g, s2, out2, pruned, inv, vocab, labels, cfg3, gold=True, protect_gold=False)
        d = model3.decode(s3, tokens, read3, rules)
        if not d.result.parsed:          # no parse: once more under relaxed pruning
            s3 = P3.pass3_sentence(g, s2, out2, pruned, inv, vocab, labels, P3.relaxed(cfg3), gold=True, protect_gold=False)
            d = model3.decode(s3, tokens, read3, rules)
        marks.append(time.perf_counter())
        if times is not None:
            times.append(np.diff(marks))
        return s3, d.result.parsed, (g, s2, out2, pruned)

    pin_cores(1)
    cascade(graphs[0])                      # warm: numba's caches, first calls
    times = []
    start = time.perf_counter()
    done = [cascade(g, times) for g in graphs]
    one = time.perf_counter() - start
    t = np.array(times)
    failed = sum(int(not parsed) for _, parsed, _ in done)
    pin_cores(2)
    from plgraph.progress import thread_imap

    start = time.perf_counter()
    for _ in thread_imap(cascade, graphs, 2):
        pass
    two = time.perf_counter() - start
    n = len(graphs)
    print(f"{n} dev sentences of at most {m.max_words} words; pass 3: beam {cfg3.beam}, cube {cfg3.cube}, "
          f"{cfg3.max_spines} spines a word, spine-top check {'on' if cfg3.spine_top_check else 'off'}")
    print(f"\n{'stage (one core)':36s} {'s/sentence':>11s} {'share':>7s}")
    for name, col in (("pass 1 + trace/spine classifiers", 0), ("pass 2 (candidates, outside)", 1),
                      ("pass 3 (candidates, decode)", 2)):
        print(f"{name:36s} {t[:, col].mean():11.4f} {100 * t[:, col].sum() / t.sum():6.1f}%")
    print(f"{'whole cascade, one core':36s} {one / n:11.4f}")
    print(f"{'whole cascade, two cores (wall)':36s} {two / n:11.4f}")
    print(f"{'seed (published, WSJ 23)':36s} {THESIS_SECONDS:11.4f}")
    print(f"pass 3 found no parse for {failed} of {n} sentences, also under relaxed pruning (scored on pass 2's "
          f"graph below)")

    pin_cores(1)
    from dataclasses import replace

    tokens = encode_tokens([encode_graph(g) for g in graphs], pr.normaliser, pr.tags)
    base = [int(b) for b in tokens.tok_off[:n]]
    corpus = Prepared3([replace(s, base=base[i]) for i, (s, _, _) in enumerate(done)], tokens,
                       sources=[(g, replace(s2, base=base[i]), o, p) for i, (_, _, (g, s2, o, p)) in enumerate(done)],
                       context=(inv, vocab, labels, cfg3))
    print(f"\n{'pass 3 beam:cube':>16s} {'s/sent':>7s} {'UAS':>6s} {'LAS':>6s} {'spines':>6s} {'trace P':>7s} "
          f"{'trace R':>7s} {'failed':>6s} {'items/sent':>10s}")
    for setting in args.settings.split(","):
        beam, cube = (int(x) for x in setting.split(":"))
        model = model3.with_config(replace(cfg3, beam=beam, cube=cube))
        r = evaluate_pass3(model, read3, corpus, rules, threads=1)
        print(f"{setting:>16s} {1 / r['sentences_per_second']:7.3f} {r['uas']:6.2f} {r['las']:6.2f} "
              f"{r['spine_acc']:6.2f} {r['trace_p']:7.2f} {r['trace_r']:7.2f} {r['failed']:6d} "
              f"{r['items_per_sentence']:10.0f}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS {rss:.0f} MB (the model, the coarse models and parsing)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
