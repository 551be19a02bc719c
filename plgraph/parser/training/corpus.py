"""Sentences prepared for pass 2, and pass 2's scores on them.

:func:`prepare_corpus` turns graphs into :class:`~plgraph.parser.scoring.pass2.Pass2Sentence` s
(pruned by the coarse models), keeping each sentence's graph and pruning for pass 3;
:func:`evaluate_pass2` decodes them and scores structural attachment and trace edges
(the counting helpers are shared with pass 3).  Pass 2 is trained by
:func:`plgraph.parser.training.passes.train_pass`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ...encoding import encode_graph, encode_tokens
from ...progress import thread_imap
from ...rules.tables import RuleTables
from ...files.shards import StoreSpec
from ..scoring.labels import LabelVocab
from ..scoring.pass2 import Pass2Model, pass2_sentence


@dataclass
class PreparedCorpus:
    """Sentences prepared for pass 2, the token arrays their features read, and the
    ``(id, reason)`` of the sentences left out; ``graphs`` and ``pruned`` (when
    :func:`prepare_corpus` made it) hold each sentence's graph and coarse pruning
    (:meth:`plgraph.pruners.Pruners.prune`), in the order of ``sents``, for pass 3's
    preparation (:func:`plgraph.parser.training.cascade.prepare_corpus3`).  ``sents`` and
    ``pruned`` are lists, or sequences over shards on disk
    (:class:`~plgraph.files.shards.ShardedRecords`) that load a sentence when indexed: index
    them, never copy them whole."""

    sents: Sequence
    tokens: object
    skipped: list = field(default_factory=list)
    graphs: list | None = None
    pruned: Sequence | None = None


def prepare_corpus(graphs, pruners, vocab: LabelVocab, *, training: bool, rules: RuleTables | None = None,
                   max_words: int | None = None, progress=None, store: StoreSpec | None = None) -> PreparedCorpus:
    """Prune and prepare ``graphs`` with their gold graphs; ``training`` protects gold from
    pruning and marks its items (with ``rules``).  Sentences longer than ``max_words``, and
    sentences whose graph is malformed (an :class:`~plgraph.errors.InputError`), are
    skipped and listed in :attr:`PreparedCorpus.skipped` as ``(id, reason)``.

    ``store``: write the prepared sentences and their pruning into shards there
    (:mod:`plgraph.files.shards`) instead of keeping them in memory -- a complete store of the
    same key is used as it is, an unfinished one continued; Ctrl-C is a safe point after
    every sentence (:func:`~plgraph.signals.check_interrupt`)."""
    from ...errors import InputError
    from ...signals import check_interrupt
    from ... import progress as P

    keep = [g for g in graphs if max_words is None or len(g) <= max_words]
    skipped = [(g.id, f"more than {max_words} words") for g in graphs if max_words is not None and len(g) > max_words]
    tokens = encode_tokens([encode_graph(g) for g in keep], pruners.normaliser, pruners.tags)
    types = pruners.trace.labels.index
    done = store.complete() if store is not None else None
    if done is not None:
        return PreparedCorpus(done.field(0), tokens, skipped + [tuple(x) for x in done.meta["skipped"]],
                              [keep[i] for i in done.meta["kept"]], done.field(1))
    writer = store.writer() if store is not None else None
    meta = writer.meta if writer is not None else {}
    kept_idx, bad = meta.setdefault("kept", []), meta.setdefault("skipped", [])
    sents, pruned_all = [], []
    start = writer.consumed if writer is not None else 0
    with P.bar(len(keep), "pass 2: pruning and candidates", progress) as bar:
        bar.update(start)
        for i in range(start, len(keep)):
            g = keep[i]
            pruned = pruners.prune(g)
            try:
                sent = pass2_sentence(g, pruned, vocab, types, int(tokens.tok_off[i]), gold=True,
                                      protect_gold=training, rules=rules if training else None)
            except InputError as err:
                bad.append([g.id, str(err)])
                if writer is not None:
                    writer.skip()
            else:
                kept_idx.append(i)
                if writer is not None:
                    writer.add((sent, pruned))
                else:
                    sents.append(sent)
                    pruned_all.append(pruned)
            bar.update(1)
            if writer is not None:
                check_interrupt()
    if writer is not None:
        done = writer.finish()
        sents, pruned_all = done.field(0), done.field(1)
    return PreparedCorpus(sents, tokens, skipped + [tuple(x) for x in bad], [keep[i] for i in kept_idx], pruned_all)


def evaluate_pass2(model: Pass2Model, read_args, corpus: PreparedCorpus, rules: RuleTables | None = None,
                   threads: int = 2) -> dict:
    """Structural attachment (UAS; LAS = the full label right; ``las_node`` = the parent
    node right, the label pass 1's arc model predicts) over every word, and
    unlabelled / labelled trace-edge precision and recall against the representable gold
    graph, in percent; plus failed parses and decoding speed (sentences decode on
    ``threads`` threads, each decode dropped once counted)."""
    counts = edge_counts()
    parent = label_parents(model.vocab)
    failed = 0
    start = time.perf_counter()

    def job(i):
        s = corpus.sents[i]
        d = model.decode(s, corpus.tokens, read_args, rules)
        return s.n, s.gold, d.result.parsed, d.result.edges

    for n, gold, parsed, edges in thread_imap(job, range(len(corpus.sents)), threads):
        failed += int(not parsed)
        count_edges(counts, n, gold, edges, parent)
    seconds = time.perf_counter() - start
    return {"sentences": len(corpus.sents), **edge_scores(counts), "failed": failed,
            "sentences_per_second": round(len(corpus.sents) / max(seconds, 1e-9), 1)}


# -- scoring predicted edges against gold (passes 2 and 3) -------------------------------------
def pct(a, b) -> float:
    """``a`` of ``b`` in percent, two decimals (0 when ``b`` is 0)."""
    return round(100.0 * a / b, 2) if b else 0.0


def label_parents(vocab: LabelVocab) -> list:
    """The parent node of every label (the attachment node, pass 1's arc label)."""
    return [lab.parent for lab in vocab.labels]


def edge_counts() -> dict:
    """Zeroed counters for :func:`count_edges`."""
    return dict.fromkeys(("words", "uas", "las", "las_node", "t_pred", "t_gold", "t_u", "t_l"), 0)


def count_edges(c: dict, n: int, gold, edges: dict, parent: list) -> None:
    """Add one sentence of ``n`` words to the counters ``c``: predicted ``edges``
    (``{(child, parent, "S"|"T"): label}``) against ``gold``
    (:class:`~plgraph.parser.chart.tables.Gold`) -- every word's structural attachment (head;
    whole label; parent node ``parent[label]``) and the trace edges (unlabelled and
    labelled hits)."""
    heads = {cc: (p, lab) for (cc, p, kind), lab in edges.items() if kind == "S"}
    c["words"] += n
    for w in range(n):
        gp = np.flatnonzero(gold.s[w] >= 0)
        if gp.size and w in heads and heads[w][0] == gp[0]:
            c["uas"] += 1
            c["las"] += int(heads[w][1] == gold.s[w, gp[0]])
            c["las_node"] += int(parent[heads[w][1]] == parent[gold.s[w, gp[0]]])
    traces = {(cc, p): lab for (cc, p, kind), lab in edges.items() if kind == "T"}
    c["t_pred"] += len(traces)
    c["t_gold"] += int((gold.t >= 0).sum())
    for (cc, p), lab in traces.items():
        if gold.t[cc, p] >= 0:
            c["t_u"] += 1
            c["t_l"] += int(gold.t[cc, p] == lab)


def edge_scores(c: dict) -> dict:
    """Percentages of :func:`count_edges`' counters: ``uas``, ``las``, ``las_node`` over the
    words, and unlabelled / labelled trace precision and recall."""
    return {"uas": pct(c["uas"], c["words"]), "las": pct(c["las"], c["words"]),
            "las_node": pct(c["las_node"], c["words"]), "trace_p": pct(c["t_u"], c["t_pred"]),
            "trace_r": pct(c["t_u"], c["t_gold"]), "trace_labelled_p": pct(c["t_l"], c["t_pred"]),
            "trace_labelled_r": pct(c["t_l"], c["t_gold"])}


