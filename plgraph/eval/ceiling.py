"""The representation's own ceiling: how much of a gold tree survives tree -> graph -> tree.

A parser that predicts the gold graph perfectly still outputs ``graph_to_tree(graph)``,
with the null elements placed by the reference's heuristic (``use_null_positions=False``:
the graph does not store where a null sat among its host's children).  This module scores
that round trip against the gold tree with all three scorers, so a parser's figures can
be read against what the representation allows:

* ``evalb``: bracket scores (COLLINS.prm, no MAX_ERROR stop) with the root written as
  ``TOP`` (deleted by COLLINS.prm, the usual convention) and, labelled as such, with the
  ``ROOT`` root counted as a bracket (how ``graph_to_tree`` and the reference's ``-e he``
  output scores when fed to EVALB unchanged);
* ``traces``: the Johnson (2002) metric, normal and ``--null-only``;
* ``graphs``: the round-trip tree converted back to a graph, against the gold graph.

Gold trees are plgraph's cleaned trees (``Corpus`` sentences: ``ROOT`` on top, the
reference's cleaning), the trees the graphs were made from; ``evalb_raw_top`` scores the
same output against the treebank's raw trees (``read_ptb(clean=False)``), where the
reference cleaning's own changes (``--`` tagged ``:``, ``{`` written ``-LCB-`` ...) show.
"""
from __future__ import annotations

from ..convert import graph_to_tree, tree_to_graph
from ..errors import InputError
from ..ptb.reader import SentenceTree, read_ptb
from .evalb import evalb
from .graphs import graphs
from .traces import traces

__all__ = ["with_root", "round_trip", "raw_gold_trees", "representation_ceiling", "score_outputs", "format_ceiling", "cli_main"]


def with_root(tree, label: str):
    """A copy of ``tree`` whose root is labelled ``label`` (``TOP``, ``ROOT``)."""
    out = tree.copy()
    out.label = label
    return out


def round_trip(sentences, *, use_null_positions: bool = False, options=None):
    """``(gold trees, round-trip trees, gold graphs, round-trip graphs, failures)`` for
    :class:`~plgraph.corpora.Sentence` objects.  A sentence whose round trip fails is
    listed in ``failures`` as ``(id, reason)`` and scored as an empty parse (it still
    counts against recall)."""
    gold_trees, test_trees, gold_graphs, test_graphs, failures = [], [], [], [], []
    for s in sentences:
        gold_trees.append(s.tree)
        gold_graphs.append(s.graph)
        try:
            tree = graph_to_tree(s.graph.copy() if hasattr(s.graph, "copy") else s.graph,
                                 use_null_positions=use_null_positions)
            back = tree_to_graph(tree, options, sid=s.id)
        except InputError as err:
            failures.append((s.id, err.reason if hasattr(err, "reason") else str(err)))
            test_trees.append(None)
            test_graphs.append(None)
            continue
        test_trees.append(tree)
        test_graphs.append(back)
    return gold_trees, test_trees, gold_graphs, test_graphs, failures


def raw_gold_trees(sentences) -> list:
    """The uncleaned treebank tree of each sentence (read again from ``s.source``)."""
    by_file: dict = {}
    out = []
    for s in sentences:
        if s.source not in by_file:
            by_file[s.source] = {x.id: x.tree for x in read_ptb(s.source, clean=False, on_error="skip")
                                 if isinstance(x, SentenceTree)}
        out.append(by_file[s.source][s.id])
    return out


def representation_ceiling(sentences, *, use_null_positions: bool = False, options=None) -> dict:
    """Scores of the round trip of ``sentences`` (see the module doc) as a JSON-ready dict:
    ``{"sentences", "failures", "evalb_top": {"all", "len40"}, "evalb_root_counted": {...},
    "evalb_raw_top": {...},
    "traces": {...}, "traces_null_only": {...}, "graphs": {...}}`` (the scorers' ``all`` /
    ``totals`` parts)."""
    sentences = list(sentences)
    _gold_t, test_t, _gold_g, test_g, failures = round_trip(sentences, use_null_positions=use_null_positions,
                                                            options=options)
    out = score_outputs(sentences, test_t, test_g, failures)
    out["use_null_positions"] = use_null_positions
    return out


