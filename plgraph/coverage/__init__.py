"""The coverage tables of the seed (thesis §"Results / Algorithm Coverage").

(a) **Structure table**: sentences by structure type (projective tree,
projective graph, one-endpoint crossing, other; each row excludes the rows
above) and by whether the graph has a directed cycle.  Computed on the
default representation (modified head rules, null reversal, no gapping shift)
whose recoverable share is the thesis's 97.17%.

(b) **Coverage table**, one row per representation step (cumulative):

1. projective trees without null elements: a sentence is covered when its
   tree has no null element at all; edges kept = the structural edges;
2. core representation with the CCK (Collins) head rules;
3. + the modified head rules;
4. + null reversal;
5. + gapping shift.

From row 2 on, a sentence is covered iff its full graph (all structural and
trace edges) is acyclic and one-endpoint-crossing, and edge coverage counts the
edges kept after removing only the trace edges needed to make each sentence
representable, greedily as the reference parser does
(:func:`plgraph.structure.representable_mask`).  Edges are all edges of the
graph, self-loop traces included (they are stored in the spine and always
recoverable); the denominator is the same in every row.  ROOT sits after the
last word (``root="end"``), as in the reference parser.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from .. import paper
from ..files.atomic import atomic_text
from ..convert import ConversionOptions, tree_to_graph
from ..errors import InputError
from ..ptb.reader import BadSentence
from ..structure import CATEGORIES, classify, representable_mask
from ..tree import NONE_LABEL

STEP_OPTIONS = (
    ("Projective trees without null elements", None),
    ("Core representation (CCK head rules)", ConversionOptions("collins", False, False)),
    ("+ Head rule changes", ConversionOptions("jkk1", False, False)),
    ("+ Null reversal", ConversionOptions("jkk1", True, False)),
    ("+ Gapping shift", ConversionOptions("jkk1", True, True)),
)
#: the representation of the structure table
STRUCTURE_OPTIONS = ConversionOptions("jkk1", True, False)
TYPE_NAMES = dict(zip(CATEGORIES, (row[0] for row in paper.STRUCTURE_TABLE)))


@dataclass
class CoverageResult:
    """Both tables plus per-sentence details (``details`` is a pandas DataFrame)."""

    n_sentences: int
    structure_table: list[dict]
    coverage_table: list[dict]
    skipped: list[BadSentence] = field(default_factory=list)
    details: object = None
    root: str = "end"

    def to_json_dict(self) -> dict:
        return {
            "n_sentences": self.n_sentences,
            "structure_table": self.structure_table,
            "coverage_table": self.coverage_table,
            "published": {
                "source": f"Kummerfeld (2016) thesis, {paper.TREEBANK}, {paper.N_SENTENCES} sentences",
                "structure_table": [
                    {"type": t, "acyclic_pct": a, "cyclic_pct": c, "acyclic_n": an, "cyclic_n": cn}
                    for t, a, c, an, cn in paper.STRUCTURE_TABLE],
                "coverage_table": [{"step": s, "sentences_pct": a, "edges_pct": b} for s, a, b in paper.COVERAGE_TABLE],
            },
            "skipped": [str(b) for b in self.skipped],
        }

    def write_json(self, path) -> None:
        atomic_text(path, json.dumps(self.to_json_dict(), indent=2) + "\n")

    def structure_frame(self):
        import pandas as pd

        rows = []
        for ours, pub in zip(self.structure_table, paper.STRUCTURE_TABLE):
            rows.append({"type": ours["type"], "acyclic %": ours["acyclic_pct"], "paper acyclic %": pub[1],
                         "cyclic %": None if ours["type"] == "Projective Tree" else ours["cyclic_pct"],
                         "paper cyclic %": pub[2], "acyclic n": ours["acyclic_n"], "cyclic n": ours["cyclic_n"]})
        return pd.DataFrame(rows)

    def coverage_frame(self):
        import pandas as pd

        rows = []
        for ours, pub in zip(self.coverage_table, paper.COVERAGE_TABLE):
            rows.append({"step": ours["step"], "sentences %": ours["sentences_pct"], "paper sentences %": pub[1],
                         "edges %": ours["edges_pct"], "paper edges %": pub[2]})
        return pd.DataFrame(rows)

    def format_text(self) -> str:
        """Both tables as plain text, ours beside the paper's."""
        lines = [f"Structure of {self.n_sentences} sentences (ours vs. thesis on {paper.TREEBANK}); "
                 f"representation: modified heads + null reversal; ROOT at {self.root}",
                 f"{'Structure type':24s} {'acyclic':>8s} {'paper':>7s}   {'cyclic':>7s} {'paper':>7s}   "
                 f"{'n acyc':>6s} {'n cyc':>6s}"]
        for ours, pub in zip(self.structure_table, paper.STRUCTURE_TABLE):
            is_tree = ours["type"] == "Projective Tree"
            cyc = "      -" if is_tree else f"{ours['cyclic_pct']:7.2f}"
            pcyc = "      -" if pub[2] is None else f"{pub[2]:7.2f}"
            lines.append(f"{ours['type']:24s} {ours['acyclic_pct']:8.2f} {pub[1]:7.2f}   {cyc} {pcyc}   "
                         f"{ours['acyclic_n']:6d} {ours['cyclic_n']:6d}")
        rec = sum(r["acyclic_pct"] for r in self.structure_table[:3])
        lines.append(f"{'Recoverable (bold rows)':24s} {rec:8.2f} {97.17:7.2f}")
        lines.append("")
        lines.append("Coverage by representation step (%, ours vs. thesis)")
        lines.append(f"{'Step':42s} {'sent.':>7s} {'paper':>7s}   {'edges':>7s} {'paper':>7s}")
        for ours, pub in zip(self.coverage_table, paper.COVERAGE_TABLE):
            lines.append(f"{ours['step']:42s} {ours['sentences_pct']:7.2f} {pub[1]:7.2f}   "
                         f"{ours['edges_pct']:7.2f} {pub[2]:7.2f}")
        if self.skipped:
            lines.append("")
            lines.append(f"Skipped {len(self.skipped)} sentence(s):")
            lines.extend("  " + str(b) for b in self.skipped)
        return "\n".join(lines)


