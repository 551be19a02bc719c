"""Pass 3 over a corpus: pruning it by pass 2, tuning the pass-2 ratios and the trace
threshold on dev, measuring pass 3 (training is
:func:`plgraph.parser.training.passes.train_pass`).

:func:`pass2_outputs` decodes a prepared pass-2 corpus with outside scores (threads),
:func:`tune_ratios` picks the ratios that keep a target fraction of dev's gold structural
(and trace) edges, :func:`prepare_corpus3` builds the :class:`~plgraph.parser.scoring.pass3.Pass3Sentence` s,
:func:`evaluate_pass3` scores structural attachment, spines and trace edges (retrying a
sentence without a parse under relaxed pruning), :func:`tune_trace_bias` picks pass 3's
trace decision threshold.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ...progress import thread_imap, thread_map
from ...rules.tables import RuleTables
from ...files.shards import StoreSpec
from ..scoring.pass2 import Pass2Pruning, pass2_pruning
from ..scoring.pass3 import Pass3Config, Pass3Model, SpineInventory, pass3_sentence, relaxed
from .corpus import PreparedCorpus, count_edges, edge_counts, edge_scores, label_parents, pct

NEG = -np.inf


def pass2_outputs(model2, read_args, corpus: PreparedCorpus, rules: RuleTables, *, threads: int = 2,
                  progress=None, store: StoreSpec | None = None) -> Sequence[Pass2Pruning]:
    """Pass 2's decode (no loss, outside scores) of every sentence of ``corpus``: a list,
    or with ``store`` a sequence over shards written there (a complete store of the same
    key is used as it is, an unfinished one continued; Ctrl-C is a safe point after every
    sentence)."""
    from ...signals import check_interrupt

    job = lambda i: pass2_pruning(model2, corpus.sents[i], corpus.tokens, read_args, rules)  # noqa: E731
    done = store.complete() if store is not None else None
    if done is not None:
        return done
    if store is None:
        return thread_map(job, range(len(corpus.sents)), threads, progress=progress, desc="pass 2: max-marginals")
    writer = store.writer()
    todo = range(writer.consumed, len(corpus.sents))
    for out in thread_imap(job, todo, threads, progress=progress, desc="pass 2: max-marginals"):
        writer.add(out)
        check_interrupt()
    return writer.finish()


def _gold_places(outputs, corpus: PreparedCorpus, kind: int) -> np.ndarray:
    """Per gold edge of ``kind``: the largest ratio that keeps it (-inf: its label is not
    a pass-2 candidate of its pair, or pass 2 cannot build the pair)."""
    vals = []
    for p2, s in zip(outputs, corpus.sents):
        G = s.gold.s if kind == 0 else s.gold.t
        where = {(int(c), int(p)): k for k, (c, p) in enumerate(zip(s.pc, s.pp))}
        for c, p in zip(*np.nonzero(G >= 0)):
            k = where.get((int(c), int(p)))
            v = NEG
            if k is not None:
                lo, hi = s.cand_off[k], s.cand_off[k + 1]
                hit = np.flatnonzero((s.cand_lab[lo:hi] == G[c, p]) & (s.cand_kind[lo:hi] == kind))
                if hit.size:
                    v = float(p2.place(p2.lab_mm[lo + hit[:1]], kind)[0])
            vals.append(v)
    return np.array(vals)


def tune_ratios(outputs, corpus: PreparedCorpus, recall: float = 0.99) -> dict:
    """Per kind, the largest ratio in [0, 1] that keeps ``recall`` of dev's gold labelled
    edges of that kind among those pass 2 can build at all (``reachable_*``), and the
    counts.  Gold edges pass 2 cannot build are lost whatever the ratio, and so are
    labels scored below every pair's max-marginal (a ratio below 0 would be needed)."""
    out = {}
    for kind, key in ((0, "s"), (1, "t")):
        places = _gold_places(outputs, corpus, kind)
        reach = np.sort(places[np.isfinite(places)])
        out[f"gold_{key}"] = int(places.size)
        out[f"reachable_{key}"] = int(reach.size)
        k = int(np.floor((1.0 - recall) * reach.size))
        out[f"ratio_{key}"] = float(np.clip(reach[k], 0.0, 1.0)) if reach.size else 1.0
    return out


@dataclass
class Prepared3:
    """Sentences prepared for pass 3, their tokens and the skipped ``(id, reason)``;
    ``sources`` (per sentence: graph, pass-2 sentence, pass-2 output, pruned; a
    :class:`Sources`) and ``context`` (inventory, vocab, spine labels, config) let a
    sentence pass 3 cannot parse be prepared again under relaxed pruning
    (:func:`relaxed_sentence`).  ``sents`` is a list or a sequence over shards
    (:class:`~plgraph.files.shards.ShardedRecords`): index it, never copy it whole."""

    sents: Sequence
    tokens: object
    skipped: list = field(default_factory=list)
    sources: "Sources | None" = None
    context: tuple | None = None


