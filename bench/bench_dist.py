"""Benchmark: corpus jobs and training on Dask, with the serial
run measured in the same run as the peer.

1. ``parse``: the first ``--parse-limit`` test sentences (gold tags) through
   :func:`plgraph.parser.parsing.jobs.parse_chunk` (what ``parse --dask`` runs) on a
   ``LocalCluster`` of 1 and of 2 worker processes (one core each), chunks of
   ``--chunk-size``; peer: ``Parser.parse_many`` in this process on one core.  Workers load
   the model before the clock starts (their load time is printed apart).
2. ``dep parse``: UD English-EWT dev through :func:`plgraph.dep.cli.parse_task` on 1 and 2
   workers; peer: ``DepModel.parse`` in this process with 1 and 2 numba threads.
3. The scheduler's overhead: a task that does nothing, once per chunk (500 chunks,
   2 workers), and one training round trip (a batch whose decode does nothing: submit to
   both replicas, gather, concatenate).
4. Training: one epoch of ``dep train`` (PA, batch 8) on the first ``--dep-train``
   EWT sentences, in one process (1 and 2 numba threads) and on 2 workers, and the size of
   the summed sparse gradient a batch sends to each worker; one epoch each of the graph
   parser's passes 2 and 3 (``parser train --limit --parser-train``) the same three ways.
5. An estimate, from these measured figures, for WSJ 02-21 (39,832 sentences) on 32
   workers: parsing it, and one pass-3 training epoch (batch 10: at most 10 workers
   busy; a batch waits for its slowest sentence, estimated by resampling the measured
   per-sentence parse times of step 1, scaled by the model's pass-3 training time per
   sentence from ``M/curves.json``).

    python bench/bench_dist.py --model-dir runs/parser [--parse-limit 200] [--dep-model M]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import sys
import tempfile
import time

import numpy as np

from _util import pin_cores

WSJ_TRAIN = 39_832
WORKERS = 32


def _cluster(n):
    from distributed import Client, LocalCluster

    from plgraph.dist.cluster import WORKER_ENV

    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                           env=dict(WORKER_ENV))
    return cluster, Client(cluster)


def _noop(spec, chunk):
    return len(chunk)


class _NoDecode:
    """A replica decode that does nothing (the training round trip alone)."""

    def __init__(self, learner):
        self.learner = learner

    def __call__(self, batch):
        from plgraph.learn.learners import SparseGradient

        return SparseGradient(np.zeros(0, np.int64), np.zeros(0), 0.0)


def _warm_parser(spec, first):
    from plgraph.parser.parsing.jobs import parse_chunk

    start = time.perf_counter()
    parse_chunk(spec, [first])
    return time.perf_counter() - start


def _warm_dep(spec, first):
    from plgraph.dep.cli import parse_task

    start = time.perf_counter()
    parse_task(spec, [first])
    return time.perf_counter() - start


def bench_parse(args, rows, facts):
    import plgraph
    from plgraph.dist.chunks import cut, run_chunks
    from plgraph.parser.parsing.parser import Parser
    from plgraph.parser.parsing.jobs import parse_chunk, parse_spec

    sents = plgraph.corpus("test").sentences()[:args.parse_limit]
    items = [[list(s.graph.words), list(s.graph.tags), s.id] for s in sents]
    pin_cores(1)
    parser = Parser.load(args.model_dir, scorer="linear")
    parser.parse_result(items[0][0], items[0][1])
    start = time.perf_counter()
    results = list(parser.parse_many([tuple(i) for i in items], jobs=1))
    serial = time.perf_counter() - start
    facts["parse_seconds"] = [r.seconds for r in results]
    facts["parse_words"] = [len(r.words) for r in results]
    rows.append(("parse", "serial, 1 core (peer)", len(items), serial, ""))
    pin_cores(2)
    del parser
    spec = {**parse_spec(args.model_dir, 100), "to": "ptb", "root": "TOP"}
    for n in (1, 2):
        cluster, client = _cluster(n)
        try:
            loads = client.run(_warm_parser, spec, items[0])
            start = time.perf_counter()
            run = run_chunks(client, parse_chunk, spec, cut(items, args.chunk_size))
            wall = time.perf_counter() - start
            assert sum(len(p) for p in run.results) == len(items)
        finally:
            client.close()
            cluster.close()
        rows.append(("parse", f"Dask, {n} worker(s)", len(items), wall,
                     f"model load per worker {max(loads.values()):.1f} s"))


def _dep_model(args, tmp):
    from plgraph.data import find_corpus
    from plgraph.dep.conll import read_conll
    from plgraph.dep.train import train

    if args.dep_model:
        return args.dep_model
    ewt = find_corpus("ud-english-ewt")
    folder = os.path.join(tmp, "dep")
    train(read_conll(ewt / "en_ewt-ud-train.conllu"), None, folder, epochs=1, threads=2, prune_tolerance=None)
    return folder


def bench_dep_parse(args, rows, tmp):
    import numba

    from plgraph.data import find_corpus
    from plgraph.dep.cli import _model_stamp, parse_task
    from plgraph.dep.conll import read_conll
    from plgraph.dep.model import DepModel
    from plgraph.dist.chunks import cut, run_chunks

    folder = os.path.abspath(_dep_model(args, tmp))
    sents = read_conll(find_corpus("ud-english-ewt") / "en_ewt-ud-dev.conllu")
    model = DepModel.load(folder)
    model.parse(sents[:5])
    for threads in (1, 2):
        numba.set_num_threads(threads)
        start = time.perf_counter()
        model.parse(sents)
        rows.append(("dep parse", f"serial, {threads} numba thread(s) (peer)", len(sents),
                     time.perf_counter() - start, ""))
    items = [[s.comments, s.rows, s.words, s.source, s.line, s.index] for s in sents]
    spec = {"model": folder, "stamp": _model_stamp(folder)}
    for n in (1, 2):
        cluster, client = _cluster(n)
        try:
            client.run(_warm_dep, spec, items[0])
            start = time.perf_counter()
            run_chunks(client, parse_task, spec, cut(items, args.dep_chunk_size))
            rows.append(("dep parse", f"Dask, {n} worker(s), chunks of {args.dep_chunk_size}", len(sents),
                         time.perf_counter() - start, ""))
        finally:
            client.close()
            cluster.close()
    return folder


def bench_overhead(facts):
    from plgraph.dist.chunks import cut, run_chunks
    from plgraph.learn.replicas import ReplicatedDecoder
    from plgraph.learn.learners import make_learner

    cluster, client = _cluster(2)
    try:
        n = 500
        run_chunks(client, _noop, {}, cut(list(range(20)), 1))          # warm
        start = time.perf_counter()
        run_chunks(client, _noop, {}, cut(list(range(n)), 1))
        facts["chunk_overhead"] = (time.perf_counter() - start) / n
        lrn = make_learner("pa", 1000)
        with ReplicatedDecoder(client, _NoDecode, lrn) as rep:
            batch = np.arange(8)
            for _ in range(5):
                rep.batch_gradient(batch)
            start = time.perf_counter()
            for _ in range(200):
                rep.batch_gradient(batch)
            facts["round_trip"] = (time.perf_counter() - start) / 200
    finally:
        client.close()
        cluster.close()


def bench_train(args, rows, facts):
    import numba

    from plgraph.data import find_corpus
    from plgraph.dep.conll import read_conll
    from plgraph.dep.train import train
    from plgraph.learn.replicas import ReplicatedDecoder

    sents = read_conll(find_corpus("ud-english-ewt") / "en_ewt-ud-train.conllu")[:args.dep_train]
    for threads in (1, 2):
        numba.set_num_threads(threads)
        res = train(sents, None, None, epochs=1, threads=threads, prune_tolerance=None)
        rows.append(("dep train, 1 epoch", f"serial, {threads} numba thread(s) (peer)", len(sents),
                     res.history[-1]["train_seconds"], ""))
    sizes = []
    original = ReplicatedDecoder.batch_gradient

    def counting(self, batch):
        grad = original(self, batch)
        sizes.append(grad.idx.nbytes + grad.val.nbytes)
        return grad

    cluster, client = _cluster(2)
    ReplicatedDecoder.batch_gradient = counting
    try:
        res = train(sents, None, None, epochs=1, threads=1, prune_tolerance=None, client=client)
    finally:
        ReplicatedDecoder.batch_gradient = original
        client.close()
        cluster.close()
    rows.append(("dep train, 1 epoch", "Dask, 2 workers", len(sents), res.history[-1]["train_seconds"],
                 f"summed gradient {np.mean(sizes) / 1024:.0f} KiB a batch, to each worker"))
    facts["dep_gradient_bytes"] = float(np.mean(sizes))


def bench_parser_train(args, rows, tmp):
    """One epoch each of passes 2 and 3 (``parser train --limit N`` on the model's coarse
    models) in one process (1 and 2 threads) and on 2 workers: the epochs' training seconds
    from the folders' ``curves.json``."""
    import subprocess

    pruners = os.path.join(os.path.abspath(args.model_dir), "pruners")
    runs = [("serial, 1 thread (peer)", ["--threads", "1"]), ("serial, 2 threads (peer)", ["--threads", "2"]),
            ("Dask, 2 workers", ["--threads", "2", "--dask", "--workers", "2"])]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name, extra in runs:
        folder = os.path.join(tmp, f"parser-{len(os.listdir(tmp))}")
        cmd = [sys.executable, "-m", "plgraph", "parser", "train", "--model-dir", folder, "--pruners", pruners,
               "--limit", str(args.parser_train), "--epochs2", "1", "--epochs3", "1", "--no-progress", *extra]
        subprocess.run(cmd, cwd=root, check=True, stdout=subprocess.DEVNULL)
        curves = json.load(open(os.path.join(folder, "curves.json")))
        for rec in curves:
            if rec.get("model") in ("pass2", "pass3"):
                rows.append((f"parser train, {rec['model']}", name, rec["sentences"], rec["train_seconds"],
                             f"search errors {rec['search_errors']}"))


