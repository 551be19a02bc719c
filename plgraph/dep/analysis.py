"""Tables for the dependency-parsing notebook (their plots: plgraph.figures): training curves, errors by
relation and by length, the comparison with published numbers."""
from __future__ import annotations

import numpy as np

from .evaluate import token_table

#: published reference points (test sets)
REFERENCES = [
    # (system, data, UAS, LAS, note)
    ("UDPipe 1.2, gold tok + gold morph (UD 2.5 models)", "UD English-EWT test", 88.1, 86.2,
     "the issue's second-order target"),
    ("UDPipe 1.2, gold tok + gold morph (UD 2.3 models)", "UD English-EWT test", 87.7, 85.8, ""),
    ("Stanza 1.1.1 (raw text)", "UD English-EWT test", 86.22, 83.59, "predicted tokens and tags"),
    ("Schiehlen & Spranger 2007 (official)", "CoNLL 2007 Basque test", 73.25, 66.75, "different data split"),
    ("Schiehlen & Spranger 2007 (revised, post-deadline)", "CoNLL 2007 Basque test", 76.72, 70.48,
     "different data split"),
    ("UDPipe 1.2, gold tok + gold morph", "UD Basque-BDT test (UD 2.x)", 82.1, 78.4, "UD v2 labels"),
]

LENGTH_BINS = (0, 10, 20, 30, 40, 1000)
DIST_BINS = (0, 1, 2, 3, 4, 7, 10, 1000)


def errors_by_relation(gold, pred, min_count: int = 20):
    """Per gold relation (universal part): count, UAS, LAS, label precision/recall/F1."""
    import pandas as pd

    t = token_table(gold, pred)
    rows = []
    for lab, g in t.groupby("gold_label"):
        if len(g) < min_count:
            continue
        predicted = t[t.pred_label == lab]
        tp = int((g.las_ok).sum())
        prec = 100 * tp / max(1, len(predicted[predicted.head_ok]))
        rec = 100 * tp / len(g)
        rows.append({"relation": lab, "count": len(g), "UAS": 100 * g.head_ok.mean(), "LAS": 100 * g.las_ok.mean(),
                     "precision": prec, "recall": rec, "F1": 2 * prec * rec / max(prec + rec, 1e-9)})
    return pd.DataFrame(rows).sort_values("count", ascending=False).reset_index(drop=True)


def errors_by_length(gold, pred):
    """(by sentence length, by arc length): UAS/LAS per bin of sentence length and of
    the gold arc's length |head - dependent| (ROOT arcs in their own row)."""
    import pandas as pd

    t = token_table(gold, pred)
    t["length_bin"] = pd.cut(t.length, LENGTH_BINS, right=True,
                             labels=[f"{a + 1}-{b}" if b < 1000 else f">{a}" for a, b in zip(LENGTH_BINS,
                                                                                          LENGTH_BINS[1:])])
    by_len = t.groupby("length_bin", observed=True).agg(words=("head_ok", "size"), UAS=("head_ok", "mean"),
                                                         LAS=("las_ok", "mean"))
    t["dist_bin"] = np.where(t.gold_head == 0, "ROOT", pd.cut(t.dist, DIST_BINS, right=True, labels=[
        f"{a + 1}" if b - a == 1 else (f"{a + 1}-{b}" if b < 1000 else f">{a}") for a, b in zip(DIST_BINS,
                                                                                          DIST_BINS[1:])]).astype(str))
    by_dist = t.groupby("dist_bin").agg(words=("head_ok", "size"), UAS=("head_ok", "mean"), LAS=("las_ok", "mean"))
    order = ["ROOT"] + [x for x in by_dist.index if x != "ROOT"]
    order = sorted(order, key=lambda x: (x != "ROOT", int(x.split("-")[0].lstrip(">")) if x != "ROOT" else 0))
    by_dist = by_dist.loc[order]
    for df in (by_len, by_dist):
        df["UAS"] *= 100
        df["LAS"] *= 100
    return by_len, by_dist
