"""``plgraph parser evaluate``: parse a split and score it the ways the thesis does.

:func:`evaluate_split` parses every sentence of a split (gold tags, or the model folder's
POS tagger's), then scores the output trees and graphs with :mod:`plgraph.eval`
(:func:`plgraph.eval.ceiling.score_outputs`):

* evalb (COLLINS.prm, no MAX_ERROR stop) with a ``TOP`` root, all lengths and <= 40 words,
  and, labelled, the figure with the ``ROOT`` root counted as a bracket (the
  thesis's 88.26 does not say which it is; the thesis's text puts it on WSJ section 22,
  "an F-score of 88.26 on section 22");
* the Johnson (2002) metric, normal and ``--null-only``, on the sentences of <= 40 words
  (the thesis's P 64 / R 48, WSJ 22) and on all (the repository README's section-23 figures);
* the graph scores (``shp-eval.py`` categories and the thesis's unlabelled / labelled trace
  edges, P 88.3 / R 50.4);
* how every sentence was parsed (:data:`~plgraph.parser.parsing.parser.STATUSES`) and the failed
  ones, speed;
* three reference points on the same sentences: the **baseline** (pass 1's tree and the
  most probable spines, no traces) and the **oracle** (the gold graph as this parser can
  build it: representable edges, trained labels) of :mod:`plgraph.parser.analysis.oracle` and :mod:`plgraph.parser.parsing.baseline`, and the
  conversion's **ceiling** (every gold edge, tree -> graph -> tree,
  :func:`plgraph.eval.ceiling.representation_ceiling`), so the gaps of the conversion,
  of the representation and label set, and of the model are separate.

Published figures sit in :data:`THESIS` (the thesis: evalb on WSJ 22, lengths not stated;
traces and Johnson on WSJ 22 <= 40 words; repository README: WSJ 23 Johnson with
predicted tags).
"""
from __future__ import annotations

import time

from ..parsing.parser import STATUSES, Parser

#: published figures: (value, what and where)
THESIS = {
    "evalb_f1": (88.26, "seed, evalb F1, WSJ 22"),
    "trace_p": (88.3, "seed, unlabelled trace edges P, WSJ 22"),
    "trace_r": (50.4, "seed, unlabelled trace edges R, WSJ 22"),
    "johnson_p": (64.0, "seed, Johnson P, WSJ 22 <= 40"),
    "johnson_r": (48.0, "seed, Johnson R, WSJ 22 <= 40"),
    "johnson_repo_p": (74.38, "repo README, Johnson P, WSJ 23"),
    "johnson_repo_r": (67.33, "repo README, Johnson R, WSJ 23"),
    "johnson_repo_f": (70.68, "repo README, Johnson F, WSJ 23"),
    "null_only_repo_f": (85.38, "repo README, Johnson null-only F, WSJ 23"),
    "seconds_per_sentence": (4.3, "seed, seconds per sentence"),
}



def parse_sentences(parser: Parser, sentences, *, predicted_tags: bool = False, jobs: int = 1,
                    progress=None) -> list:
    """:class:`~plgraph.parser.parsing.parser.ParseResult` of every corpus sentence (words from its
    graph; tags gold, or the parser's tagger's with ``predicted_tags``)."""
    return list(parser.parse_many(split_items(sentences, predicted_tags), jobs=jobs, progress=progress,
                                  desc="parsing"))


def split_items(sentences, predicted_tags: bool = False) -> list:
    """The ``(words, tags or None, id)`` items a split's sentences are parsed from."""
    return [(s.graph.words, None if predicted_tags else s.graph.tags, s.id) for s in sentences]


def _short(sentences, results, max_len: int):
    keep = [k for k, s in enumerate(sentences) if len(s.graph.words) <= max_len]
    return [sentences[k] for k in keep], [results[k] for k in keep]


def score_results(sentences, results) -> dict:
    """Scores of parse ``results`` against ``sentences`` (module docstring): the
    scorers' dicts for all lengths (``all``) and <= 40 words (``len40``)."""
    from ...eval.ceiling import score_outputs

    failures = [(r.id, r.reason) for r in results if r.failed]
    out = {"all": score_outputs(sentences, [r.tree for r in results], [r.graph for r in results], failures)}
    s40, r40 = _short(sentences, results, 40)
    out["len40"] = score_outputs(s40, [r.tree for r in r40], [r.graph for r in r40],
                                 [(r.id, r.reason) for r in r40 if r.failed])
    return out


def results_of_graphs(graphs, status: str) -> list:
    """:class:`~plgraph.parser.parsing.parser.ParseResult` s of ready graphs (an oracle's, a
    baseline's): their trees, made as the parser makes its own
    (:func:`~plgraph.parser.parsing.parser.graph_result`), or the fallback parse when a
    graph gives none."""
    from ...errors import InputError
    from ..parsing.parser import fallback_result, graph_result

    out = []
    for g in graphs:
        try:
            out.append(graph_result(g, status))
        except InputError as err:
            out.append(fallback_result(g.words, g.tags, g.id, f"{status} graph gives no tree: {err.reason}",
                                       g.options))
    return out


