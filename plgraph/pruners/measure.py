"""Tuning the coarse models' thresholds and measuring what they keep.

:func:`tune_thresholds` picks, on dev, the arc ratio and the spine probability that keep
the target share of gold; :func:`pruning_stats` measures kept fractions against gold
recall (and, with ``curves``, along a grid of thresholds); :func:`spine_accuracy` and
:func:`trace_prf` are the classifiers' dev scores during training.
"""
from __future__ import annotations

import time
from dataclasses import asdict

import numpy as np

from .classifiers import SpineClassifier, TraceClassifier, encode
from .data import SentenceData, sentence_data
from .model import Pruners, Thresholds, keep_threshold, trace_keep
def spine_accuracy(spine: SpineClassifier, weights, enc, gold: np.ndarray) -> float:
    correct = total = 0
    k = 0
    for s in range(len(enc.tok_off) - 1):
        S = spine.scores(weights, enc, s)
        cands = spine.candidates(enc, s)
        for i in range(S.shape[0]):
            if len(cands[i]):
                correct += int(cands[i][int(np.argmax(S[i, :len(cands[i])]))] == gold[k])
            total += 1
            k += 1
    return 100.0 * correct / max(total, 1)


def trace_prf(trace: TraceClassifier, weights, enc, sds: list[SentenceData]) -> dict:
    tp = n_pred = n_gold = 0
    for s, sd in enumerate(sds):
        S = trace.scores(weights, enc, s)
        pred = np.argmax(np.where(np.isfinite(S), S, -1e300), axis=-1)
        np.fill_diagonal(pred, 0)
        gold = np.zeros_like(pred)
        for (c, p), t in sd.traces.items():
            gold[c, p] = trace.labels.get(t) if t in trace.labels.index else -1
        n_pred += int((pred > 0).sum())
        n_gold += int((gold != 0).sum())
        tp += int(((pred > 0) & (pred == gold)).sum())
    p = 100.0 * tp / max(n_pred, 1)
    r = 100.0 * tp / max(n_gold, 1)
    return {"dev_trace_p": round(p, 2), "dev_trace_r": round(r, 2),
            "dev_trace_f": round(2 * p * r / max(p + r, 1e-9), 2)}


def _outputs(pr: Pruners, dv):
    return pr.scores(dv)


def arc_recall_at(outputs, dv, ratio, label_counts=None) -> tuple[float, float, float, float]:
    """(gold structural edges kept, possible (child, parent) pairs kept, cells kept,
    labelled edges kept), as fractions.  Labelled edges: a kept pair keeps every
    label allowed for it (``label_counts[s][h, d]``, out of ``label_counts`` total)."""
    gold_kept = gold = pairs_kept = pairs = cells_kept = cells = 0
    lab_kept = lab_all = 0.0
    for k, ((arc_mm, cell_mm, best, *_), sd) in enumerate(zip(outputs, dv)):
        n = len(sd.words)
        cut = keep_threshold(arc_mm, best, ratio)
        keep = arc_mm > cut
        d = np.arange(1, n + 1)
        gold_kept += int(keep[sd.heads, d].sum())
        gold += n
        pairs_kept += int(keep[:, 1:].sum())
        pairs += n * n
        iu = np.triu_indices(n + 1, 1)
        cells_kept += int((cell_mm[iu] > cut).sum())
        cells += len(iu[0])
        if label_counts is not None:
            allowed, total = label_counts[k]
            lab_kept += float(allowed[keep].sum())
            lab_all += float(n * n * total)
    return (gold_kept / max(gold, 1), pairs_kept / max(pairs, 1), cells_kept / max(cells, 1),
            lab_kept / max(lab_all, 1.0))


