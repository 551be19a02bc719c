"""What reaches pass 2, and how its decodes fare (``python -m plgraph parser stats``).

:func:`candidate_stats` measures the candidate lists of prepared (not gold-protected)
:class:`~plgraph.parser.pass2.Pass2Sentence` s -- what pass 1 and the trace classifier
let through, with the labels of the reference's ``EITHER`` -- against everything
possible, and the gold edges among them:

* pairs: the (child, parent) pairs with any candidate label, out of the n² ordered pairs
  of a word and another word or ROOT;
* structural labels: the structural candidates of every pair, out of n² × the number of
  structural labels of the vocabulary; and in the seed's definition (the reference's
  ``PruningStats``, as ``pruners stats`` reports pass 1): out of n² × all labels;
* trace labels: the trace candidates, out of n(n-1) × the number of trace labels (a trace
  joins two words);
* gold recall: the gold edges (the representable gold graph of
  :func:`~plgraph.parser.pass2.gold_graph`, whose labels the vocabulary knows; those it
  does not know are counted apart) whose pair is a candidate pair with a label of their
  kind, and those whose label is a candidate.

:func:`pass2_stats` adds the decodes' figures: search errors (gold, attached but not
protected, outscores the prediction under the model; counted also where gold was
reachable -- every gold edge a candidate and its derivation within the rules), failed
parses, sentences whose gold is not derivable under the rules, arithmetic mismatches,
and :func:`~plgraph.parser.training.evaluate_pass2`'s scores, all from one decode per
sentence.
"""
from __future__ import annotations

import numpy as np

from .gold import gold_item_ids
from .labels import LabelVocab


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
    and keeps every sentence's result (``decoded``, keyed by the sentence object's id)."""

    def __init__(self, model):
        self.model = model
        self.decoded: dict = {}

    def __getattr__(self, name):
        return getattr(self.model, name)

    def decode(self, sent, *args, **kwargs):
        d = self.model.decode(sent, *args, **kwargs)
        self.decoded[id(sent)] = d
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
        d = recorder.decoded[id(s)]
        derivable = s.gold is not None and gold_item_ids(s.gold, rules) is not None
        not_derivable += int(s.gold is not None and not derivable)
        mismatches += int(d.mismatch)
        if d.search_error:
            errors += 1
            reachable_errors += int(derivable and reachable(s))
    doc.update({"search_errors": errors, "search_errors_gold_reachable": reachable_errors,
                "not_derivable": not_derivable, "mismatches": mismatches})
    doc.update(scores)
    return doc


def pass2_stats(model, read_args, corpus, rules, vocab: LabelVocab, threads: int = 2) -> dict:
    """:func:`decode_stats` of pass 2 (scores of :func:`~plgraph.parser.training.evaluate_pass2`)."""
    from .training import evaluate_pass2

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
    """:func:`decode_stats` of pass 3 (scores of :func:`~plgraph.parser.cascade.evaluate_pass3`;
    gold reachable also needs every gold spine among the options) and :func:`spine_stats`."""
    from .cascade import evaluate_pass3

    doc = decode_stats(model, read_args, corpus, rules, vocab, evaluate_pass3, threads, _pass3_reachable)
    doc.update(spine_stats(corpus.sents, inventory))
    return doc


__all__ = ["candidate_counts", "candidate_stats", "decode_stats", "pass2_stats", "spine_stats", "pass3_stats"]
