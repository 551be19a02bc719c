"""What reaches pass 2, and how its decodes fare (``python -m plgraph parser stats``).

:func:`candidate_stats` measures the candidate lists of prepared (not gold-protected)
:class:`~plgraph.parser.scoring.pass2.Pass2Sentence` s -- what pass 1 and the trace classifier
let through, with the labels of the reference's ``EITHER`` -- against everything
possible, and the gold edges among them:

* pairs: the (child, parent) pairs with any candidate label, out of the n² ordered pairs
  of a word and another word or ROOT;
* structural labels: the structural candidates of every pair, out of n² × the number of
  structural labels of the vocabulary; and in the thesis's definition (the reference's
  ``PruningStats``, as ``pruners stats`` reports pass 1): out of n² × all labels;
* trace labels: the trace candidates, out of n(n-1) × the number of trace labels (a trace
  joins two words);
* gold recall: the gold edges (the representable gold graph of
  :func:`~plgraph.parser.scoring.pass2.gold_graph`, whose labels the vocabulary knows; those it
  does not know are counted apart) whose pair is a candidate pair with a label of their
  kind, and those whose label is a candidate.

:func:`pass2_stats` adds the decodes' figures: search errors (gold, attached but not
protected, outscores the prediction under the model; counted also where gold was
reachable -- every gold edge a candidate and its derivation within the rules), failed
parses, sentences whose gold is not derivable under the rules, arithmetic mismatches,
and :func:`~plgraph.parser.training.corpus.evaluate_pass2`'s scores, all from one decode per
sentence.
"""
from __future__ import annotations

import numpy as np

from ..chart.gold import gold_item_ids
from ..scoring.labels import LabelVocab


def _pct(part, whole, digits: int = 3) -> float:
    return round(100.0 * part / whole, digits) if whole else 0.0


def _gold_hits(sent, pairs: dict, X: np.ndarray, kind: int) -> tuple[int, int, int]:
    """(gold edges of ``kind`` in ``X``, those whose pair has a candidate of that kind,
    those whose label is a candidate) of one sentence; ``pairs``: (c, p) -> pair index."""
    gold = pair_ok = label_ok = 0
    for c, p in zip(*np.nonzero(X >= 0)):
        gold += 1
        k = pairs.get((int(c), int(p)))
        if k is None:
            continue
        lo, hi = sent.cand_off[k], sent.cand_off[k + 1]
        kinds, labs = sent.cand_kind[lo:hi], sent.cand_lab[lo:hi]
        pair_ok += int((kinds == kind).any())
        label_ok += int(bool((labs[kinds == kind] == X[c, p]).any()))
    return gold, pair_ok, label_ok


def candidate_counts(sents, vocab: LabelVocab) -> dict:
    """Raw counts behind :func:`candidate_stats` (see the module docstring)."""
    keys = ("pairs", "pairs_all", "structural_pairs", "trace_pairs", "trace_pairs_all", "structural", "structural_all",
            "trace", "trace_all", "gold_structural", "gold_structural_pair", "gold_structural_label", "gold_trace",
            "gold_trace_pair", "gold_trace_label", "gold_label_unseen", "gold_reachable")
    out = dict.fromkeys(keys, 0)
    n_s, n_t = vocab.n_structural, vocab.n_trace
    for s in sents:
        n = s.n
        kinds = s.cand_kind
        owner = np.repeat(np.arange(s.pc.shape[0]), np.diff(s.cand_off))     # the pair of each candidate
        out["pairs"] += int(s.pc.shape[0])
        out["pairs_all"] += n * n
        out["structural_pairs"] += int(np.unique(owner[kinds == 0]).size)
        out["trace_pairs"] += int(np.unique(owner[kinds == 1]).size)
        out["trace_pairs_all"] += n * (n - 1)
        out["structural"] += int((kinds == 0).sum())
        out["structural_all"] += n * n * n_s
        out["trace"] += int((kinds == 1).sum())
        out["trace_all"] += n * (n - 1) * n_t
        if s.gold is None:
            continue
        pairs = {(int(c), int(p)): k for k, (c, p) in enumerate(zip(s.pc, s.pp))}
        gs = _gold_hits(s, pairs, s.gold.s, 0)
        gt = _gold_hits(s, pairs, s.gold.t, 1)
        for key, val in zip(("gold_structural", "gold_structural_pair", "gold_structural_label"), gs):
            out[key] += val
        for key, val in zip(("gold_trace", "gold_trace_pair", "gold_trace_label"), gt):
            out[key] += val
        out["gold_label_unseen"] += int(s.gold_unseen)
    return out