def spine_recall_at(pr, outputs, dv, prob, reachable_only: bool = False) -> tuple[float, float, float]:
    """(gold spines kept, spines kept among POS candidates, spines kept among all spines).

    With ``reachable_only`` the recall counts only gold spines that are among the
    word's candidates (spines seen with its POS in training): the others can never
    be kept by any threshold."""
    gold_kept = gold = kept = cands = 0
    n_all = len(pr.spine.labels)
    for (*_, sp, cand), sd in zip(outputs, dv):
        for i, spid in enumerate(sd.spines):
            c = cand[i]
            k = sp[i, :len(c)] > prob
            kept += int(k.sum())
            cands += len(c)
            g = pr.spine.labels.index.get(spid, -1)
            reachable = g >= 0 and bool((c == g).any())
            if reachable_only and not reachable:
                continue
            gold += 1
            gold_kept += int(reachable and bool(k[c == g].any()))
    words = sum(len(sd.words) for sd in dv)
    return gold_kept / max(gold, 1), kept / max(cands, 1), kept / max(words * n_all, 1)


def trace_recall_at(pr, outputs, dv, prob, rank) -> tuple[float, float, float]:
    """(gold traces kept, kept among all (pair, type), kept among POS-allowed candidates)."""
    gold_kept = gold = kept = space = cands = 0
    T = len(pr.trace.labels) - 1
    for (arc_mm, cell_mm, best, tp, ts, *_), sd in zip(outputs, dv):
        n = len(sd.words)
        k = trace_keep(tp, ts, prob, rank)
        kept += int(k.sum())
        space += n * (n - 1) * T
        c = np.isfinite(ts)
        c[..., 0] = False
        cands += int(c.sum())
        for (ci, pi), t in sd.traces.items():
            gold += 1
            lab = pr.trace.labels.index.get(t, -1)
            gold_kept += int(lab > 0 and bool(k[ci, pi, lab]))
    return gold_kept / max(gold, 1), kept / max(space, 1), kept / max(cands, 1)


def tune_thresholds(pr: Pruners, dv: list[SentenceData]) -> Thresholds:
    """Largest arc ratio keeping >= ``arc_recall`` of gold edges and largest spine
    probability keeping >= ``spine_recall`` of the gold spines the candidate sets
    contain (a gold spine never seen with its POS in training cannot be kept at any
    threshold; on WSJ 2-21 that is 0.07% of dev spines, on the sample's smaller
    train split 0.8%), on dev."""
    outputs = _outputs(pr, dv)
    cfg = pr.config
    ratio = 0.0
    for r in np.round(np.arange(0.0, 1.0001, 0.002), 3):
        if arc_recall_at(outputs, dv, r)[0] >= cfg.arc_recall:
            ratio = float(r)
        else:
            break
    prob = 0.0
    for p in np.geomspace(1e-5, 0.5, 120):
        if spine_recall_at(pr, outputs, dv, p, reachable_only=True)[0] >= cfg.spine_recall:
            prob = float(p)
    return Thresholds(arc_ratio=ratio, spine_prob=prob, trace_prob=cfg.trace_prob, trace_rank=cfg.trace_rank)