def reference_points(parser: Parser, sentences, results) -> dict:
    """Scores (:func:`score_results`) of the oracle and of the baseline
    (:mod:`~plgraph.parser.analysis.oracle`, the parser's :meth:`~plgraph.parser.parsing.parser.Parser.baseline`:
    pass 1's tree for the linear scorer) on ``sentences``; the baseline reads the tags
    the parser was given (``results``)."""
    from .oracle import oracle_graph

    oracle = results_of_graphs([oracle_graph(s.graph, parser.vocab) for s in sentences], "oracle")
    base = results_of_graphs([parser.baseline(r.words, r.tags, sid=r.id) for r in results], "baseline")
    return {"oracle": score_results(sentences, oracle), "baseline": score_results(sentences, base)}


def status_counts(results) -> dict:
    """How many sentences each :data:`~plgraph.parser.parsing.parser.STATUSES` covers."""
    return {st: sum(r.status == st for r in results) for st in STATUSES}


def construction_report(sentences, results, train_sentences=None) -> dict:
    """Trace accuracy by construction (:func:`plgraph.eval.constructions.by_construction`)
    of parse ``results`` against ``sentences``: ``{"all", "len40"}`` (<= 40 words), and
    ``train_counts`` (each construction's gold items in ``train_sentences``) when given."""
    from ...eval.constructions import by_construction, construction_counts

    s40, r40 = _short(sentences, results, 40)
    out = {"all": by_construction([s.tree for s in sentences], [r.tree for r in results]),
           "len40": by_construction([s.tree for s in s40], [r.tree for r in r40])}
    if train_sentences is not None:
        out["train_counts"] = construction_counts(s.tree for s in train_sentences)
    return out


def tagging_accuracy(sentences, results) -> float:
    """The percentage of words whose tag in ``results`` (the tags each sentence was parsed
    with: the parser's tagger's or the scorer's own) is the gold tag of ``sentences``,
    rounded to two decimals."""
    good = total = 0
    for s, r in zip(sentences, results):
        gold = s.graph.tags
        good += sum(p == t for p, t in zip(r.tags, gold))
        total += len(gold)
    return round(100.0 * good / total, 2) if total else 0.0


def evaluate_split(parser: Parser, sentences, *, predicted_tags: bool = False, jobs: int = 1, ceiling: bool = True,
                   progress=None, parse_items=None) -> tuple[dict, list]:
    """Parse and score ``sentences`` (module docstring): ``(doc, results)``, a JSON-ready
    dict and the :class:`~plgraph.parser.parsing.parser.ParseResult` s.  ``parse_items(items) ->
    results`` parses the :func:`split_items` elsewhere (``--dask``:
    :mod:`plgraph.parser.parsing.jobs`) instead of ``parser.parse_many`` in ``jobs`` threads."""
    from ...eval.ceiling import representation_ceiling

    sentences = list(sentences)
    start = time.perf_counter()
    if parse_items is None:
        results = parse_sentences(parser, sentences, predicted_tags=predicted_tags, jobs=jobs, progress=progress)
    else:
        results = list(parse_items(split_items(sentences, predicted_tags)))
    seconds = time.perf_counter() - start
    doc = {"sentences": len(sentences), "tags": "predicted" if predicted_tags else "gold", "jobs": jobs,
           "max_words": parser.max_words, "seconds": round(seconds, 2),
           "sentences_per_second": round(len(sentences) / max(seconds, 1e-9), 2),
           "statuses": status_counts(results),
           "failed": [[r.id, r.reason] for r in results if r.failed],
           "not_pass3": [[r.id, r.status, r.reason] for r in results if r.status in ("pass2", "pass1", "fallback")],
           "repaired": [[r.id, r.repairs] for r in results if r.repairs],
           "invalid": [[r.id, r.problems] for r in results if r.problems],
           "scores": score_results(sentences, results),
           "baseline_description": parser.scorer.baseline_description}
    if predicted_tags:
        doc["tagging_accuracy"] = tagging_accuracy(sentences, results)
    doc.update(reference_points(parser, sentences, results))
    if ceiling:
        doc["ceiling"] = {"all": representation_ceiling(sentences),
                          "len40": representation_ceiling(_short(sentences, sentences, 40)[0])}
    doc["seed"] = {k: v for k, (v, _) in THESIS.items()}
    return doc, results


def output_check(repaired: int, changes: int, invalid: int) -> str:
    """One line on the output check (:func:`~plgraph.convert.validity.repair_graph`,
    :func:`~plgraph.convert.validity.output_problems`) of a run's graphs."""
    return (f"output check: {repaired} graph(s) repaired ({changes} change(s)), {invalid} invalid graph(s) or "
            f"unmatched co-indices left")