def candidate_stats(sents, vocab: LabelVocab) -> dict:
    """Kept fractions and gold recall of the candidates of ``sents`` in percent, with the
    raw counts under ``"counts"`` (see the module docstring)."""
    c = candidate_counts(sents, vocab)
    return {
        "pairs_kept_pct": _pct(c["pairs"], c["pairs_all"]),
        "pairs_gold_recall_pct": _pct(c["gold_structural_pair"] + c["gold_trace_pair"],
                                      c["gold_structural"] + c["gold_trace"], 2),
        "structural_pairs_kept_pct": _pct(c["structural_pairs"], c["pairs_all"]),
        "trace_pairs_kept_pct": _pct(c["trace_pairs"], c["trace_pairs_all"]),
        "structural_kept_pct": _pct(c["structural"], c["structural_all"], 4),
        "structural_kept_seed_pct": _pct(c["structural"], c["pairs_all"] * len(vocab), 4),
        "trace_kept_pct": _pct(c["trace"], c["trace_all"], 4),
        "structural_pair_gold_recall_pct": _pct(c["gold_structural_pair"], c["gold_structural"], 2),
        "structural_gold_recall_pct": _pct(c["gold_structural_label"], c["gold_structural"], 2),
        "trace_pair_gold_recall_pct": _pct(c["gold_trace_pair"], c["gold_trace"], 2),
        "trace_gold_recall_pct": _pct(c["gold_trace_label"], c["gold_trace"], 2),
        "labels_structural": vocab.n_structural, "labels_trace": vocab.n_trace,
        "counts": c,
    }


class _Recorder:
    """Stands in for a pass model inside an evaluation function: decodes with the model
    and keeps of every sentence's decode whether it was a search error and a mismatch
    (``decoded``, keyed by the sentence object's id; the decode itself is dropped)."""

    def __init__(self, model):
        self.model = model
        self.decoded: dict = {}

    def __getattr__(self, name):
        return getattr(self.model, name)

    def decode(self, sent, *args, **kwargs):
        d = self.model.decode(sent, *args, **kwargs)
        self.decoded[id(sent)] = (bool(d.search_error), bool(d.mismatch))
        return d


def _all_gold_candidates(sent) -> bool:
    """Every gold edge of ``sent`` is a candidate pair and label of its kind."""
    pairs = {(int(c), int(p)): k for k, (c, p) in enumerate(zip(sent.pc, sent.pp))}
    gs, _, s_ok = _gold_hits(sent, pairs, sent.gold.s, 0)
    gt, _, t_ok = _gold_hits(sent, pairs, sent.gold.t, 1)
    return gs == s_ok and gt == t_ok


def decode_stats(model, read_args, corpus, rules, vocab: LabelVocab, evaluate, threads: int = 2,
                 reachable=_all_gold_candidates) -> dict:
    """Candidate statistics of ``corpus`` (prepared with gold attached, not protected),
    then one decode per sentence through ``evaluate(model, read_args, corpus, rules,
    threads)`` (a pass's dev scores): search errors (also where ``reachable(sent)`` and
    gold is derivable), failed parses, not derivable (under ``rules``), mismatches, and
    the scores (see the module docstring)."""
    doc = candidate_stats(corpus.sents, vocab)
    recorder = _Recorder(model)
    scores = evaluate(recorder, read_args, corpus, rules, threads)
    errors = reachable_errors = not_derivable = mismatches = 0
    for s in corpus.sents:
        search_error, mismatch = recorder.decoded[id(s)]
        derivable = s.gold is not None and gold_item_ids(s.gold, rules) is not None
        not_derivable += int(s.gold is not None and not derivable)
        mismatches += int(mismatch)
        if search_error:
            errors += 1
            reachable_errors += int(derivable and reachable(s))
    doc.update({"search_errors": errors, "search_errors_gold_reachable": reachable_errors,
                "not_derivable": not_derivable, "mismatches": mismatches})
    doc.update(scores)
    return doc


