"""Benchmark: the dependency parser's speed targets on UD English-EWT.

* parsing EWT dev with a trained first-order and second-order model, on **one core**
  (the script pins itself), numba kernels warm; the time covers everything between
  sentences in memory and parsed sentences in memory (atoms/feature extraction,
  scoring, Eisner, pseudo-projective decoding, building the output sentences), not
  file I/O;
* one first-order training epoch on EWT train with **2 threads** (default settings,
  after a warm-up batch), and the building of the feature dictionary;
* the size of the model files.

Models come from ``dep train`` runs (``--model1``/``--model2``); a missing model is
trained here first with the defaults (and the wall time of that run reported).

    python bench/bench_dep.py --model1 runs/ewt1 --model2 runs/ewt2 [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time

from _util import pin_cores


def _cpu():
    t = os.times()
    return t.user + t.system


def _load():
    try:
        return os.getloadavg()[0]
    except OSError:  # pragma: no cover
        return float("nan")


def _size(folder):
    return sum(os.path.getsize(os.path.join(folder, f)) for f in ("model.npz", "model.json"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model1", help="trained first-order model folder")
    parser.add_argument("--model2", help="trained second-order model folder")
    parser.add_argument("--repeat", type=int, default=3, help="parse timings: best of N")
    parser.add_argument("--skip-epoch", action="store_true", help="do not time a training epoch")
    args = parser.parse_args()

    import numba
    import numpy as np

    from plgraph.data import find_corpus
    from plgraph.dep.conll import read_conll
    from plgraph.dep.evaluate import evaluate
    from plgraph.dep.model import DepConfig, DepModel
    from plgraph.dep.train import DEFAULT_BATCH, DEFAULT_LEARNER, DEFAULT_LEARNER_OPTIONS, _BatchDecoder, train
    from plgraph.learn import make_learner, run_epoch

    folder = find_corpus("ud-english-ewt")
    train_sents = read_conll(folder / "en_ewt-ud-train.conllu")
    dev = read_conll(folder / "en_ewt-ud-dev.conllu")
    rows = []

    models = {}
    for order, path in ((1, args.model1), (2, args.model2)):
        if path and os.path.exists(os.path.join(path, "model.json")):
            models[order] = DepModel.load(path), path, None
            continue
        path = path or f"bench-ewt-order{order}"
        start = time.perf_counter()
        train(train_sents, dev, path, DepConfig(order=order), threads=2, progress=False)
        models[order] = DepModel.load(path), path, time.perf_counter() - start

    # ---- parsing, one core ------------------------------------------------------------------
    pin_cores(1)
    numba.set_num_threads(1)
    n_words = sum(len(s) for s in dev)
    for order in (1, 2):
        model, path, _ = models[order]
        model.parse(dev[:20])                       # JIT warm-up (or cache load)
        best = best_cpu = float("inf")
        parsed = None
        load = _load()
        for _ in range(args.repeat):
            start, c0 = time.perf_counter(), _cpu()
            parsed = model.parse(dev)
            best = min(best, time.perf_counter() - start)
            best_cpu = min(best_cpu, _cpu() - c0)
        sc = evaluate(dev, parsed)
        target = 1000 if order == 1 else 300
        rows.append((f"parse EWT dev, order {order}, 1 core", f"{len(dev)} sent.",
                     f"{best:.2f} s wall, {best_cpu:.2f} s CPU",
                     f"{len(dev) / best:,.0f} sent/s wall, {len(dev) / best_cpu:,.0f} CPU ({n_words / best:,.0f} "
                     f"words/s)", f">= {target:,} sent/s",
                     f"UAS {sc.uas:.2f} LAS {sc.las:.2f}; load avg {load:.1f}"))

    # ---- a training epoch, two threads --------------------------------------------------------
    pin_cores(2)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    if not args.skip_epoch:
        start = time.perf_counter()
        model, enc, _ = DepModel.build(train_sents, DepConfig(order=1))
        t_build = time.perf_counter() - start
        lrn = make_learner(DEFAULT_LEARNER, model.n_weights, **DEFAULT_LEARNER_OPTIONS[DEFAULT_LEARNER])
        dec = _BatchDecoder(model, enc, lrn, "hamming")
        dec(np.arange(4))                           # JIT warm-up (or cache load)
        load = _load()
        start, c0 = time.perf_counter(), _cpu()
        run_epoch(lrn, len(enc), dec, batch_size=DEFAULT_BATCH, rng=np.random.default_rng(0), progress=False)
        t_epoch = time.perf_counter() - start
        cpu_epoch = _cpu() - c0
        rows.append(("build features + dictionary (EWT train)", f"{len(train_sents)} sent.", f"{t_build:.1f} s", "",
                     "", f"{model.n_features:,} features, {model.n_weights:,} weights"))
        rows.append(("training epoch, order 1, 2 threads", f"{len(train_sents)} sent.",
                     f"{t_epoch:.1f} s wall, {cpu_epoch:.1f} s CPU", f"{len(train_sents) / t_epoch:,.0f} sent/s",
                     "<= 30 s", f"{DEFAULT_LEARNER}, batch {DEFAULT_BATCH}; load avg {load:.1f} before"))
    for order in (1, 2):
        model, path, wall = models[order]
        info = model.info
        total = wall if wall is not None else info.get("train_seconds_total")
        rows.append((f"trained model, order {order}", f"epoch {info.get('epoch')}",
                     f"{total:.0f} s" if total else "?", "", "<= 300 s" if order == 1 else "",
                     f"{_size(path) / 1e6:.1f} MB on disk (target <= 200 MB)"))

    print(f"# plgraph dep benchmark -- {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}, numba {numba.__version__}, numpy {np.__version__}")
    widths = [max(len(str(r[i])) for r in rows + [("what", "size", "time", "rate", "target", "notes")])
              for i in range(6)]
    head = ("what", "size", "time", "rate", "target", "notes")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