def _has_null(tree) -> bool:
    return any(n.word is not None and n.label == NONE_LABEL for n in tree.subtrees())


def sentence_records(item, root: str = "end", strict: bool = False) -> list[dict]:
    """The coverage records of one sentence: one dict per representation step of
    :data:`STEP_OPTIONS` (``id``, ``step``, ``covered``, ``edges``, ``kept``,
    ``category``, ``cyclic``, ``locked_chain``), in plain Python types (JSON-able, so a
    Dask worker can send them back).  Raises :class:`~plgraph.errors.InputError` for a
    tree that cannot be converted (the caller skips it); :func:`compute_coverage` and
    its distributed run both build on this, so their tables are the same."""
    graphs = [tree_to_graph(item.tree, opt, sid=item.id, strict=strict) if opt is not None else None
              for _, opt in STEP_OPTIONS]
    base = graphs[-1]
    records = [{"id": item.id, "step": 0, "covered": not _has_null(item.tree), "edges": int(base.n_edges),
                "kept": int((base.kind == 0).sum()), "category": None, "cyclic": None, "locked_chain": None}]
    for step, g in enumerate(graphs[1:], start=1):
        s = classify(g, root)
        records.append({"id": item.id, "step": step, "covered": bool(s.representable), "edges": int(g.n_edges),
                        "kept": int(representable_mask(g).sum()), "category": s.category,
                        "cyclic": bool(s.cyclic), "locked_chain": bool(s.locked_chain)})
    return records


def skipped_sentence(item, err: InputError) -> BadSentence:
    """The :class:`BadSentence` a sentence that cannot be converted is listed as."""
    return BadSentence(item.id, getattr(item, "source", ""), getattr(item, "index", -1), None, err.reason)