def pass2_stats(model, read_args, corpus, rules, vocab: LabelVocab, threads: int = 2) -> dict:
    """:func:`decode_stats` of pass 2 (scores of :func:`~plgraph.parser.training.corpus.evaluate_pass2`)."""
    from ..training.corpus import evaluate_pass2

    return decode_stats(model, read_args, corpus, rules, vocab, evaluate_pass2, threads)


def spine_stats(sents, inventory) -> dict:
    """Spine options of prepared pass-3 sentences: kept out of words x the inventory,
    per word, and the gold spines among them (of every word; a gold spine outside the
    inventory counts as lost)."""
    words = options = hits = 0
    for s in sents:
        off = s.sp_off
        words += s.n
        options += int(s.nsp[:s.n].sum())
        hits += sum(int(s.gold_spine_id[w] >= 0 and s.gold_spine_id[w] in s.sp_id[off[w]:off[w + 1]])
                    for w in range(s.n))
    return {"spines_kept_pct": _pct(options, words * len(inventory)),
            "spine_options_per_word": round(options / max(words, 1), 3),
            "spines_gold_recall_pct": _pct(hits, words, 2), "spine_inventory": len(inventory)}


def _pass3_reachable(sent) -> bool:
    return _all_gold_candidates(sent) and bool((sent.gold.spine >= 0).all())


def pass3_stats(model, read_args, corpus, rules, vocab: LabelVocab, inventory, threads: int = 2) -> dict:
    """:func:`decode_stats` of pass 3 (scores of :func:`~plgraph.parser.training.cascade.evaluate_pass3`;
    gold reachable also needs every gold spine among the options) and :func:`spine_stats`."""
    from ..training.cascade import evaluate_pass3

    doc = decode_stats(model, read_args, corpus, rules, vocab, evaluate_pass3, threads, _pass3_reachable)
    doc.update(spine_stats(corpus.sents, inventory))
    return doc



# -- a split measured ---------------------------------------------------------------------------
def split_stats(model_dir, split: str = "dev", *, ptb=None, threads: int = 2, progress=None,
                trace_bias_curve: bool = False, limit: int | None = None, log=print, warn=None) -> dict:
    """What reaches pass 2 and how the passes' decodes fare on ``split``, as a dict (the
    figures ``parser stats`` prints and writes as JSON), the tables written to ``log``
    as they are measured and unreadable or malformed sentences reported to ``warn``
    (standard error by default).

    Loads the model (and its coarse models; every file checked, and the passes built,
    before any work), prepares the split's sentences of at most the model's
    ``max_words`` words (gold attached, not protected), and measures
    (:func:`pass2_stats`), then pass 1's pruning, pass 2's pruning curve and -- when the
    model has pass 3 -- pass 3 with its spine-top check as trained and switched the
    other way; ``trace_bias_curve``: also pass 3's trace P/R at each trace threshold of
    the tuning grid; ``limit``: only the split's first ``limit`` sentences."""
    from ...progress import shown
    from ..model import ParserModel
    from ..scoring import pass3 as P3
    from ..scoring.pass2 import Pass2Config, Pass2Model
    from ..training.pipeline import prepare_split, read_split, short_graphs, to_stderr

    warn = warn or to_stderr
    model = ParserModel.load(model_dir)
    pass2, read_args = model.pass_model("pass2", Pass2Config, lambda c: Pass2Model(model.vocab, c))
    pass3 = None
    if "pass3" in model.folder.header.get("passes", {}):
        inventory = P3.SpineInventory(model.pruners.spine.labels.items, model.vocab)
        pass3 = (inventory, *model.pass_model("pass3", P3.Pass3Config,
                                              lambda c: P3.Pass3Model(model.vocab, inventory, c)))
    progress = shown(progress)
    sents, unreadable = read_split(split, ptb, progress, warn)
    sents = sents[:limit] if limit else sents
    graphs, too_long = short_graphs([s.graph for s in sents], model.max_words)
    corpus = prepare_split(graphs, model.pruners, model.vocab, None, training=False,
                           what=f"{split} (at most {model.max_words} words)", too_long=too_long, progress=progress,
                           log=log, warn=warn)
    doc = {"split": split, "limit": limit, "max_words": model.max_words, "skipped_too_long": too_long,
           "skipped_malformed": len(corpus.skipped), "skipped_unreadable": unreadable}
    doc.update(pass2_stats(pass2, read_args, corpus, model.rules, model.vocab, threads=threads))
    log(format_split_stats(doc))
    _pass1_and_3_stats(model, pass2, read_args, pass3, graphs, corpus, doc, progress, threads, trace_bias_curve, log)
    return doc