@dataclass
class Sources:
    """What pass 3's sentence ``i`` was prepared from, read when indexed: ``(graph,
    pass-2 sentence, pass-2 output, coarse pruning)`` of a prepared pass-2 corpus and
    its pass-2 ``outputs`` (lists or shards)."""

    corpus2: PreparedCorpus
    outputs: Sequence

    def __len__(self) -> int:
        return len(self.corpus2.sents)

    def __getitem__(self, i: int):
        c = self.corpus2
        return c.graphs[i], c.sents[i], self.outputs[i], c.pruned[i]


def relaxed_sentence(corpus: Prepared3, i: int):
    """Sentence ``i`` of ``corpus`` prepared again with :func:`plgraph.parser.scoring.pass3.relaxed`
    pruning (None without sources)."""
    if corpus.sources is None or corpus.context is None:
        return None
    g, s2, p2, pruned = corpus.sources[i]
    inventory, vocab, labels, config = corpus.context
    return pass3_sentence(g, s2, p2, pruned, inventory, vocab, labels, relaxed(config), gold=True, protect_gold=False)


def prepare_corpus3(corpus2: PreparedCorpus, outputs, pruners, inventory: SpineInventory, vocab,
                    config: Pass3Config, *, training: bool, rules: RuleTables | None = None,
                    progress=None, store: StoreSpec | None = None) -> Prepared3:
    """Pass-3 sentences of ``corpus2``'s sentences (with the graphs and coarse pruning
    :func:`~plgraph.parser.training.corpus.prepare_corpus` kept) pruned by pass 2's
    ``outputs``; ``training`` protects gold and marks its items.  ``store``: write them
    into shards there instead of memory (as :func:`pass2_outputs`)."""
    from ... import progress as P
    from ...signals import check_interrupt

    if corpus2.graphs is None or corpus2.pruned is None:
        raise ValueError("prepare_corpus3 needs a PreparedCorpus of prepare_corpus (its graphs and pruning)")
    labels = pruners.spine.labels.items
    sources = Sources(corpus2, outputs)
    context = (inventory, vocab, labels, config)
    done = store.complete() if store is not None else None
    if done is None:
        writer = store.writer() if store is not None else None
        out = []
        start = writer.consumed if writer is not None else 0
        with P.bar(len(corpus2.sents), "pass 3: candidates", progress) as bar:
            bar.update(start)
            for i in range(start, len(corpus2.sents)):
                g, s2, p2, pruned = sources[i]
                s3 = pass3_sentence(g, s2, p2, pruned, inventory, vocab, labels, config, gold=True,
                                    protect_gold=training, rules=rules if training else None)
                if writer is not None:
                    writer.add(s3)
                    check_interrupt()
                else:
                    out.append(s3)
                bar.update(1)
        done = writer.finish() if writer is not None else out
    return Prepared3(done, corpus2.tokens, list(corpus2.skipped), None if training else sources, context)


def evaluate_pass3(model: Pass3Model, read_args, corpus: Prepared3, rules: RuleTables | None = None,
                   threads: int = 2, fallback: bool = True, retry: bool = True) -> dict:
    """UAS / LAS over structural attachment (every word; LAS with the whole label, and
    ``las_node`` with the parent node alone, the label pass 1's arc model predicts and
    its LAS counts), spine accuracy (identity), and
    unlabelled / labelled trace-edge precision and recall, in percent; failed parses,
    search errors against the gold graph, the chart's items kept per sentence and share
    of cells holding any item, and decoding speed.  A sentence pass 3 cannot parse is
    parsed again under relaxed pruning (``retry``, when the corpus has its sources;
    counted in ``retried``); if that fails too it is scored on its fallback (pass 2's
    graph, the classifier's first spines; ``fallback``) or, without, as all wrong, and
    counted in ``failed``."""
    start = time.perf_counter()
    parent = label_parents(model.vocab)
    edge_c = edge_counts()
    c = dict.fromkeys(("spines", "failed", "search", "items", "cells", "cells_used"), 0)
    retried = 0

    def job(i):         # what is counted of sentence i's decode (retried under relaxed pruning if needed)
        s = corpus.sents[i]
        d = model.decode(s, corpus.tokens, read_args, rules)
        again = relaxed_sentence(corpus, i) if not d.result.parsed and retry else None
        if again is not None:
            d2 = model.decode(again, corpus.tokens, read_args, rules)
            if d2.result.parsed:
                s, d = again, d2
        iu = np.triu_indices(s.N, 1)
        edges, spines = d.result.edges, d.spines
        if not d.result.parsed and fallback:
            edges = s.fallback_edges or {}
            spines = s.fallback_spines if s.fallback_spines is not None else spines
        counts = {"spines": int(((spines == s.gold_spine_id) & (s.gold_spine_id >= 0)).sum()),
                  "failed": int(not d.result.parsed), "search": int(d.search_error),
                  "items": int(d.result.kept.sum()), "cells": len(iu[0]),
                  "cells_used": int((d.result.kept[iu] > 0).sum())}
        return s.n, s.gold, edges, counts, again is not None

    for n, gold, edges, counts, tried in thread_imap(job, range(len(corpus.sents)), threads):
        retried += int(tried)
        for key, val in counts.items():
            c[key] += val
        count_edges(edge_c, n, gold, edges, parent)
    seconds = time.perf_counter() - start
    scores = edge_scores(edge_c)
    structure = {k: scores.pop(k) for k in ("uas", "las", "las_node")}
    return {"sentences": len(corpus.sents), **structure, "spine_acc": pct(c["spines"], edge_c["words"]), **scores,
            "failed": c["failed"], "retried": retried, "search_errors": c["search"],
            "items_per_sentence": round(c["items"] / max(len(corpus.sents), 1), 1),
            "cells_used_pct": pct(c["cells_used"], c["cells"]),
            "sentences_per_second": round(len(corpus.sents) / max(seconds, 1e-9), 1)}