def _f(x) -> str:
    return "   n/a" if x is None else f"{x:6.2f}"


def headline(doc: dict, part: str = "len40") -> dict:
    """The figures the issue asks for, from :func:`evaluate_split`'s dict: evalb F1 (TOP;
    ROOT counted), Johnson P/R/F (normal, null only), the thesis's trace-edge P/R (unlabelled,
    labelled), for ``part`` (``len40`` or ``all``)."""
    s = doc["scores"][part]
    g = s["graphs"]
    top, counted = s["evalb_top"][part], s["evalb_root_counted"][part]
    out = {"evalb_f1": top["f1"], "evalb_p": top["precision"], "evalb_r": top["recall"],
           "evalb_f1_root_counted": counted["f1"]}
    for key, src in (("johnson", "traces"), ("null_only", "traces_null_only")):
        out.update({f"{key}_p": s[src]["precision"], f"{key}_r": s[src]["recall"], f"{key}_f": s[src]["f1"]})
    for key, cat in (("trace", "seed_unlabeled_trace_edge"), ("trace_labelled", "seed_labeled_trace_edge")):
        out.update({f"{key}_p": g[cat]["precision"], f"{key}_r": g[cat]["recall"]})
    return out


def format_evaluation(doc: dict) -> str:
    """A readable table of :func:`evaluate_split`'s dict: plgraph, the representation's
    ceiling and the published figure, side by side."""
    thesis = THESIS
    lines = [f"{doc['sentences']} sentences, {doc['tags']} tags, {doc['jobs']} job(s): "
             f"{doc['seconds']:.1f} s, {doc['sentences_per_second']:.2f} sentences/s "
             f"({1 / max(doc['sentences_per_second'], 1e-9):.3f} s a sentence; seed "
             f"{thesis['seconds_per_sentence'][0]} s)"]
    if "tagging_accuracy" in doc:
        lines.append(f"POS tagging accuracy {doc['tagging_accuracy']:.2f}%")
    lines.append("parsed: " + ", ".join(f"{k} {v}" for k, v in doc["statuses"].items()))
    if "repaired" in doc:
        lines.append(output_check(len(doc["repaired"]), sum(len(r) for _, r in doc["repaired"]), len(doc["invalid"])))
    lines.append(f"baseline: {doc['baseline_description']}; oracle: the gold graph as the parser "
                 "can build it (representable edges, trained labels, gold spines); ceiling: every gold edge, "
                 "tree -> graph -> tree")
    columns = [("baseline", "baseline"), ("oracle", "oracle"), ("ceiling", "ceiling")]
    rows = [("evalb F1, TOP root", "evalb_f1", "evalb_f1"), ("evalb P, TOP root", "evalb_p", None),
            ("evalb R, TOP root", "evalb_r", None),
            ("evalb F1, ROOT counted as a bracket", "evalb_f1_root_counted", None),
            ("Johnson P", "johnson_p", "johnson_p"), ("Johnson R", "johnson_r", "johnson_r"),
            ("Johnson F", "johnson_f", "johnson_repo_f"), ("Johnson null-only F", "null_only_f", "null_only_repo_f"),
            ("trace edges P (unlabelled)", "trace_p", "trace_p"), ("trace edges R (unlabelled)", "trace_r", "trace_r"),
            ("trace edges P (labelled)", "trace_labelled_p", None), ("trace edges R (labelled)", "trace_labelled_r", None)]
    for part, title in (("len40", "sentences of <= 40 words"), ("all", "all sentences")):
        h = headline(doc, part)
        refs = [headline({"scores": doc[key]}, part) if key in doc else {} for key, _ in columns]
        lines.append(f"\n{title}")
        lines.append(f"{'':38s} {'plgraph':>8s}" + "".join(f" {name:>8s}" for _, name in columns)
                     + f" {'seed':>8s}  (seed figure's source)")
        for name, key, skey in rows:
            sv = thesis[skey][0] if skey else None
            src = thesis[skey][1] if skey else ""
            lines.append(f"{name:38s} {_f(h[key]):>8s}" + "".join(f" {_f(r.get(key)):>8s}" for r in refs)
                         + f" {_f(sv):>8s}  {src}")
    if "by_construction" in doc:
        from ...eval.constructions import format_constructions

        bc = doc["by_construction"]
        lines.append("\ntraces by construction, sentences of <= 40 words (Johnson items; train: gold items in "
                     "the train split)")
        lines.append(format_constructions(bc["len40"], bc.get("train_counts")).rstrip("\n"))
    for sid, status, reason in doc["not_pass3"]:
        lines.append(f"not parsed by pass 3: {sid} ({status}): {reason}")
    return "\n".join(lines) + "\n"


__all__ = ["THESIS", "evaluate_split", "tagging_accuracy", "construction_report", "reference_points",
           "results_of_graphs", "parse_sentences", "split_items", "score_results", "status_counts", "headline", "output_check", "format_evaluation"]