def _pass1_and_3_stats(model, pass2, read2, pass3, graphs, corpus, doc: dict, progress, threads: int,
                       trace_bias_curve: bool, log) -> None:
    """Add to ``doc`` and print: pass 1's pruning (``pruners stats``' figures, the thesis's
    definition included), pass 2's pruning curve, and -- when the model has pass 3
    (``pass3``: its ``(inventory, model, read_args)``, else None) -- pass 3's candidates,
    spines and decodes, with the spine-top check as trained and switched the other way."""
    from dataclasses import replace

    from ...pruners.measure import pruning_stats
    from ..training.cascade import pass2_outputs, prepare_corpus3, ratio_curve

    vocab = model.vocab
    p1 = pruning_stats(model.pruners, graphs, label_vocab=vocab)
    doc["pass1"] = {k: p1[k] for k in ("edges_kept_seed_pct", "edges_kept_pct", "edge_pairs_kept_pct",
                                       "edges_gold_recall_pct", "cells_kept_pct", "traces_kept_pct",
                                       "traces_gold_recall_pct", "spines_kept_pct", "spines_gold_recall_pct") if k in p1}
    outputs = pass2_outputs(pass2, read2, corpus, model.rules, threads=threads, progress=progress)
    doc["pass2_curve"] = ratio_curve(outputs, corpus, len(vocab))
    lines = ["pass 1 (seed's definition): structural edges {edges_kept_seed_pct}% kept, gold {edges_gold_recall_pct}%; "
             "cells {cells_kept_pct}%; traces {traces_kept_pct}% (gold {traces_gold_recall_pct}%); spines "
             "{spines_kept_pct}% (gold {spines_gold_recall_pct}%)".format(**{k: doc['pass1'].get(k) for k in (
                 "edges_kept_seed_pct", "edges_gold_recall_pct", "cells_kept_pct", "traces_kept_pct",
                 "traces_gold_recall_pct", "spines_kept_pct", "spines_gold_recall_pct")}),
             "pass 2 pruning curve: ratio  gold S kept %  gold T kept %  S kept (seed's definition) %"]
    lines += [f"  {r['ratio']:.1f}  {r['gold_structural_kept_pct']:7.2f}  {r['gold_trace_kept_pct']:7.2f}  "
              f"{r['structural_kept_seed_pct']:9.4f}" for r in doc["pass2_curve"]]
    log("\n".join(lines))
    if pass3 is None:
        return
    inventory, pass3, read3 = pass3
    config = pass3.config
    for key, cfg in (("pass3", config),
                     ("pass3_spine_top_check_flipped", replace(config, spine_top_check=not config.spine_top_check))):
        c3 = prepare_corpus3(corpus, outputs, model.pruners, inventory, vocab, cfg, training=False,
                             progress=progress)
        doc[key] = {"spine_top_check": cfg.spine_top_check, "ratio_s": cfg.ratio_s, "ratio_t": cfg.ratio_t,
                    **pass3_stats(pass3, read3, c3, model.rules, vocab, inventory, threads=threads)}
        d = doc[key]
        log(f"pass 3 (spine-top check {'on' if cfg.spine_top_check else 'off'}; ratios {cfg.ratio_s:.4f} / "
            f"{cfg.ratio_t:.4f}): structural labels {d['structural_kept_seed_pct']}% kept (seed's definition), "
            f"gold {d['structural_gold_recall_pct']}%; trace labels {d['trace_kept_pct']}% (gold "
            f"{d['trace_gold_recall_pct']}%); spines {d['spine_options_per_word']} a word, {d['spines_kept_pct']}% "
            f"(gold {d['spines_gold_recall_pct']}%); chart cells used {d['cells_used_pct']}%, "
            f"{d['items_per_sentence']} items a sentence")
        log(f"pass 3: UAS {d['uas']} LAS {d['las']} (attachment node {d['las_node']}) spines {d['spine_acc']}; "
            f"traces P {d['trace_p']} R "
            f"{d['trace_r']}; {d['search_errors']} search errors ({d['search_errors_gold_reachable']} with gold "
            f"reachable), {d['failed']} failed, {d['not_derivable']} not derivable, {d['mismatches']} mismatches; "
            f"{d['sentences_per_second']} sentences/s")
        if key == "pass3" and trace_bias_curve:
            _trace_bias_curve(pass3, read3, c3, model.rules, doc, threads, log)