def estimate(args, rows, facts) -> list[str]:
    """The WSJ 02-21 estimates (module docstring), from the measured rows and facts."""
    out = []
    rate = {r[1]: r[2] / r[3] for r in rows if r[0] == "parse"}
    one = rate.get("Dask, 1 worker(s)")
    if one:
        per = 1.0 / one
        parse = WSJ_TRAIN * per / WORKERS + math.ceil(WSJ_TRAIN / args.chunk_size) * facts["chunk_overhead"] / WORKERS
        out.append(f"parse WSJ 02-21 on {WORKERS} workers: {WSJ_TRAIN} x {per:.3f} s / {WORKERS} = "
                   f"{parse / 60:.0f} min (1 worker: {WSJ_TRAIN * per / 3600:.1f} h); the scheduler's "
                   f"{facts['chunk_overhead'] * 1000:.1f} ms a chunk is {100 * facts['chunk_overhead'] / (args.chunk_size * per):.2f}% "
                   f"of a chunk's work: scaling goes on until the scheduler handles "
                   f"{1 / facts['chunk_overhead']:.0f} chunks/s, i.e. ~{args.chunk_size * per / facts['chunk_overhead']:.0f} workers")
    curves = os.path.join(args.model_dir, "curves.json")
    if os.path.exists(curves) and facts.get("parse_seconds"):
        rec = [r for r in json.load(open(curves)) if r.get("model") == "pass3"]
        cfg = json.load(open(os.path.join(args.model_dir, "parser.json")))["passes"]["pass3"]["config"]
        batch = int(cfg["batch"])
        t_train = rec[0]["train_seconds"] * 2 / rec[0]["sentences"]      # core-seconds a sentence (2 threads)
        ps = np.array([s for s, w in zip(facts["parse_seconds"], facts["parse_words"]) if w <= 40])
        scale = t_train / ps.mean()
        rng = np.random.default_rng(0)
        busy = min(batch, WORKERS)
        per_worker = math.ceil(batch / busy)
        draws = rng.choice(ps, size=(20_000, busy, per_worker)).sum(axis=2).max(axis=1) * scale
        t_batch = draws.mean() + facts["round_trip"] + (WORKERS - 2) * facts["chunk_overhead"] / 2
        n_batches = math.ceil(WSJ_TRAIN / batch)
        epoch = n_batches * t_batch
        serial = WSJ_TRAIN * t_train
        out.append(f"train pass 3, one epoch of WSJ 02-21 on {WORKERS} workers: batch {batch} keeps {busy} busy; "
                   f"a batch waits for its slowest sentence: {draws.mean():.2f} s (mean sentence {t_train:.2f} s) "
                   f"+ round trip {facts['round_trip'] * 1000:.0f} ms -> {n_batches} batches x {t_batch:.2f} s = "
                   f"{epoch / 3600:.1f} h (1 core: {serial / 3600:.1f} h, x{serial / epoch:.1f}). What stops "
                   f"scaling: the batch size (more workers than sentences in a batch sit idle), then the "
                   f"straggler of each batch; the gradient sent to every worker a batch "
                   f"({facts.get('dep_gradient_bytes', 0) / 1024:.0f} KiB for dep train) is small beside that")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", default="runs/parser")
    ap.add_argument("--parse-limit", type=int, default=200)
    ap.add_argument("--chunk-size", type=int, default=8)
    ap.add_argument("--dep-model", default=None, help="a dep model folder (default: train one on EWT, 1 epoch)")
    ap.add_argument("--dep-chunk-size", type=int, default=64)
    ap.add_argument("--dep-train", type=int, default=4000, help="EWT sentences of the training benchmark")
    ap.add_argument("--parser-train", type=int, default=300, help="train sentences of the parser-training runs")
    ap.add_argument("--skip", action="append", default=[],
                    choices=["parse", "dep", "overhead", "train", "parser-train"])
    args = ap.parse_args()
    rows, facts = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        if "overhead" not in args.skip:
            bench_overhead(facts)
        if "parse" not in args.skip:
            bench_parse(args, rows, facts)
        if "dep" not in args.skip:
            bench_dep_parse(args, rows, tmp)
        if "train" not in args.skip:
            bench_train(args, rows, facts)
        if "parser-train" not in args.skip:
            bench_parser_train(args, rows, tmp)
        print(f"{'job':22s} {'run':42s} {'items':>6s} {'seconds':>8s} {'items/s':>8s}  note")
        for job, run, n, sec, note in rows:
            print(f"{job:22s} {run:42s} {n:6d} {sec:8.2f} {n / sec:8.2f}  {note}")
        if "chunk_overhead" in facts:
            print(f"\nscheduler overhead: {facts['chunk_overhead'] * 1000:.2f} ms a chunk (empty task, 500 chunks, "
                  f"2 workers); training round trip {facts['round_trip'] * 1000:.2f} ms a batch (2 replicas)")
            for line in estimate(args, rows, facts):
                print(line)
    print(f"peak RSS of the driver {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
