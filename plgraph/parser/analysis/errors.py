"""Where a parser's graphs go wrong: error types per sentence, traces by type, scores by
sentence length (notebook 08, the explorer's error filter).

Trace edges here are the thesis's (:mod:`plgraph.eval.graphs`):
(child, parent) pairs of trace edges that are not self loops, matched unlabelled.
"""
from __future__ import annotations

from ...graph import STRUCTURAL, TRACE, Graph

#: the error types :func:`sentence_errors` reports, in the explorer's filter order
ERROR_TYPES = ("attachment", "attachment node", "spine", "missing trace", "extra trace", "fallback")


def _traces(g: Graph) -> dict:
    """``{(child, parent): trace type}`` of the non-self-loop trace edges."""
    out = {}
    for c, p, k, t in zip(g.child.tolist(), g.parent.tolist(), g.kind.tolist(), g.trace.tolist()):
        if k == TRACE and c != p:
            out.setdefault((c, p), str(t))
    return out


def _heads(g: Graph) -> dict:
    """``{child: (parent, attachment node)}`` of the structural edges."""
    return {c: (p, str(lab)) for c, p, k, lab in zip(g.child.tolist(), g.parent.tolist(), g.kind.tolist(),
                                                     g.label.tolist()) if k == STRUCTURAL}


def sentence_errors(gold: Graph, pred: Graph, fallback: bool = False) -> dict:
    """Counts of each :data:`ERROR_TYPES` entry in ``pred`` against ``gold`` (same words):
    words attached to the wrong head (``attachment``), to the right head at another node
    (``attachment node``), with another spine (self loops included), gold trace edges not
    predicted, predicted ones not in gold; ``fallback`` 1 for a fallback parse."""
    if list(gold.words) != list(pred.words):
        raise ValueError(f"sentence {gold.id}: gold and predicted graphs have different words")
    gh, ph = _heads(gold), _heads(pred)
    gt, pt = _traces(gold), _traces(pred)
    from ...encoding import spine_identity

    return {"attachment": sum(ph.get(c, (None,))[0] != p for c, (p, _) in gh.items()),
            "attachment node": sum(ph.get(c) is not None and ph[c][0] == p and ph[c][1] != lab
                                   for c, (p, lab) in gh.items()),
            "spine": sum(spine_identity(gold, w) != spine_identity(pred, w) for w in range(len(gold))),
            "missing trace": sum(k not in pt for k in gt), "extra trace": sum(k not in gt for k in pt),
            "fallback": int(bool(fallback))}


def trace_type_table(gold_graphs, pred_graphs):
    """Per trace type (``*``, ``*T*``, ...): gold edges, recalled (its (child, parent)
    predicted, any type), type also right, predicted edges, of which correct; recall and
    precision in percent.  A ``pandas.DataFrame`` sorted by gold count."""
    import pandas as pd

    rows: dict = {}

    def row(t):
        return rows.setdefault(t, {"type": t, "gold": 0, "recalled": 0, "type_right": 0, "predicted": 0,
                                   "correct": 0})

    for g, p in zip(gold_graphs, pred_graphs):
        gt, pt = _traces(g), _traces(p)
        for k, t in gt.items():
            r = row(t)
            r["gold"] += 1
            r["recalled"] += int(k in pt)
            r["type_right"] += int(pt.get(k) == t)
        for k, t in pt.items():
            r = row(t)
            r["predicted"] += 1
            r["correct"] += int(k in gt)
    df = pd.DataFrame(list(rows.values()), columns=["type", "gold", "recalled", "type_right", "predicted", "correct"])
    df["recall"] = (100.0 * df["recalled"] / df["gold"].where(df["gold"] > 0)).round(1)
    df["precision"] = (100.0 * df["correct"] / df["predicted"].where(df["predicted"] > 0)).round(1)
    return df.sort_values(["gold", "predicted"], ascending=False).reset_index(drop=True)


#: sentence-length bins of :func:`length_table`
LENGTH_BINS = ((1, 10), (11, 20), (21, 30), (31, 40), (41, 10_000))


def length_table(sentences, results, bins=LENGTH_BINS):
    """Per sentence-length bin: sentences, evalb F1 (TOP root), trace-edge P / R
    (unlabelled), fallback parses and seconds per sentence.  ``sentences``: corpus
    sentences; ``results``: their :class:`~plgraph.parser.parsing.parser.ParseResult` s."""
    import pandas as pd

    from ...eval.ceiling import with_root
    from ...eval.evalb import evalb
    from ...eval.graphs import graphs

    out = []
    for lo, hi in bins:
        keep = [k for k, s in enumerate(sentences) if lo <= len(s.graph.words) <= hi]
        if not keep:
            continue
        ev = evalb([with_root(sentences[k].tree, "TOP") for k in keep],
                   [with_root(results[k].tree, "TOP") for k in keep])
        gr = graphs([sentences[k].graph for k in keep], [results[k].graph for k in keep]).totals
        tr = gr["seed_unlabeled_trace_edge"]
        out.append({"words": f"{lo}-{hi}" if hi < 10_000 else f"{lo}+", "sentences": len(keep),
                    "evalb_f1": round(ev.summary["all"]["f1"], 2), "trace_p": round(tr["precision"], 2),
                    "trace_r": round(tr["recall"], 2), "fallback": sum(results[k].failed for k in keep),
                    "seconds": round(sum(results[k].seconds for k in keep) / len(keep), 3)})
    return pd.DataFrame(out)


__all__ = ["ERROR_TYPES", "sentence_errors", "trace_type_table", "LENGTH_BINS", "length_table"]
