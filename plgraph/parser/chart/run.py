"""The graph parser's chart as a Python function: :func:`parse_chart` validates its input,
runs the numba kernel (:mod:`plgraph.parser.chart._kernel`) and returns a :class:`ChartResult`
with the best graph, its score, and -- on request -- outside scores and max-marginals.

Switches: the rule subset (``rules``; ``projective=True``
runs its projective-tree subset, pass 1b), one spine option per point or several (the
:class:`~plgraph.parser.chart.tables.ChartTables`), exhaustive search (``beam=0, cube=0``) or
sub-beams of ``beam`` items with at most ``cube`` pops per cell, ``outside`` for
max-marginals, ``mark_gold`` to mark the gold derivation's items (tables built with a gold
graph and :func:`plgraph.parser.chart.gold.gold_item_ids`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...rules.tables import RuleTables, full_tables
from . import _kernel as K
from .tables import ChartTables

NEG = -np.inf
#: :attr:`ChartResult.goal` of a chart that stopped at its item budget
GAVE_UP = K.GAVE_UP
#: the items a chart keeps at most by default (:func:`parse_chart`'s ``max_items``): twice
#: the rows it reserves at its start (:data:`plgraph.parser.chart._kernel.START_ROWS`, 68
#: bytes a row), above what any sentence of the sample's dev and test splits keeps; a
#: sentence that needs more gets no parse from this chart, and the parser falls back
MAX_ITEMS = 2 * K.START_ROWS


@dataclass
class ChartResult:
    """Output of :func:`parse_chart`.

    ``score``: the best derivation's (loss-augmented, in training) score, ``-inf`` when
    nothing derives; ``edges``: {(child, parent, kind): label} with kind ``"S"`` or
    ``"T"`` in chart positions; ``spines``: each point's spine option; ``items``: dict of
    the kept items' columns (``p, q, o, key, flags, sp, sq, so, ins`` and, with outside,
    ``out`` and ``mm``), empty unless :func:`parse_chart` was asked to keep them;
    ``arc_mm_s`` / ``arc_mm_t`` (N, N): arc max-marginals (with outside); ``pops`` /
    ``kept`` / ``cubes`` (N, N): combinations popped, items kept and sub-cubes per cell;
    ``goal``: the goal item's row, -1 when nothing derives, :data:`GAVE_UP` when the
    chart stopped at its item budget (:attr:`gave_up`).
    The kernel's own item and log buffers are not kept: they are freed when
    :func:`parse_chart` returns."""

    score: float
    edges: dict
    spines: np.ndarray
    items: dict
    pops: np.ndarray
    kept: np.ndarray
    cubes: np.ndarray
    arc_mm_s: np.ndarray | None = None
    arc_mm_t: np.ndarray | None = None
    goal: int = -1

    @property
    def parsed(self) -> bool:
        return self.goal >= 0

    @property
    def gave_up(self) -> bool:
        """Did the chart stop at its item budget (``max_items`` of :func:`parse_chart`)?"""
        return self.goal == GAVE_UP

    def item_mm(self) -> dict:
        """{identity: max-marginal} over the items with a finite max-marginal, identity =
        (p, q, o, key, flags without GOLD, sp, sq, so) with so = -1 when o = -1 (needs a
        result of ``parse_chart(..., outside=True, keep_items=True)``; ValueError otherwise)."""
        it = self.items
        if "mm" not in it:
            raise ValueError("item_mm needs a chart run with outside=True and keep_items=True")
        out = {}
        for r in np.flatnonzero(np.isfinite(it["mm"])):
            o = int(it["o"][r])
            idn = (int(it["p"][r]), int(it["q"][r]), o, int(it["key"][r]), int(it["flags"][r]) & K.ID_FLAGS,
                   int(it["sp"][r]), int(it["sq"][r]), int(it["so"][r]) if o >= 0 else -1)
            out[idn] = max(out.get(idn, NEG), float(it["mm"][r]))
        return out


def parse_chart(tables: ChartTables, rules: RuleTables | None = None, *, beam: int = 0, cube: int = 0,
                strict: bool = True, projective: bool = False, outside: bool = False,
                mark_gold: bool = False, keep_items: bool = True, max_items: int | None = None) -> ChartResult:
    """Run the chart over one sentence's ``tables`` under ``rules`` (default: all 49,292
    rules; a pruned grammar is ``RuleUsage.pruned(1)``).  ``beam`` items per sub-beam and
    ``cube`` pops per cell (0: unlimited); ``strict`` the parser-level conditions;
    ``projective`` use the rules' projective-tree subset; ``outside`` compute outside
    scores and max-marginals; ``mark_gold`` mark the gold derivation's items;
    ``keep_items`` copy the kept items' columns into :attr:`ChartResult.items` (decoders
    that read only the graph, the counts and the arc max-marginals leave it off: the
    copies would double the largest allocation of a big chart); ``max_items`` the items
    the chart may keep (None: :data:`MAX_ITEMS`, 0: no limit): past it the chart stops
    and gives no parse (:attr:`ChartResult.gave_up`)."""
    max_items = MAX_ITEMS if max_items is None else max_items
    if beam < 0 or cube < 0 or max_items < 0:
        raise ValueError("beam, cube and max_items must be >= 0 (0 means unlimited)")
    if mark_gold and tables.gold_items is None:
        raise ValueError("mark_gold needs tables with gold_items (plgraph.parser.chart.gold.gold_item_ids)")
    rules = rules if rules is not None else full_tables()
    if projective:
        rules = rules.projective()
    g = rules.kernel_args(pair_index=False)
    tb = tables.kernel_args()
    search = K.Search(int(beam), int(cube), bool(strict), bool(outside), bool(mark_gold), int(max_items))
    it, ins, nit, lg, lw, nlg, goal, best, stats = K.chart(g, tb, search)
    N = tables.N
    items = {}
    if keep_items:
        items = {name: it[:nit, col].copy() for name, col in
                 (("p", K.P), ("q", K.Q), ("o", K.O), ("key", K.KEY), ("flags", K.FLG), ("sp", K.SP), ("sq", K.SQ),
                  ("so", K.SO), ("kind", K.KIND))}
        items["ins"] = ins[:nit].copy()
    res = ChartResult(float(best), {}, np.full(N, -1, np.int64), items, stats[1].reshape(N, N),
                      stats[2].reshape(N, N), stats[0].reshape(N, N), goal=int(goal))
    if goal >= 0:
        edges, ne, spines = K.backtrace(g, it, goal, N)
        res.spines = spines
        for cc, pp, mode, flat in edges[:ne]:
            if mode in (K.MODE_S, K.MODE_ST):
                res.edges[(int(cc), int(pp), "S")] = int(tables.s_lab[flat])
            if mode in (K.MODE_ST, K.MODE_T):
                res.edges[(int(cc), int(pp), "T")] = int(tables.t_lab[flat])
    if outside and goal != GAVE_UP:
        out, mm_s, mm_t = K.outside(it, ins, nit, lg, lw, nlg, tb)
        if keep_items:
            items["out"] = out.copy()
            items["mm"] = ins[:nit] + out
        res.arc_mm_s = mm_s.reshape(N, N)
        res.arc_mm_t = mm_t.reshape(N, N)
    return res