def score_outputs(sentences, test_trees, test_graphs, failures=()) -> dict:
    """Scores of test trees and graphs (``None``: no output, scored as an empty parse;
    its graph is left out of the graph scores) against ``sentences``' gold trees and
    graphs, as :func:`representation_ceiling` reports them: ``{"sentences", "failures",
    "evalb_top", "evalb_root_counted", "evalb_raw_top", "traces", "traces_null_only",
    "graphs", "graphs_sentences"}``."""
    sentences = list(sentences)
    gold_t = [s.tree for s in sentences]
    gold_g = [s.graph for s in sentences]
    test_t, test_g = list(test_trees), list(test_graphs)
    ids = [s.id for s in sentences]
    out: dict = {"sentences": len(sentences), "failures": [list(f) for f in failures]}
    for key, root in (("evalb_top", "TOP"), ("evalb_root_counted", "ROOT")):
        result = evalb([with_root(t, root) for t in gold_t],
                       ["" if t is None else with_root(t, root) for t in test_t])
        out[key] = {k: dict(v) for k, v in result.summary.items()}
    raw = raw_gold_trees(sentences)
    result = evalb([with_root(t, "TOP") for t in raw], ["" if t is None else with_root(t, "TOP") for t in test_t])
    out["evalb_raw_top"] = {k: dict(v) for k, v in result.summary.items()}
    out["evalb_raw_top"]["messages"] = list(result.messages)
    for key, null_only in (("traces", False), ("traces_null_only", True)):
        out[key] = traces(gold_t, test_t, null_only=null_only, ids=ids).all
    keep = [k for k, g in enumerate(test_g) if g is not None]
    result = graphs([gold_g[k] for k in keep], [test_g[k] for k in keep])
    out["graphs"] = {cat: dict(v) for cat, v in result.totals.items()}
    out["graphs_sentences"] = len(keep)
    return out


def _f(x) -> str:
    return "   n/a" if x is None else f"{x:6.2f}"


def format_ceiling(result: dict) -> str:
    """A readable table of :func:`representation_ceiling`'s dict."""
    lines = [f"sentences {result['sentences']}, round trips failed {len(result['failures'])}"
             f" (nulls placed {'as in gold' if result['use_null_positions'] else 'by the reference heuristic'})",
             f"{'scorer':48s} {'P':>6s} {'R':>6s} {'F':>6s}"]
    for key, title in (("evalb_top", "evalb, TOP root"), ("evalb_root_counted", "evalb, ROOT counted"),
                       ("evalb_raw_top", "evalb vs raw treebank trees, TOP root")):
        for part, suffix in (("all", ""), ("len40", " (len<=40)")):
            s = result[key][part]
            lines.append(f"{title + suffix:48s} {_f(s['precision'])} {_f(s['recall'])} {_f(s['f1'])}")
    for key, title in (("traces", "Johnson (2002)"), ("traces_null_only", "Johnson (2002), null only")):
        s = result[key]
        lines.append(f"{title:48s} {_f(s['precision'])} {_f(s['recall'])} {_f(s['f1'])}"
                     f"   {s['matched']}/{s['gold']}/{s['test']}")
    for cat, s in result["graphs"].items():
        lines.append(f"{'graphs: ' + cat:48s} {_f(s['precision'])} {_f(s['recall'])} {_f(s['f1'])}"
                     f"   {s['matched']}/{s['gold']}/{s['test']}")
    for sid, reason in result["failures"]:
        lines.append(f"failed: {sid}: {reason}")
    return "\n".join(lines) + "\n"


def cli_main(args) -> int:
    import sys

    from ..corpora import corpus
    from ..files.atomic import atomic_json, check_writable
    from ..errors import PlgraphError

    try:
        if args.json:
            check_writable(args.json)
        result = representation_ceiling(corpus(args.split, args.ptb), use_null_positions=args.null_positions)
        sys.stdout.write(format_ceiling(result))
        if args.json:
            atomic_json(args.json, result)
    except PlgraphError as err:
        print(f"plgraph eval: error: {err}", file=sys.stderr)
        return 2
    return 0