def _trace_bias_curve(pass3, read3, c3, rules, doc: dict, threads: int, log) -> None:
    """Add to ``doc`` and print pass 3's trace P/R at each trace threshold of the tuning
    grid (:func:`plgraph.parser.training.cascade.tune_trace_bias`)."""
    from ..training.cascade import tune_trace_bias

    bias, curve = tune_trace_bias(pass3, read3, c3, rules, threads=threads)
    doc["pass3_trace_bias_curve"] = {"best_trace_f": bias, "rows": curve}
    log("pass 3 trace threshold: bias  trace P  trace R  trace F  UAS  LAS"
        + f"  (best F at {bias:g}; the model's own: {pass3.config.trace_bias or 0.0:g})")
    log("\n".join(f"  {r['trace_bias']:5.2f}  {r['trace_p']:6.2f}  {r['trace_r']:6.2f}  {r['trace_f']:6.2f}  "
                  f"{r['uas']:5.2f}  {r['las']:5.2f}" for r in curve))


def format_split_stats(doc) -> str:
    """The pass-2 figures of :func:`split_stats` as a table."""
    rows = [("(child, parent) pairs", doc["pairs_kept_pct"], doc["pairs_gold_recall_pct"]),
            ("  with a structural label", doc["structural_pairs_kept_pct"], doc["structural_pair_gold_recall_pct"]),
            ("  with a trace label (of word pairs)", doc["trace_pairs_kept_pct"], doc["trace_pair_gold_recall_pct"]),
            (f"structural labels (of {doc['labels_structural']} per pair)", doc["structural_kept_pct"],
             doc["structural_gold_recall_pct"]),
            (f"trace labels (of {doc['labels_trace']} per word pair)", doc["trace_kept_pct"],
             doc["trace_gold_recall_pct"])]
    lines = [f"{doc['split']}: {doc['sentences']} sentences of at most {doc['max_words']} words "
             f"({doc['sentences_per_second']} sentences/s)",
             f"{'reaching pass 2 (pass 1 + trace classifier)':44s} {'kept %':>9s} {'gold kept %':>12s}"]
    for name, kept, rec in rows:
        lines.append(f"{name:44s} {kept:9.4f} {'' if rec is None else f'{rec:12.2f}':>12s}")
    lines.append(f"pass 2: {doc['search_errors']} search errors ({doc['search_errors_gold_reachable']} with gold "
                 f"reachable), {doc['failed']} failed, {doc['not_derivable']} not derivable under the rules, "
                 f"{doc['mismatches']} mismatches")
    lines.append(f"pass 2: UAS {doc['uas']} LAS {doc['las']} (attachment node {doc['las_node']}); "
                 f"traces P {doc['trace_p']} R {doc['trace_r']} "
                 f"(labelled P {doc['trace_labelled_p']} R {doc['trace_labelled_r']})")
    return "\n".join(lines)


__all__ = ["candidate_counts", "candidate_stats", "decode_stats", "pass2_stats", "spine_stats", "pass3_stats",
           "split_stats", "format_split_stats"]
