"""Tables and plots for the dependency-parsing notebook: training curves, errors by
relation and by length, the comparison with published numbers."""
from __future__ import annotations

import numpy as np

from .evaluate import token_table

#: published reference points (design notes dep-anchor.md §0, §1.8, §4.2; test sets)
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


def history_frame(histories: dict):
    """``{name: [epoch records]}`` -> one long DataFrame (name, epoch, loss, dev scores...)."""
    import pandas as pd

    rows = []
    for name, hist in histories.items():
        for r in hist:
            rows.append({"model": name, **r})
    return pd.DataFrame(rows)


def plot_training_curves(histories: dict, title: str = "", axes=None):
    """Dev UAS/LAS and training loss per epoch, one line per model."""
    import matplotlib.pyplot as plt

    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    else:
        fig = axes[0].figure
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (name, hist) in enumerate(histories.items()):
        ep = [r["epoch"] for r in hist]
        c = colors[k % len(colors)]
        if hist and "dev_uas" in hist[0]:
            axes[0].plot(ep, [r["dev_uas"] for r in hist], "-o", color=c, ms=3, label=f"{name} UAS")
            axes[0].plot(ep, [r["dev_las"] for r in hist], "--s", color=c, ms=3, label=f"{name} LAS")
        axes[1].plot(ep, [r["train_errors_pct"] for r in hist], "-o", color=c, ms=3, label=name)
    axes[0].set_xlabel("epoch")
    axes[0].set_ylabel("dev score (%)")
    axes[0].set_title("dev attachment scores (punctuation included)", fontsize=10)
    axes[0].legend(fontsize=7, frameon=False, ncol=2)
    axes[1].set_xlabel("epoch")
    axes[1].set_ylabel("training loss (% words in error)")
    axes[1].set_yscale("log")
    axes[1].set_title("loss-augmented training errors", fontsize=10)
    axes[1].legend(fontsize=7, frameon=False)
    from matplotlib.ticker import MaxNLocator

    for ax in axes:
        ax.spines[["top", "right"]].set_visible(False)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


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


def plot_errors(by_relation, by_length, by_dist, names=None, top: int = 18):
    """Bars: LAS by relation (the ``top`` most frequent), UAS/LAS by sentence length and by
    arc length.  ``by_*`` may be dicts {model name: frame} to compare models."""
    import matplotlib.pyplot as plt

    if not isinstance(by_relation, dict):
        by_relation, by_length, by_dist = {"": by_relation}, {"": by_length}, {"": by_dist}
    names = list(by_relation)
    fig, axes = plt.subplots(1, 3, figsize=(15, 3.8), gridspec_kw={"width_ratios": [2.2, 1, 1.2]})
    width = 0.8 / len(names)
    base = by_relation[names[0]].head(top)
    rels = list(base.relation)
    x = np.arange(len(rels))
    for k, name in enumerate(names):
        df = by_relation[name].set_index("relation").reindex(rels)
        axes[0].bar(x + k * width, df.LAS, width, label=name or "LAS")
    axes[0].set_xticks(x + width * (len(names) - 1) / 2, rels, rotation=60, fontsize=8)
    axes[0].set_ylabel("LAS (%)")
    axes[0].set_ylim(40, 100)
    axes[0].set_title(f"LAS by gold relation ({top} most frequent)", fontsize=10)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, frames, title in ((axes[1], by_length, "by sentence length"), (axes[2], by_dist, "by arc length")):
        idx = list(frames[names[0]].index)
        xx = np.arange(len(idx))
        for k, name in enumerate(names):
            df = frames[name].reindex(idx)
            c = colors[k % len(colors)]
            ax.plot(xx, df.UAS, "-o", ms=3, color=c, label=f"{name} UAS".strip())
            ax.plot(xx, df.LAS, "--s", ms=3, color=c, label=f"{name} LAS".strip())
        ax.set_xticks(xx, [str(i) for i in idx], fontsize=8, rotation=30)
        ax.set_title(title, fontsize=10)
        ax.set_ylabel("%")
    for ax in axes:
        ax.spines[["top", "right"]].set_visible(False)
        ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    return fig
