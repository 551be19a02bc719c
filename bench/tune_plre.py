"""Tune PLRE's hyper-parameters on validation data only (test is never looked at here).

    .venv/bin/python bench/tune_plre.py [--corpora ptb brown ru-taiga] [--order 3] [--out bench/tune_plre.csv]

Stage 1 (the seed's setting: one low-rank bigram and one low-rank trigram term, power 0.5,
square-root discounts): a grid of ranks (fractions of V) for the two terms.
Stage 2, from the best stage-1 ranks: iterations, KN vs MKN base discounts, the power,
two terms per level, smaller trigram ranks, no trigram term, and another seed.
Stage 3: single fits vary by about 0.3 points of perplexity gain with the start values
(stage 2's seed check), and the mean of several independently started fits is better than
any one of them, so stage 3 repeats the rank grid with 4 averaged restarts, and stage 4
varies restarts, iterations, the power and the base discounts around the best of stage 3.
Stage 5 re-checks ranks, restarts and iterations with KN base discounts (stage 4's best).  The score of a configuration is its mean relative validation
perplexity against int-MKN over the corpora, so one default serves all of them.
Results are appended to a CSV (a rerun skips configurations already measured).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from plgraph.lm.experiments import LMData  # noqa: E402
from plgraph.lm.plre import PLREConfig, Term  # noqa: E402

RANKS = (0.0005, 0.001, 0.002, 0.005, 0.01)
FIELDS = ["corpus", "order", "config", "valid", "int_mkn_valid", "rel", "estimate_s"]


def key(cfg: PLREConfig) -> str:
    return json.dumps(cfg.to_json_dict(), sort_keys=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", nargs="+", default=["ptb", "brown", "ru-taiga"])
    ap.add_argument("--order", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "tune_plre.csv"))
    ap.add_argument("--stage", type=int, choices=[1, 2, 3, 4, 5], default=None, help="run one stage only")
    args = ap.parse_args(argv)

    done: dict = {}
    if os.path.exists(args.out):
        with open(args.out, newline="") as fh:
            for row in csv.DictReader(fh):
                done[(row["corpus"], int(row["order"]), row["config"])] = float(row["rel"])
    new_file = not os.path.exists(args.out)
    out = open(args.out, "a", newline="")
    writer = csv.DictWriter(out, fieldnames=FIELDS)
    if new_file:
        writer.writeheader()
    datasets = [LMData.load(name) for name in args.corpora]
    base = {}
    for d in datasets:
        kn, _ = d.fit(args.order, "int-mkn")
        base[d.name] = d.perplexity(kn, "valid")
        print(f"{d.name}: int-MKN order {args.order} valid {base[d.name]:.3f}", flush=True)

    def score(cfg: PLREConfig) -> float:
        rels = []
        for d in datasets:
            k = (d.name, args.order, key(cfg))
            if k not in done:
                t = time.perf_counter()
                model, secs = d.fit(args.order, "plre", cfg)
                valid = d.perplexity(model, "valid")
                done[k] = valid / base[d.name]
                writer.writerow({"corpus": d.name, "order": args.order, "config": key(cfg), "valid": f"{valid:.4f}",
                                 "int_mkn_valid": f"{base[d.name]:.4f}", "rel": f"{done[k]:.6f}",
                                 "estimate_s": f"{secs:.2f}"})
                out.flush()
                print(f"  {d.name:9s} valid {valid:9.3f} ({100 * (1 - done[k]):+.2f}%)  {secs:6.1f} s  "
                      f"[{time.perf_counter() - t:.0f} s]", flush=True)
            rels.append(done[k])
        return sum(rels) / len(rels)

    def show(cfg):
        print(" ".join(f"{t.level}:{t.power}:{t.rank}" for t in cfg.terms), cfg.discount, cfg.iterations,
              f"restarts {cfg.restarts} seed {cfg.seed}", flush=True)

    results = []
    if args.stage in (None, 1):
        for r2 in RANKS:
            for r3 in RANKS:
                cfg = PLREConfig((Term(2, 0.5, r2), Term(3, 0.5, r3)), "mkn", 40, 0)
                show(cfg)
                results.append((score(cfg), key(cfg)))
    if args.stage in (None, 2):
        stage1 = [(score(PLREConfig((Term(2, 0.5, r2), Term(3, 0.5, r3)), "mkn", 40, 0)), r2, r3)
                  for r2 in RANKS for r3 in RANKS] if args.stage == 2 else \
            [(s, json.loads(k)["terms"][0]["rank"], json.loads(k)["terms"][1]["rank"]) for s, k in results]
        _, r2, r3 = min(stage1)
        variants = []
        for it in (10, 20, 80):
            variants.append(PLREConfig((Term(2, 0.5, r2), Term(3, 0.5, r3)), "mkn", it, 0))
        variants.append(PLREConfig((Term(2, 0.5, r2), Term(3, 0.5, r3)), "kn", 40, 0))
        for p in (0.3, 0.7):
            variants.append(PLREConfig((Term(2, p, r2), Term(3, p, r3)), "mkn", 40, 0))
        variants.append(PLREConfig((Term(2, 0.7, r2), Term(2, 0.3, r2), Term(3, 0.7, r3), Term(3, 0.3, r3)),
                                   "mkn", 40, 0))
        variants.append(PLREConfig((Term(2, 0.5, r2), Term(3, 0.5, r3)), "mkn", 40, 1))  # seed sensitivity
        for r in (0.0001, 0.0002):  # trigram ranks below the grid (kappa 1-3)
            variants.append(PLREConfig((Term(2, 0.5, r2), Term(3, 0.5, r)), "mkn", 40, 0))
        variants.append(PLREConfig((Term(2, 0.5, r2),), "mkn", 40, 0))  # no low-rank trigram
        for cfg in variants:
            show(cfg)
            results.append((score(cfg), key(cfg)))
    if args.stage in (None, 3, 4):
        grid3 = [(r2, r3) for r2 in (0.002, 0.005, 0.01) for r3 in (0.0002, 0.0005, 0.001, 0.002)]
        best3 = []
        for r2, r3 in grid3:
            cfg = PLREConfig((Term(2, 0.5, r2), Term(3, 0.5, r3)), "mkn", 40, 0, 4)
            if args.stage != 4:
                show(cfg)
            best3.append((score(cfg), r2, r3))
        if args.stage in (None, 4):
            _, r2, r3 = min(best3)
            variants = [PLREConfig((Term(2, 0.5, r2), Term(3, 0.5, r3)), "mkn", it, 0, rs)
                        for it, rs in ((40, 2), (40, 8), (20, 4), (80, 4), (20, 8))]
            variants += [PLREConfig((Term(2, p, r2), Term(3, p, r3)), "mkn", 40, 0, 4) for p in (0.4, 0.6)]
            variants.append(PLREConfig((Term(2, 0.5, r2), Term(3, 0.5, r3)), "kn", 40, 0, 4))
            variants.append(PLREConfig((Term(2, 0.5, r2), Term(3, 0.5, r3)), "mkn", 40, 1, 4))  # seed check
            for cfg in variants:
                show(cfg)
                score(cfg)
    if args.stage in (None, 5):
        variants = [PLREConfig((Term(2, 0.5, r2), Term(3, 0.5, r3)), "kn", 40, 0, 4)
                    for r2, r3 in ((0.002, 0.0005), (0.005, 0.0002), (0.005, 0.0005), (0.001, 0.0002))]
        variants += [PLREConfig((Term(2, 0.5, 0.002), Term(3, 0.5, 0.0002)), "kn", it, 0, rs)
                     for it, rs in ((40, 8), (80, 4), (40, 2))]
        for cfg in variants:
            show(cfg)
            score(cfg)
    out.close()
    # the best configuration over everything measured for these corpora
    by_cfg: dict = {}
    for (corpus, order, cfg), rel in done.items():
        if order == args.order and corpus in base:
            by_cfg.setdefault(cfg, {})[corpus] = rel
    full = {cfg: sum(v.values()) / len(v) for cfg, v in by_cfg.items() if len(v) == len(base)}
    ranked = sorted(full.items(), key=lambda kv: kv[1])
    print("\nbest configurations (mean valid perplexity relative to int-MKN):")
    for cfg, rel in ranked[:8]:
        per = " ".join(f"{c}:{100 * (1 - by_cfg[cfg][c]):+.2f}%" for c in base)
        print(f"  {100 * (1 - rel):+.2f}%  {per}  {cfg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
