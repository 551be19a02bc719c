"""Training and measuring pass 2 in memory (design notes ``1ec-parser.md`` §6.2).

:func:`prepare_corpus` turns graphs into :class:`~plgraph.parser.pass2.Pass2Sentence` s
(pruned by the coarse models), :func:`train_pass2` runs the online primal subgradient +
AdaGrad learner (:mod:`plgraph.learn`) over loss-augmented decodes and records per epoch
the loss, search errors, arithmetic mismatches, failed parses and sentences not derivable
under the rules, and the dev scores of :func:`evaluate_pass2`.  The model folder, resume
and the command line come with the rest of the issue "The trained graph parser".
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..encoding import encode_graph, encode_tokens
from ..learn import make_learner, run_epoch
from ..learn.learners import plain_read_args
from ..rules.tables import RuleTables
from .labels import LabelVocab
from .pass2 import Pass2Config, Pass2Model, batch_gradient, prepare


@dataclass
class PreparedCorpus:
    """Sentences prepared for pass 2, the token arrays their features read, and the
    ``(id, reason)`` of the sentences left out."""

    sents: list
    tokens: object
    skipped: list = field(default_factory=list)


def prepare_corpus(graphs, pruners, vocab: LabelVocab, *, training: bool, rules: RuleTables | None = None,
                   max_words: int | None = None, progress=None) -> PreparedCorpus:
    """Prune and prepare ``graphs`` with their gold graphs; ``training`` protects gold from
    pruning and marks its items (with ``rules``).  Sentences longer than ``max_words``, and
    sentences whose graph is malformed (an :class:`~plgraph.errors.InputError`), are
    skipped and listed in :attr:`PreparedCorpus.skipped` as ``(id, reason)``."""
    from ..errors import InputError
    from .. import progress as P

    keep = [g for g in graphs if max_words is None or len(g) <= max_words]
    skipped = [(g.id, f"more than {max_words} words") for g in graphs if max_words is not None and len(g) > max_words]
    tokens = encode_tokens([encode_graph(g) for g in keep], pruners.normaliser, pruners.tags)
    types = pruners.trace.labels.index
    sents = []
    with P.bar(len(keep), "pass 2: pruning and candidates", progress) as bar:
        for i, g in enumerate(keep):
            try:
                sents.append(prepare(g, pruners.prune(g), vocab, types, int(tokens.tok_off[i]), gold=True,
                                     protect_gold=training, rules=rules if training else None))
            except InputError as err:
                skipped.append((g.id, str(err)))
            bar.update(1)
    return PreparedCorpus(sents, tokens, skipped)


def evaluate_pass2(model: Pass2Model, read_args, corpus: PreparedCorpus, rules: RuleTables | None = None,
                   threads: int = 2) -> dict:
    """Structural attachment (UAS; LAS = the full label right; ``las_node`` = the parent
    node right, the label pass 1's arc model predicts) over every word, and
    unlabelled / labelled trace-edge precision and recall against the representable gold
    graph, in percent; plus failed parses and decoding speed (sentences decode on
    ``threads`` threads)."""
    counts = edge_counts()
    parent = label_parents(model.vocab)
    failed = 0
    start = time.perf_counter()
    job = lambda s: model.decode(s, corpus.tokens, read_args, rules)  # noqa: E731
    if threads > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=threads) as pool:
            decoded = list(pool.map(job, corpus.sents))
    else:
        decoded = [job(s) for s in corpus.sents]
    for s, d in zip(corpus.sents, decoded):
        failed += int(not d.result.parsed)
        count_edges(counts, s.n, s.gold, d.result.edges, parent)
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
    (:class:`~plgraph.parser.tables.Gold`) -- every word's structural attachment (head;
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


def train_pass2(train: PreparedCorpus, dev: PreparedCorpus | None, vocab: LabelVocab, rules: RuleTables,
                config: Pass2Config = Pass2Config(), *, seed: int = 0, threads: int = 2, progress=None, log=None):
    """Train pass 2; returns ``(model, final weights, history)``.  ``history`` has one
    record per epoch: loss, search errors, mismatches (must be 0), failed parses, not
    derivable, seconds, and the dev scores.  Each mini-batch decodes on ``threads``
    threads (the result does not depend on it)."""
    model = Pass2Model(vocab, config)
    model.take_positive(train.sents, train.tokens)
    lrn = make_learner("adagrad", model.n_weights, eta=config.eta, C=config.C, reg=config.reg)
    rng = np.random.default_rng(seed)
    history = []
    for epoch in range(1, config.epochs + 1):
        stats: dict = {}
        ep = run_epoch(lrn, len(train.sents),
                       lambda b: batch_gradient(model, [train.sents[i] for i in b], train.tokens, lrn, rules,
                                                stats=stats, threads=threads),
                       batch_size=config.batch, rng=rng, epoch=epoch, progress=progress, name="pass 2")
        rec = {"epoch": epoch, "loss": ep.loss, "seconds": round(ep.seconds, 1), **stats}
        if dev is not None:
            snapshot = make_learner("adagrad", model.n_weights, eta=config.eta, C=config.C, reg=config.reg)
            snapshot.w, snapshot.q, snapshot.u, snapshot.n = lrn.w.copy(), lrn.q.copy(), lrn.u.copy(), lrn.n
            snapshot.catch_up()
            rec.update({f"dev_{k}": v for k, v in evaluate_pass2(model, plain_read_args(snapshot.w), dev, rules,
                                                                 threads).items()})
        history.append(rec)
        if log:
            log(rec)
    lrn.catch_up()
    return model, lrn.w.copy(), history