def pruning_stats(pr: Pruners, graphs, curves: bool = False, label_vocab=None) -> dict:
    """Kept fractions and gold recall of the three pruners on ``graphs`` (percent),
    plus pass-1 attachment scores, spine accuracy and trace P/R/F.

    ``edges_kept_pct`` counts, for every kept (child, parent) pair, the arc pass's own
    labels allowed for it (attachment nodes seen with the pair's POS class), against
    Σ n² × its label count.  With ``label_vocab`` (a
    :class:`plgraph.parser.scoring.labels.LabelVocab` of the train split) it adds
    ``edges_kept_seed_pct``, the thesis's definition (the reference's ``PruningStats``:
    kept labelled arcs against Σ n² × the number of edge labels, the parser's full
    labels): each kept pair counts its structural EITHER candidates, out of all
    labels of the vocabulary."""
    from ..dep.evaluate import evaluate
    from .arcpass import dep_sentence

    dv = [sentence_data(g) for g in graphs]
    start = time.perf_counter()
    outputs = _outputs(pr, dv)
    seconds = time.perf_counter() - start
    th = pr.thresholds
    dep = pr.arc.encode(dv, pr.normaliser)
    label_counts = [pr.arc.allowed_label_counts(dep, k) for k in range(len(dv))]
    arc_rec, pairs_kept, cells_kept, labelled_kept = arc_recall_at(outputs, dv, th.arc_ratio, label_counts)
    seed_counts = None
    if label_vocab is not None:   # [parent, child] as arc_recall_at reads them
        seed_counts = [(label_vocab.candidate_counts(g.tags, kind=0).T, len(label_vocab)) for g in graphs]
    sp_rec, sp_kept_cand, sp_kept_all = spine_recall_at(pr, outputs, dv, th.spine_prob)
    sp_rec_reach = spine_recall_at(pr, outputs, dv, th.spine_prob, reachable_only=True)[0]
    tr_rec, tr_kept_all, tr_kept_cand = trace_recall_at(pr, outputs, dv, th.trace_prob, th.trace_rank)
    n_labels = pr.arc.labels_allowed()
    gold = [dep_sentence(s, pr.normaliser) for s in dv]
    pred = pr.arc.parse([dep_sentence(s, pr.normaliser, with_tree=False) for s in dv])
    att = evaluate(gold, pred)
    enc = encode(dv, pr.normaliser, pr.tags)
    doc = {
        "sentences": len(dv),
        "edges_kept_pct": round(100 * labelled_kept, 3),
        "edge_pairs_kept_pct": round(100 * pairs_kept, 3),
        "edges_gold_recall_pct": round(100 * arc_rec, 2),
        "cells_kept_pct": round(100 * cells_kept, 2),
        "traces_kept_pct": round(100 * tr_kept_all, 3),
        "traces_kept_of_candidates_pct": round(100 * tr_kept_cand, 2),
        "traces_gold_recall_pct": round(100 * tr_rec, 2),
        "spines_kept_pct": round(100 * sp_kept_all, 3),
        "spines_kept_of_candidates_pct": round(100 * sp_kept_cand, 2),
        "spines_gold_recall_pct": round(100 * sp_rec, 2),
        "spines_reachable_recall_pct": round(100 * sp_rec_reach, 2),
        "arc_uas": round(att.uas, 2), "arc_las": round(att.las, 2),
        "spine_acc": round(spine_accuracy(pr.spine, pr.spine_w, enc, pr.spine.gold_array(dv)), 2),
        "thresholds": asdict(th),
        "labels": n_labels,
        "sentences_per_second": round(len(dv) / seconds, 1),
    }
    if seed_counts is not None:
        doc["edges_kept_seed_pct"] = round(100 * arc_recall_at(outputs, dv, th.arc_ratio, seed_counts)[3], 4)
        doc["edge_labels_seed"] = len(label_vocab)
    doc.update({k.replace("dev_", ""): v for k, v in trace_prf(pr.trace, pr.trace_w, enc, dv).items()})
    if curves:
        doc["arc_curve"] = [dict(zip(("ratio", "recall_pct", "pairs_kept_pct", "cells_kept_pct", "edges_kept_pct"),
                                     (float(r), *[round(100 * x, 4)
                                                  for x in arc_recall_at(outputs, dv, r, label_counts)])))
                            for r in np.round(np.linspace(0, 0.99, 34), 3)]
        if seed_counts is not None:
            for row in doc["arc_curve"]:
                row["edges_kept_seed_pct"] = round(100 * arc_recall_at(outputs, dv, row["ratio"], seed_counts)[3], 5)
        doc["spine_curve"] = [dict(zip(("prob", "recall_pct", "kept_of_candidates_pct", "kept_pct"),
                                       (float(p), *[round(100 * x, 4) for x in spine_recall_at(pr, outputs, dv, p)])))
                              for p in np.geomspace(1e-4, 0.5, 30)]
        doc["trace_curve"] = [dict(zip(("prob", "recall_pct", "kept_pct", "kept_of_candidates_pct"),
                                       (float(p), *[round(100 * x, 4) for x in trace_recall_at(pr, outputs, dv, p, 1.0)])))
                              for p in np.geomspace(1e-4, 0.9, 30)]
    return doc
