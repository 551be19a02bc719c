"""Graph scores of SHP parses: the reference's ``evaluation/shp-eval.py``, plus trace edges as the thesis counts them.

Contract
--------
:func:`graphs` takes gold and test :class:`~plgraph.graph.Graph` sequences in the same
order (block ``k`` of one is scored against block ``k`` of the other) and returns a
:class:`GraphResult`.  Items are built from the token lines plgraph itself writes
(:func:`plgraph.shp.token_lines`), split on whitespace exactly as ``shp-eval.py`` splits
the lines of a file, so the items cannot drift from the SHP format.  For a token line
``parts`` of word ``i``:

``labeled spine``     ``parts[3]``, compared with the test spine of the same position;
``labeled edge``      ``"i parent node"`` (``parts[0] parts[4] parts[5]``), same position;
``labeled trace``     ``"i t t-node T|F s-node T|F type"`` for each 6-field group on the
                      child's line (self loops included); a gold item matches when it is
                      ``in`` the test list of the same position;
``unlabeled edge``    ``"i parent"``;
``unlabeled trace``   ``"i t"`` for each group, ``in`` as above.

These five are the script's categories, with its semantics:

* **reference quirk -- list membership, not multisets:** a gold trace item counts as
  matched when it occurs anywhere in the test list of its word, however often it occurs in
  the gold list, so a duplicated gold item (two groups of one word with the same target,
  for ``unlabeled trace``) matched by a single test item counts twice: ``matched`` can
  exceed ``test`` and precision can pass 100.
* **reference quirk -- undefined ratios are 0:** P = 100·matched/test, but 0.0 when
  ``test`` is 0; R likewise 0.0 when ``gold`` is 0; F = 2PR/(P+R), 0.0 when P+R is 0.  So a
  test side with no traces scores trace P 0.0 (not "undefined"), R 0.0, F 0.0, and gold
  against gold on sentences without traces scores trace P/R/F 0.0 too.
* POS tags and words are not scored (the script never reads ``parts[1]``/``parts[2]``).

The two ``seed`` categories are what the thesis's "unlabeled trace edges, P 88.3 / R
50.4" measure: the reference learner's ``matchingSpans/autoSpans`` (``learn.scala``), a
per-sentence *set* of (child, parent) over the non-structural edges of the parse arrays,
which carry no self loops (those are part of a spine):

``seed unlabeled trace-edge``  set of ``(i, t)`` over groups with ``t != i``;
``seed labeled trace-edge``    set of ``(i, t, t-node)`` over the same groups (``t-node`` is
                               :attr:`Graph.label`, the node of the parent's spine).

Where the script and the thesis disagree on what is counted, both are reported, labelled:
the script's ``unlabeled trace`` counts self loops and duplicates (a list), the thesis's
``seed unlabeled trace-edge`` neither (a set; matched = size of the intersection, so P and
R never pass 100).  The script's ``labeled trace`` needs all six fields to agree, the
thesis-style labelled one only child, parent and parent node.  (The learner's own labelled
arcs carry an edge-type id, which is not recoverable from SHP; ``seed labeled trace-edge``
is a (child, parent, label) triple.)

Where plgraph differs from the script (it errors out, the script does not)
---------------------------------------------------------------------------
* Different numbers of sentences: the script prints ``Failed on gold ... test None``,
  stops and prints the scores of the sentences paired so far (exit status 0).  plgraph
  raises :class:`~plgraph.errors.InputError` naming both files and the first unpaired
  sentence (id and block number).
* Words that differ (or a different number of words) in a pair: the script never compares
  words; it compares position by position up to the shorter sentence and counts every
  item of both for the totals.  plgraph raises :class:`InputError` naming both files, the
  sentence (id and block number) and the first differing word.
* Reading files (:func:`cli_main` via :func:`plgraph.shp.read_shp`): the script drops a
  last block with no blank line after it and reads every extra blank line as an empty
  sentence (shifting the pairing when only one file has it); ``read_shp`` reads the last
  block and ignores empty blocks.  Word and parent numbers are compared as integers
  (``07`` = ``7``), the script compares them as text.  Bad blocks are errors (exit 2)
  where the script raises IndexError or scores nonsense.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Sequence

from ..errors import InputError, PlgraphError
from ..graph import Graph
from ._scores import prf
from ._words import check_same_words

#: category keys (JSON / DataFrame), in the order the report prints them
CATEGORIES = (
    "labeled_spine",
    "labeled_edge",
    "labeled_trace",
    "unlabeled_edge",
    "unlabeled_trace",
    "seed_unlabeled_trace_edge",
    "seed_labeled_trace_edge",
)
#: the five categories of shp-eval.py
REFERENCE_CATEGORIES = CATEGORIES[:5]
#: the two thesis-style trace-edge categories
THESIS_CATEGORIES = CATEGORIES[5:]

_PRINTED = {
    "labeled_spine": ("labeled", "spine"),
    "labeled_edge": ("labeled", "edge"),
    "labeled_trace": ("labeled", "trace"),
    "unlabeled_edge": ("unlabeled", "edge"),
    "unlabeled_trace": ("unlabeled", "trace"),
    "seed_unlabeled_trace_edge": ("seed", "unlabeled-trace-edge"),
    "seed_labeled_trace_edge": ("seed", "labeled-trace-edge"),
}


# ---------------------------------------------------------------------------------------
# items
# ---------------------------------------------------------------------------------------
@dataclass
class SentenceItems:
    """The items of one sentence, per token position (as ``shp-eval.py``'s ``read_parse``
    builds them) and the thesis-style sets."""

    spines: list[str]
    edges: list[str]
    traces: list[list[str]]
    unlab_edges: list[str]
    unlab_traces: list[list[str]]
    seed_unlab: set = field(default_factory=set)
    seed_lab: set = field(default_factory=set)


def sentence_items(graph: Graph, source: str = "<graphs>", position: int | None = None) -> SentenceItems:
    """Items of ``graph``, built from :func:`plgraph.shp.token_lines` (see the module doc)."""
    from ..shp import token_lines

    where = f"{graph.id} (block {position + 1})" if position is not None else graph.id
    try:
        lines = token_lines(graph)
    except InputError as err:
        raise InputError(err.reason, source, where) from None
    items = SentenceItems([], [], [], [], [])
    for k, line in enumerate(lines):
        parts = line.split()
        if len(parts) < 6 or (len(parts) - 6) % 6:
            raise InputError(f"word {k + 1} needs exactly one structural edge (its SHP line has "
                             f"{len(parts)} fields)", source, where)
        i = parts[0]
        items.spines.append(parts[3])
        items.edges.append(f"{i} {parts[4]} {parts[5]}")
        items.unlab_edges.append(f"{i} {parts[4]}")
        labelled, unlabelled = [], []
        for g in range(6, len(parts), 6):
            labelled.append(i + " " + " ".join(parts[g:g + 6]))
            unlabelled.append(f"{i} {parts[g]}")
            child, parent = int(i), int(parts[g])
            if child != parent:
                items.seed_unlab.add((child, parent))
                items.seed_lab.add((child, parent, parts[g + 1]))
        items.traces.append(labelled)
        items.unlab_traces.append(unlabelled)
    return items


def score_items(gold: SentenceItems, test: SentenceItems) -> dict[str, tuple[int, int, int]]:
    """``{category: (matched, gold, test)}`` for one sentence pair, with the script's loops
    (position by position up to the shorter sentence; ``in`` for traces)."""
    ng, nt = len(gold.spines), len(test.spines)
    both = min(ng, nt)
    spine = sum(gold.spines[i] == test.spines[i] for i in range(both))
    edge = sum(gold.edges[i] == test.edges[i] for i in range(both))
    uedge = sum(gold.unlab_edges[i] == test.unlab_edges[i] for i in range(both))
    # reference quirk: `trace in list` -- every gold occurrence counts when the test list holds it once
    trace = sum(t in test.traces[i] for i in range(both) for t in gold.traces[i])
    utrace = sum(t in test.unlab_traces[i] for i in range(both) for t in gold.unlab_traces[i])
    return {
        "labeled_spine": (spine, ng, nt),
        "labeled_edge": (edge, ng, nt),
        "labeled_trace": (trace, sum(map(len, gold.traces)), sum(map(len, test.traces))),
        "unlabeled_edge": (uedge, ng, nt),
        "unlabeled_trace": (utrace, sum(map(len, gold.unlab_traces)), sum(map(len, test.unlab_traces))),
        "seed_unlabeled_trace_edge": (len(gold.seed_unlab & test.seed_unlab), len(gold.seed_unlab),
                                      len(test.seed_unlab)),
        "seed_labeled_trace_edge": (len(gold.seed_lab & test.seed_lab), len(gold.seed_lab), len(test.seed_lab)),
    }


# ---------------------------------------------------------------------------------------
# result
# ---------------------------------------------------------------------------------------
@dataclass
class GraphResult:
    """Scores of a gold/test pairing.

    ``totals``: ``{category: {matched, gold, test, precision, recall, f1}}`` (percent);
    ``sentences``: DataFrame, one row per sentence (``id``, ``position`` 0-based, ``words``,
    and ``<category>_matched/_gold/_test``)."""

    totals: dict
    sentences: object  # pandas.DataFrame

    @property
    def n_sentences(self) -> int:
        return len(self.sentences)

    def report(self) -> str:
        """The five lines ``shp-eval.py`` prints and its ``Processed N`` line (same format),
        then the two thesis-style trace-edge lines in the same layout."""
        out = []
        for cat in CATEGORIES:
            t = self.totals[cat]
            prefix, word = _PRINTED[cat]
            out.append("{} {}    {:>4} {:>4} {:>4}    {:.1f} {:.1f} {:.1f}".format(
                prefix, word, t["matched"], t["gold"], t["test"], t["precision"], t["recall"], t["f1"]))
            if cat == REFERENCE_CATEGORIES[-1]:
                out.append(f"Processed {self.n_sentences}")
        return "\n".join(out) + "\n"

    def to_json(self) -> dict:
        """``{category: {matched, gold, test, precision, recall, f1}, ..., "sentences": N,
        "per_sentence": [{"id", "position", "words", category: [matched, gold, test], ...}]}``."""
        doc = {cat: dict(self.totals[cat]) for cat in CATEGORIES}
        doc["sentences"] = self.n_sentences
        per = []
        cols = {cat: (f"{cat}_matched", f"{cat}_gold", f"{cat}_test") for cat in CATEGORIES}
        for row in self.sentences.to_dict("records"):
            item = {"id": row["id"], "position": int(row["position"]), "words": int(row["words"])}
            for cat, (m, g, t) in cols.items():
                item[cat] = [int(row[m]), int(row[g]), int(row[t])]
            per.append(item)
        doc["per_sentence"] = per
        return doc

    def __repr__(self) -> str:
        parts = ", ".join(f"{c}={self.totals[c]['f1']:.1f}" for c in CATEGORIES)
        return f"GraphResult(sentences={self.n_sentences}, F: {parts})"


def _check_pair(g: Graph, t: Graph, k: int, gold_name: str, test_name: str) -> None:
    ids = g.id if g.id == t.id else f"{g.id} (test id {t.id})"
    check_same_words(g.words, t.words, gold_name, test_name, f"{ids}, block {k + 1}")


def graphs(gold: Sequence[Graph], test: Sequence[Graph], gold_name: str = "gold", test_name: str = "test"
           ) -> GraphResult:
    """Score ``test`` graphs against ``gold`` graphs (same order); see the module doc.

    ``gold_name``/``test_name`` name the two sides in error messages (the CLI passes the
    file names).  Raises :class:`InputError` for different sentence counts or a pair whose
    words differ."""
    import pandas as pd

    gold, test = list(gold), list(test)
    if len(gold) != len(test):
        k = min(len(gold), len(test))
        longer, name = (gold, gold_name) if len(gold) > len(test) else (test, test_name)
        raise InputError(f"gold {gold_name} has {len(gold)} sentences, test {test_name} has {len(test)}; "
                         f"the first unpaired one is in {name}", name, f"{longer[k].id}, block {k + 1}")
    totals = {cat: [0, 0, 0] for cat in CATEGORIES}
    rows = []
    for k, (g, t) in enumerate(zip(gold, test)):
        _check_pair(g, t, k, gold_name, test_name)
        scores = score_items(sentence_items(g, gold_name, k), sentence_items(t, test_name, k))
        row = {"id": g.id, "position": k, "words": len(g.words)}
        for cat in CATEGORIES:
            m, ng, nt = scores[cat]
            acc = totals[cat]
            acc[0] += m
            acc[1] += ng
            acc[2] += nt
            row[f"{cat}_matched"] = m
            row[f"{cat}_gold"] = ng
            row[f"{cat}_test"] = nt
        rows.append(row)
    columns = ["id", "position", "words"] + [f"{c}_{x}" for c in CATEGORIES for x in ("matched", "gold", "test")]
    frame = pd.DataFrame(rows, columns=columns)
    out = {}
    for cat, (m, ng, nt) in totals.items():
        p, r, f = prf(m, ng, nt)
        out[cat] = {"matched": m, "gold": ng, "test": nt, "precision": p, "recall": r, "f1": f}
    return GraphResult(out, frame)


# ---------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------
def cli_main(args) -> int:
    """``python -m plgraph eval graphs GOLD.shp TEST.shp [--json PATH]``: print the report,
    write the JSON atomically.  Exit 0 when scored, 2 on bad input (message on stderr)."""
    from ..files.atomic import atomic_json, check_writable
    from ..shp import read_shp

    json_path = getattr(args, "json", None)
    try:
        if json_path:
            check_writable(json_path)
        gold = read_shp(args.gold)
        test = read_shp(args.test)
        result = graphs(gold, test, gold_name=str(args.gold), test_name=str(args.test))
        sys.stdout.write(result.report())
        sys.stdout.flush()
        if json_path:
            atomic_json(json_path, result.to_json())
    except (PlgraphError, OSError) as err:
        print(f"plgraph eval: error: {err}", file=sys.stderr)
        return 2
    return 0