def ratio_curve(outputs, corpus: PreparedCorpus, n_labels: int, ratios=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8,
                                                                       0.9, 1.0)) -> list[dict]:
    """Pass 2's pruning as a curve over ``ratios`` (the same ratio for both kinds): per
    ratio the gold structural and trace edges kept (percent of all gold edges of the
    kind, labelled) and the kept structural candidates in the thesis's definition (over
    ``sum n^2 x n_labels``)."""
    places = {kind: _gold_places(outputs, corpus, kind) for kind in (0, 1)}
    n2 = sum(s.n * s.n for s in corpus.sents)
    rows = []
    for r in ratios:
        kept_s = sum(int((p2.kept(s, r, r) & (s.cand_kind == 0)).sum()) for p2, s in zip(outputs, corpus.sents))
        rows.append({"ratio": r,
                     "gold_structural_kept_pct": round(100.0 * float((places[0] >= r).mean()), 2) if places[0].size else 0.0,
                     "gold_trace_kept_pct": round(100.0 * float((places[1] >= r).mean()), 2) if places[1].size else 0.0,
                     "structural_kept_seed_pct": round(100.0 * kept_s / max(n2 * n_labels, 1), 4)})
    return rows


#: the decision thresholds :func:`tune_trace_bias` tries (trace scores of a trained pass 3
#: on the sample's dev split: 5-95% quantiles about -1.2 .. 1.5)
TRACE_BIAS_GRID = (0.0, -0.1, -0.2, -0.3, -0.4, -0.6, -0.8, -1.0, -1.25, -1.5, -2.0)


def tune_trace_bias(model: Pass3Model, read_args, corpus: Prepared3, rules: RuleTables | None = None,
                    grid=TRACE_BIAS_GRID, threads: int = 2, min_precision: float = 0.0) -> tuple[float, list]:
    """``(bias, curve)``: the ``trace_bias`` of ``grid`` chosen on the decodes of
    ``corpus`` (dev), and per grid value the dev scores (``trace_p``, ``trace_r``,
    ``trace_f``, ``uas``, ``las``, ...).  With ``min_precision`` (a percentage) the
    chosen bias has the highest unlabelled trace recall among those whose trace
    precision reaches it; with 0, or when none reaches it, the best unlabelled trace F1.
    Ties: the one nearest 0.  A decision threshold on trace edges, plgraph's (the thesis
    has none): trained on 2,831 sentences the model's own threshold gives more recall
    and less precision than the thesis's, trained on 40,000 (P 88.3 / R 50.4)."""
    from dataclasses import replace

    curve = []
    for bias in grid:
        m = model.with_config(replace(model.config, trace_bias=float(bias)))
        r = evaluate_pass3(m, read_args, corpus, rules, threads=threads)
        p, rec = r["trace_p"], r["trace_r"]
        f = round(2 * p * rec / (p + rec), 2) if p + rec > 0 else 0.0
        curve.append({"trace_bias": float(bias), "trace_f": f, **{k: r[k] for k in (
            "trace_p", "trace_r", "trace_labelled_p", "trace_labelled_r", "uas", "las", "las_node", "spine_acc",
            "failed")}})
    precise = [row for row in curve if min_precision > 0 and row["trace_p"] >= min_precision]
    if precise:
        best = max(precise, key=lambda row: (row["trace_r"], -abs(row["trace_bias"])))
    else:
        best = max(curve, key=lambda row: (row["trace_f"], -abs(row["trace_bias"])))
    return best["trace_bias"], curve


__all__ = ["tune_trace_bias", "TRACE_BIAS_GRID", "relaxed_sentence", "ratio_curve", "pass2_outputs", "tune_ratios",
           "Prepared3", "Sources", "prepare_corpus3", "evaluate_pass3"]