def compute_coverage(items, root: str = "end", progress=None, strict: bool = False) -> CoverageResult:
    """Both coverage tables for an iterable of sentences.

    Parameters
    ----------
    items : iterable
        Objects with ``id`` and ``tree`` (cleaned PTB trees), e.g. the output of
        :func:`plgraph.corpora.iter_trees` or a :class:`plgraph.corpora.Corpus`.
    root : {"end", "start"}
        ROOT position for the crossing tests.
    progress : bool or None
        tqdm progress bar (None = only on a terminal).
    strict : bool
        Treat dangling co-indices as errors (the sentence is skipped).

    Each sentence goes through :func:`sentence_records` and the records through
    :func:`coverage_from_records`, as in the distributed run (``coverage --dask``).
    """
    from tqdm.auto import tqdm

    records: list[dict] = []
    skipped: list[BadSentence] = []
    disable = None if progress is None else not progress
    for item in tqdm(items, desc="coverage", disable=disable, leave=False):
        try:
            records.extend(sentence_records(item, root, strict))
        except InputError as err:
            skipped.append(skipped_sentence(item, err))
    return coverage_from_records(records, skipped, root)


def coverage_from_records(records: list[dict], skipped: list[BadSentence], root: str = "end") -> CoverageResult:
    """The :class:`CoverageResult` of the :func:`sentence_records` of every converted
    sentence (in corpus order) and the ``skipped`` ones."""
    import pandas as pd

    details = pd.DataFrame.from_records(
        records, columns=["id", "step", "covered", "edges", "kept", "category", "cyclic", "locked_chain"])
    n = int((details["step"] == 0).sum()) if len(details) else 0
    structure_step = [i for i, (_, opt) in enumerate(STEP_OPTIONS) if opt == STRUCTURE_OPTIONS][0]
    structure_rows = []
    sub = details[details["step"] == structure_step]
    for cat in CATEGORIES:
        acyc = int(((sub["category"] == cat) & (~sub["cyclic"].astype(bool))).sum())
        cyc = int(((sub["category"] == cat) & (sub["cyclic"].astype(bool))).sum())
        structure_rows.append({"type": TYPE_NAMES[cat], "acyclic_pct": _pct(acyc, n), "cyclic_pct": _pct(cyc, n),
                               "acyclic_n": acyc, "cyclic_n": cyc})
    coverage_rows = []
    for step, (name, _) in enumerate(STEP_OPTIONS):
        sub = details[details["step"] == step]
        coverage_rows.append({"step": name, "sentences_pct": _pct(int(sub["covered"].sum()), n),
                              "edges_pct": _pct(int(sub["kept"].sum()), int(sub["edges"].sum()))})
    details["step_name"] = details["step"].map({i: s for i, (s, _) in enumerate(STEP_OPTIONS)})
    return CoverageResult(n, structure_rows, coverage_rows, list(skipped), details, root)


def _pct(a: int, b: int) -> float:
    return round(100.0 * a / b, 2) if b else 0.0


def options_coverage(items, options: ConversionOptions, root: str = "end") -> dict:
    """Coverage of one representation (any :class:`ConversionOptions`), for
    experiments beyond the five rows: sentence and edge coverage plus the share
    of cyclic and of non-1EC sentences (percent)."""
    n = covered = cyclic = non_1ec = edges = kept = 0
    for item in items:
        try:
            g = tree_to_graph(item.tree, options, sid=item.id)
        except InputError:
            continue
        s = classify(g, root)
        n += 1
        covered += s.representable
        cyclic += s.cyclic
        non_1ec += not s.one_endpoint_crossing
        edges += g.n_edges
        kept += int(representable_mask(g).sum())
    return {"options": options.normalised().as_dict(), "n_sentences": n, "sentences_pct": _pct(covered, n),
            "edges_pct": _pct(kept, edges), "cyclic_pct": _pct(cyclic, n), "non_1ec_pct": _pct(non_1ec, n)}


def trace_type_rates(graphs) -> dict:
    """Trace edges per 100 sentences, by trace type, for a list of graphs."""
    counts: dict[str, int] = {}
    for g in graphs:
        for t in g.trace[g.kind == 1]:
            counts[t] = counts.get(t, 0) + 1
    n = max(len(graphs), 1)
    return {t: round(100.0 * c / n, 2) for t, c in sorted(counts.items(), key=lambda x: -x[1])}
