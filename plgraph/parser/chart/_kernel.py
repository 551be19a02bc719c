"""Numba kernels: the graph parser's scored 1EC chart (Viterbi, sub-beams, cube pruning,
outside scores, max-marginals, back-pointers).

One kernel, :func:`chart`, serves every pass:
the rule subset decides projective (pass 1b) or 1EC (passes 2 and 3); one spine option
per point is the spine-less pass 2, several are pass 3; ``K = cube = 0`` is exhaustive
search, ``K > 0`` keeps the best ``K`` items of every sub-beam and ``cube > 0`` pops at
most ``cube`` combinations per cell.  Rule application -- reference codes, roles,
external points, the parser-level conditions -- is :mod:`plgraph.rules._apply`, the
library the derivation counter uses, so the uniqueness tests of :mod:`plgraph.rules`
guard what this chart runs.

**Positions**: words ``0..n-1``, ROOT ``n``; ``N = n + 1`` points; cells ``[p, q]``,
``0 <= p < q <= n``, visited in CKY order (width, then left end).

**Items** are rows of an int32 table (columns :data:`P` .. :data:`MODE`) with a float64
inside score: span, external point ``o`` (-1 none), key (``span_code * 90 + state``),
flags, the spine option of ``p``, ``q`` and ``o`` (0 where there is none), and a
back-pointer (kind, rule, child rows; for an arc step the flat score-table index of the
edge and its mode: structural, structural + trace, trace).  Flags:

* ``ROOT_EDGE``: ROOT's one structural edge is inside the item (reference ``hasFinal``);
* ``SP_P`` / ``SP_Q`` / ``SP_O``: the left end / right end / external point has its
  structural parent inside the item;
* ``XS_P`` / ``XS_Q`` / ``XS_IN``: a structural edge joins ``o`` to ``p`` / to ``q`` / to a
  point strictly inside ``(p, q)``;
* ``GOLD`` (not part of the identity): some gold derivation builds the item (training).

An item's identity within its cell is ``(o, key, flags without GOLD, spines)``, packed
exactly into one int64 (:func:`ident`); items with one identity are merged (max).

**What the flags enforce** (the reference's ``addBinaries`` / ``addArcsForSpan`` checks):
a point becomes interior only with its structural parent; no point gets two
structural parents; ROOT has exactly one structural child and no trace edge, and is
never a child; shared points carry one spine; structural edges never cross.  The last is
where this kernel follows the brute-force definition (``tests/naive.py``:
structural edges form a projective tree) rather than a one-bit ``TREE_TO_O`` flag,
which also refuses legal pairs of external structural edges: two structural edges first
meet either at an arc step -- only a new edge between the two ends can cross an existing
one, and only an external edge to an interior point (``XS_IN``) -- or at a combination,
where only two external edges with different external points can cross, decided exactly
from ``XS_*`` (an interior end lies strictly inside its child's span, where no other
point of the combination lies).

**Per cell**: init items (width 1: one per pair of spine options); combinations -- one
*sub-cube* per split, rule and pair/triple of child sub-beams, popped best-first from one
heap (at most ``cube`` pops) or all corners (``cube = 0``); compaction of the main
sub-beams; arc stage 0 (items with no direct edge), compaction; arc stage 1 (one direct
edge; an Exterval is created only if some allowed edge can cross its external edge without
an end strictly inside the span -- a structural one only by a trace -- exact
since a derivation never creates an Exterval whose external edge nothing crosses); the
cell's three sub-beam indexes (*main* keyed by (key, o), *L* by
(key, o, right-end spine) for use as a left child, *R* by (key, o, left-end spine) for
use as a right or middle child; each keeps its best ``K``); items in no index are
dropped before the cell is copied to the permanent table, so memory is bounded by the
beams, not by the pops.

**Scores** (table layout: :class:`plgraph.parser.chart.tables.ScoreArgs`).  Spines: an init
item gets half of each end's spine score (the full score at point 0 and ROOT, which lie in
one init item only), creating an external point adds its full score, and a combination
subtracts what its children counted twice (:func:`combine_flags`).  Arcs: an
arc step on item ``r`` for edge ``c -> p'`` proposes the structural item
``ins + S + rev + max(T, mT)`` (the trace rides along when ``T > mT``; outside training
``mT = 0``: a trace needs a positive score) and the trace-only item ``ins + T + mS + rev``.
The Hamming loss of training is charged exactly once per error: predicted
edges and spines inside the tables; at the arc step that links a pair, the gold kinds
``c -> p'`` not built (``mS``, ``mT``) and every gold ``p' -> c`` (``rev``); at a
combination, every unlinked gold pair that dies there (:func:`comb_loss`: both ends are
points of the goal, one strictly inside its span, and no child held both with one inside);
at an arc step that creates an external point ``o``, the gold pairs of ``o`` with the
span's interior (they die: interior points take no more edges);
at the goal, an unlinked gold ``0 -> ROOT``.  (The simpler rule "charge at the combination that
makes an end interior, unless the other end is strictly inside a child" charges a pair
twice when its two ends become interior in disjoint sub-derivations; the brute-force
max-marginal test found it.)

**Goal**: the best item of ``[0, n]`` with no external point, state ``J_F___`` or
``j_F___`` and flags ``ROOT_EDGE | SP_P``.  **Outside**: every accepted hyperedge whose
goal survives is logged (goal, children, weight); CKY order puts every hyperedge into an
item before any that uses it, so one reverse sweep (:func:`outside`) gives outside
scores, item max-marginals ``ins + out`` and arc max-marginals per (child, parent, kind).

**Speed notes.**  Numba counts references to arrays with atomic operations whenever an
array (or a tuple holding arrays, such as the rule and score namedtuples) is handed to a
function that is not inlined, or unpacked inside a loop; in a chart with millions of
steps those dominated the run time (``perf``: ~40%), and numba's own inlining does not
remove them (it binds an inlined function's array arguments with reference counts too).
So :func:`chart` unpacks its packed arguments (the rules, the :class:`Search`, the
:class:`Sentence` its set-up derives, the buffers) once, before the span loop; the pop
(combination, merge into the cell, log), the cube's heap and the arc step are written
out once each in its loop body; the helpers they call take scalars (:func:`ident`, the
scalar forms of :mod:`plgraph.rules._apply`) and their arrays as plain arguments; every
buffer is reserved before a phase that fills it (nothing reallocates inside the loops).

The item layout and storage are :mod:`~plgraph.parser.chart._items`, the combination and
arc-step helpers :mod:`~plgraph.parser.chart._steps`, outside scores and the back-trace
:mod:`~plgraph.parser.chart._outside`; this module holds :func:`chart`, its set-up
(:func:`sentence_view`, :func:`chart_buffers`) and finishing (:func:`best_goal`), and
their packed arguments (:class:`Search`, :class:`Sentence`, :class:`Kept`,
:class:`SubBeams`, :class:`Ranking`, :class:`CubeWork`).

The helpers of :mod:`plgraph.parser.chart._beam`, ``_items`` and ``_steps`` are plain numba
functions, not ``inline="always"``: LLVM inlines them into :func:`chart` all the same, and
numba's own inlining repeats type inference at every call site, which multiplies the
kernel's compile time.

Cache note: the compiled kernels hold the numba functions of :mod:`plgraph.rules._apply`,
``_beam``, ``_items`` and ``_steps``; the guards at the ends of the modules purge their
cache files when those sources change.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...files import _numba_cache
from ...config import NUMBA_CACHE
from ...rules import _apply
from . import _beam, _items, _steps
from ._beam import rank_rows
from ...rules._apply import (F_F_STATE, I_SPAN, KIND_ARC, KIND_COMB, KIND_INIT, N_STATES, NO_ITEM, REF_IPLUS, REF_J1,
                             REF_XP, X_LEFT, X_RIGHT, binary_external_refs, interval_split_ok, new_external_ok_roles,
                             ref_ok, role, role_points, ternary_external_refs)
from ._items import (NEG, ROOT_EDGE, SP_P, SP_Q, SP_O, XS_P, XS_Q, XS_IN, GOLD, ID_FLAGS, COARSE_FLAGS, MODE_S,
                     MODE_ST, MODE_T, O_SLOTS, SPN, IX_MAIN, IX_L, IX_R, P, Q, O, KEY, FLG, SP, SQ, SO, KIND, RULE, A,
                     B, C, AUX, MODE, NCOL, LG_GOAL, LG_A, LG_B, LG_C, LG_PAIR, LW_W, LW_S, LW_T, CellScratch,
                     Item, ident, mix, grow_rows, grow_vec, add_item, is_gold, n_spines)
from ._steps import (ChildSpans, Combo, MissLoss, SpineOptions, ref_point, sb_candidates, gold_between, comb_loss,
                     combine_flags, spine_correction, cross_tables, crossable, goal_extra, reserve)
from ._items import *  # noqa: F401,F403  (the item layout, for the kernel's callers)
from ._outside import backtrace, outside  # noqa: F401  (the kernels after the chart)


#: rows the item table and the hyperedge log reserve at the start of a chart: 2^22, above
#: the 1.6 million items the longest sentences of the sample (40 words, pass 3's beams)
#: keep, and large enough (the inside scores alone 32 MB) that the C allocator maps every
#: one of these arrays afresh, untouched, and returns it whole when the chart is done
START_ROWS = 1 << 22
#: the goal row :func:`chart` returns when its item budget ran out
GAVE_UP = -2


class Search(NamedTuple):
    """How :func:`chart` searches (one argument, built once per chart).

    ``beam``: items kept per sub-beam (0: all); ``cube``: combinations popped per cell
    (0: every combination, in order); ``strict``: apply the parser-level conditions of
    :mod:`plgraph.rules._apply`; ``log``: keep the hyperedge log (for :func:`outside`);
    ``mark_gold``: set GOLD on the items of the gold derivation (``ScoreArgs.gold_off`` /
    ``gold_id``) and let them bypass the coarse check; ``max_items`` (0: no limit): once
    the chart keeps more items, it stops before the next cell and gives no parse."""

    beam: int
    cube: int
    strict: bool
    log: bool
    mark_gold: bool
    max_items: int


class Sentence(NamedTuple):
    """What every phase of :func:`chart` reads about the sentence, derived once from its
    :class:`~plgraph.parser.chart.tables.ScoreArgs` and the :class:`Search` by
    :func:`sentence_view`; read-only.

    * ``spines``: :class:`~plgraph.parser.chart._steps.SpineOptions`; ``pair_off``,
      ``gold_off``, ``coarse``: as in ``ScoreArgs``;
    * ``st_best`` (2, E) float64: the best structural (row 0) and trace (row 1) score of
      every score-table entry; ``gold_st`` (2, N*N) uint8: gold structural / trace edge
      ``c * N + p``;
    * ``gold_id``: the gold items' identities, empty unless the search marks gold;
    * ``loss``: :class:`~plgraph.parser.chart._steps.MissLoss`; ``cross`` (4, N, N): the
      crossing ranges of :func:`~plgraph.parser.chart._steps.cross_tables`;
    * ``N`` points, ``root`` = N - 1; ``max_nsp``: the most spine options of a point;
      ``several``: some point has more than one (then the L and R indexes are built);
      ``spine_scores``: some spine score is non-zero (a spine correction can be);
      ``train``: ``miss`` is non-zero; ``gold_root``: gold has the edge 0 -> ROOT (0/1)."""

    spines: SpineOptions
    pair_off: np.ndarray
    st_best: np.ndarray
    gold_st: np.ndarray
    gold_off: np.ndarray
    gold_id: np.ndarray
    coarse: np.ndarray
    loss: MissLoss
    cross: np.ndarray
    N: int
    root: int
    max_nsp: int
    several: bool
    spine_scores: bool
    train: bool
    gold_root: int


class Kept(NamedTuple):
    """What the chart keeps across cells: the permanent item table ``it[:n_items]``
    (columns ``P`` .. ``MODE``) with inside scores ``ins``, the hyperedge log
    ``lg[:n_log]`` / ``lw[:n_log]`` (columns ``LG_*`` / ``LW_*``; one row each when the
    search keeps no log), and ``stats[:, p * N + q]`` per cell: sub-cubes, combinations
    popped, items kept."""

    it: np.ndarray
    ins: np.ndarray
    n_items: int
    lg: np.ndarray
    lw: np.ndarray
    n_log: int
    stats: np.ndarray


class SubBeams(NamedTuple):
    """The kept items' sub-beams: sub-beam z has key ``key[z]`` (``(item key * O_SLOTS +
    o + 1) * SPN`` plus, in the L / R index, the right / left end's spine) and rows
    ``rows[lo[z] : lo[z] + length[z]]`` of the item table, best first; ``n_beams`` /
    ``n_rows`` are used.  Cell ``p * N + q``'s sub-beams in index ``ix`` (``IX_MAIN``,
    ``IX_L``, ``IX_R``) are ``ix_lo[ix, cell] .. ix_hi[ix, cell] - 1``, sorted by key."""

    key: np.ndarray
    lo: np.ndarray
    length: np.ndarray
    n_beams: int
    rows: np.ndarray
    n_rows: int
    ix_lo: np.ndarray
    ix_hi: np.ndarray


class Ranking(NamedTuple):
    """Buffers ranking a cell's rows into sub-beams (:func:`~plgraph.parser.chart._beam.rank_rows`),
    of one length R (at least the cell's rows): ``rows`` (R,) the rows to rank, per
    index (main, L, R) ``order`` (3, R) the ranked rows, ``key`` (3, R) each row's
    sub-beam key and ``keep`` (3, R) whether its sub-beam keeps it; ``perm`` (R,) a
    row's permanent row (-1: dropped)."""

    rows: np.ndarray
    order: np.ndarray
    key: np.ndarray
    keep: np.ndarray
    perm: np.ndarray


class CubeWork(NamedTuple):
    """The combination phases' buffers.

    * ``cu`` (U, 8) int64 / ``cf`` (U, 2) float64: the cell's sub-cubes -- rule, arity,
      sub-beams a, b, c (-1), splits k, l (-1), goal external point; loss and the top
      corner's priority;
    * the cube heap: entry e has priority ``pri[e]``, sub-cube ``ez[e]`` and corner
      ``eix[e, :3]``; ``heap`` orders the entries;
    * ``rows3`` (3,): child rows for :func:`~plgraph.parser.chart._steps.spine_correction`;
      ``pts`` (5, 9) / ``out1`` (1,): scratch of
      :func:`~plgraph.parser.chart._steps.combine_flags`; ``kids``:
      :class:`~plgraph.parser.chart._steps.ChildSpans` for
      :func:`~plgraph.parser.chart._steps.comb_loss`."""

    cu: np.ndarray
    cf: np.ndarray
    pri: np.ndarray
    ez: np.ndarray
    eix: np.ndarray
    heap: np.ndarray
    rows3: np.ndarray
    pts: np.ndarray
    out1: np.ndarray
    kids: ChildSpans


# -- set-up -------------------------------------------------------------------------------------
@njit(cache=NUMBA_CACHE, nogil=True)
def sentence_view(tb, search):
    """The :class:`Sentence` of the score tables ``tb`` (:class:`~plgraph.parser.chart.tables.ScoreArgs`)
    under ``search`` (:class:`Search`)."""
    mark_gold = search.mark_gold
    sp_off = tb.sp_off
    sp_score = tb.sp_score
    st_best = np.empty((2, tb.s_best.shape[0]), np.float64)
    st_best[0] = tb.s_best
    st_best[1] = tb.t_best
    miss = tb.miss
    gold_s = tb.gold_s
    gold_st = np.empty((2, tb.gold_s.shape[0]), np.uint8)
    gold_st[0] = tb.gold_s
    gold_st[1] = tb.gold_t
    gold_id = tb.gold_id if mark_gold else tb.gold_id[:0]
    N = sp_off.shape[0] - 1
    root = N - 1
    max_nsp = 1
    for w in range(N):
        max_nsp = max(max_nsp, n_spines(sp_off, w))
    spine_scores = False
    for z in range(sp_score.shape[0]):
        if sp_score[z] != 0.0:
            spine_scores = True
    gold_root = gold_s[root] if N >= 2 else 0      # gold edge 0 -> ROOT (flat index 0 * N + root)
    cross = cross_tables(sp_off, tb.pair_off, st_best)
    return Sentence(SpineOptions(sp_off, sp_score), tb.pair_off, st_best, gold_st, tb.gold_off, gold_id, tb.coarse,
                    MissLoss(tb.gw, tb.gps, miss, N), cross, N, root, max_nsp, max_nsp > 1, spine_scores, miss != 0.0,
                    gold_root)


@njit(cache=NUMBA_CACHE, nogil=True)
def chart_buffers(N, log):
    """Fresh buffers of a chart over ``N`` points: ``(kept, beams, scratch, ranking,
    work)`` (:class:`Kept`, :class:`SubBeams`, :class:`~plgraph.parser.chart._items.CellScratch`,
    :class:`Ranking`, :class:`CubeWork`), all empty; the log arrays hold one row unless
    ``log``."""
    # the permanent table of kept items and the hyperedge log, reserved at START_ROWS: the
    # memory of an np.empty this large is mapped, not touched, so a chart holds only the
    # pages of the rows it fills, and growing (old and new table at once) is rare
    kept = Kept(np.empty((START_ROWS, NCOL), np.int32), np.empty(START_ROWS, np.float64), np.int64(0),
                np.empty((START_ROWS if log else 1, 5), np.int32), np.empty((START_ROWS if log else 1, 3), np.float64),
                np.int64(0), np.zeros((3, N * N), np.int64))
    beams = SubBeams(np.empty(1024, np.int64), np.empty(1024, np.int64), np.empty(1024, np.int64), np.int64(0),
                     np.empty(4096, np.int32), np.int64(0), np.zeros((3, N * N), np.int64),
                     np.zeros((3, N * N), np.int64))
    scratch = CellScratch(np.empty((256, NCOL), np.int32), np.empty(256, np.float64), np.empty(256, np.int64),
                          np.empty(1024, np.int64), np.empty(1024, np.int32), np.zeros(1024, np.int64),
                          np.empty((256, 5), np.int32), np.empty((256, 3), np.float64))
    ranking = Ranking(np.empty(256, np.int64), np.empty((3, 256), np.int64), np.empty((3, 256), np.int64),
                      np.zeros((3, 256), np.bool_), np.empty(256, np.int64))
    work = CubeWork(np.empty((256, 8), np.int64), np.empty((256, 2), np.float64), np.empty(64, np.float64),
                    np.empty(64, np.int64), np.empty((64, 3), np.int64), np.empty(64, np.int64), np.empty(3, np.int64),
                    np.empty((5, 9), np.int64), np.empty(1, np.float64),
                    ChildSpans(np.empty(3, np.int64), np.empty(3, np.int64), np.empty(3, np.int64),
                               np.empty(3, np.int64)))
    return kept, beams, scratch, ranking, work


# -- finishing ----------------------------------------------------------------------------------
@njit(cache=NUMBA_CACHE, nogil=True)
def best_goal(kept, sen):
    """The best goal item among the kept items, its score with what the goal adds
    (:func:`~plgraph.parser.chart._steps.goal_extra`): ``(row, score)``, ``(-1, -inf)``
    when there is none."""
    it = kept.it
    ins = kept.ins
    root = sen.root
    miss = sen.loss.miss
    gold_root = sen.gold_root
    goal = -1
    best = NEG
    for r in range(kept.n_items):
        v = ins[r] + goal_extra(it, r, root, miss, gold_root)
        if v > best:
            best = v
            goal = r
    return goal, best


# -- the chart ----------------------------------------------------------------------------------
@njit(cache=NUMBA_CACHE, nogil=True)
def chart(g, tb, search):
    """Run the chart over one sentence.

    ``g``: :meth:`RuleTables.kernel_args() <plgraph.rules.tables.RuleTables.kernel_args>`;
    ``tb``: :class:`plgraph.parser.chart.tables.ScoreArgs`; ``search``: :class:`Search`
    (``beam`` items per sub-beam, ``cube`` pops per cell, ``strict``, ``log``,
    ``mark_gold``, ``max_items``: once the chart holds more items, it stops before the
    next cell, gives no parse and says so (goal :data:`GAVE_UP`) -- memory and time stay
    bounded on a sentence far longer than the pruning was tuned on).

    Returns ``(it, ins, n_items, lg, lw, n_log, goal, goal_score, stats)``: the kept items
    (rows ``it[:n_items]``), the hyperedge log, the goal's row (-1: no parse, GAVE_UP: the
    item budget ran out) and score, and ``stats[:, p * N + q]`` per cell: sub-cubes,
    combinations popped, items kept.

    Phases: the set-up (:func:`sentence_view`, :func:`chart_buffers`), the span loop
    (here) and the finishing (:func:`best_goal`).
    """
    sen = sentence_view(tb, search)
    kept, beams, scratch, ranking, work = chart_buffers(sen.N, search.log)
    # the rule, score and buffer arrays, unpacked once (see the module's speed notes)
    letters = g.letters
    n_direct = g.n_direct
    comb_keys = g.comb_keys
    comb_refs = g.comb_refs
    comb_goal = g.comb_goal
    bin1_start = g.bin1_start
    bin1_rules = g.bin1_rules
    ter1_start = g.ter1_start
    ter1_rules = g.ter1_rules
    has_ternary = g.has_ternary
    arc_start = g.arc_start
    arc_rules = g.arc_rules
    arc_parent = g.arc_parent
    arc_child = g.arc_child
    arc_xcreate = g.arc_xcreate
    arc_goal = g.arc_goal
    K = search.beam
    cube = search.cube
    strict = search.strict
    log = search.log
    mark_gold = search.mark_gold
    max_items = search.max_items
    sp_off, sp_score = sen.spines
    pair_off = sen.pair_off
    st_best = sen.st_best
    gold_st = sen.gold_st
    gold_off = sen.gold_off
    gold_id = sen.gold_id
    coarse = sen.coarse
    cross = sen.cross
    loss = sen.loss
    _gw, gps, miss, _n = loss
    N = sen.N
    root = sen.root
    max_nsp = sen.max_nsp
    spines = sen.several
    spine_scores = sen.spine_scores
    train = sen.train
    it, ins, nit, lg, lw, nlg, stats = kept
    sb_key, sb_lo, sb_len, nsb, sb_rows, nsr, ix_lo, ix_hi = beams
    sit, sins, sidn, hk, hv, hg, slg, slw = scratch
    gen = 0
    wrow, word, wkey, wkeep, perm = ranking
    cu, cf, pri, ez, eix, heap, rows3, pts, out5, kids = work
    ccp, ccq, cco, cck = kids
    # The span loop is one body by contract, not a call per phase: per cell it makes the
    # init items (width 1) or the sub-cubes and the pops, then the two arc stages, then
    # the cell's indexes and its copy to the permanent table, all over the local buffers
    # unpacked above, which a phase may grow (rebind); a phase as a function of its own
    # would take and return those buffers packed, once per cell and phase, on the
    # parser's hottest path.
    over = False
    for width in range(1, N):
        if over:
            break
        for p in range(0, N - width):
            if max_items > 0 and nit > max_items:
                over = True
                break
            q = p + width
            cell = p * N + q
            gen += 1
            sn = 0
            ln = 0
            npop = 0
            if width == 1:
                nini = n_spines(sp_off, p) * n_spines(sp_off, q)
                if nini > sit.shape[0] or 2 * nini > hk.shape[0] or (log and nini > slg.shape[0]):
                    scratch = reserve(scratch, sn, ln, gen, nini, log)
                    sit, sins, sidn, hk, hv, hg, slg, slw = scratch
                up = 1.0 if p == 0 else 0.5
                uq = 1.0 if q == root else 0.5
                key0 = I_SPAN * N_STATES + F_F_STATE
                for i in range(n_spines(sp_off, p)):
                    for j in range(n_spines(sp_off, q)):
                        gold = mark_gold and is_gold(gold_off, gold_id, cell, ident(-1, key0, 0, i, j, 0))
                        item = Item(p, q, -1, key0, 0, i, j, 0, KIND_INIT, -1, -1, -1, -1, -1, 0)
                        sn, _r = add_item(scratch, sn, gen, item,
                                          up * sp_score[sp_off[p] + i] + uq * sp_score[sp_off[q] + j], gold)
            else:
                # -- sub-cubes -------------------------------------------------------------
                ncu = 0
                for k in range(p + 1, q):
                    cl = p * N + k
                    cr = k * N + q
                    for la in range(ix_lo[IX_L, cl], ix_hi[IX_L, cl]):
                        lkey = sb_key[la]
                        sk = lkey % SPN
                        ka = (lkey // SPN) // O_SLOTS
                        oa = (lkey // SPN) % O_SLOTS - 1
                        ra0 = sb_rows[sb_lo[la]]
                        # binary
                        for ridx in range(bin1_start[ka], bin1_start[ka + 1]):
                            rule = bin1_rules[ridx]
                            kb = comb_keys[rule, 1]
                            ra = comb_refs[rule, 0]
                            rb = comb_refs[rule, 1]
                            if strict and not interval_split_ok(ka, kb, p, k):
                                continue
                            if ra == REF_IPLUS and k != p + 1:
                                continue
                            if not ref_ok(ra, oa, p, k, -1, q, False):
                                continue
                            want = ref_point(rb, p, k, -1, q, False)
                            if want == -3:
                                continue
                            if want == -2 and ra == REF_XP:
                                want = oa
                            b0, b1 = sb_candidates(sb_key, ix_lo[IX_R, cr], ix_hi[IX_R, cr], kb, want)
                            for lb in range(b0, b1):
                                if sb_key[lb] % SPN != sk:
                                    continue
                                ob = (sb_key[lb] // SPN) % O_SLOTS - 1
                                go = binary_external_refs(ra, rb, oa, ob, p, k, q)
                                if go == NO_ITEM:
                                    continue
                                if ncu >= cu.shape[0]:
                                    cu = grow_rows(cu, ncu + 1)
                                    cf = grow_rows(cf, ncu + 1)
                                cu[ncu, 0] = rule
                                cu[ncu, 1] = 2
                                cu[ncu, 2] = la
                                cu[ncu, 3] = lb
                                cu[ncu, 4] = -1
                                cu[ncu, 5] = k
                                cu[ncu, 6] = -1
                                cu[ncu, 7] = go
                                cf[ncu, 0] = 0.0
                                if train:
                                    ccp[0] = p
                                    ccq[0] = k
                                    cco[0] = oa
                                    cck[0] = ka
                                    ccp[1] = k
                                    ccq[1] = q
                                    cco[1] = ob
                                    cck[1] = kb
                                    cf[ncu, 0] = comb_loss(letters, loss, kids, Combo(2, p, q, k, -1, go))
                                if cube > 0:
                                    rows3[0] = ra0
                                    rows3[1] = sb_rows[sb_lo[lb]]
                                    cf[ncu, 1] = ins[rows3[0]] + ins[rows3[1]] + cf[ncu, 0]
                                    if spine_scores:
                                        cf[ncu, 1] -= spine_correction(it, sp_off, sp_score, rows3, 2, root)
                                ncu += 1
                        # ternary
                        if not has_ternary[ka]:
                            continue
                        for ridx in range(ter1_start[ka], ter1_start[ka + 1]):
                            rule = ter1_rules[ridx]
                            kb = comb_keys[rule, 1]
                            kc = comb_keys[rule, 2]
                            ra = comb_refs[rule, 0]
                            rb = comb_refs[rule, 1]
                            rc = comb_refs[rule, 2]
                            l_lo = k + 1
                            l_hi = q
                            if ra == REF_J1:
                                if not k < oa < q:
                                    continue
                                l_lo = oa
                                l_hi = oa + 1
                            for l in range(l_lo, l_hi):
                                if not ref_ok(ra, oa, p, k, l, q, True):
                                    continue
                                wb = ref_point(rb, p, k, l, q, True)
                                wc = ref_point(rc, p, k, l, q, True)
                                if wb == -3 or wc == -3:
                                    continue
                                cm = k * N + l
                                cr2 = l * N + q
                                b0, b1 = sb_candidates(sb_key, ix_lo[IX_R, cm], ix_hi[IX_R, cm], kb, wb)
                                if b0 == b1:
                                    continue
                                c0, c1 = sb_candidates(sb_key, ix_lo[IX_MAIN, cr2], ix_hi[IX_MAIN, cr2], kc, wc)
                                for lb in range(b0, b1):
                                    if sb_key[lb] % SPN != sk:
                                        continue
                                    ob = (sb_key[lb] // SPN) % O_SLOTS - 1
                                    for lc in range(c0, c1):
                                        oc = (sb_key[lc] // SPN) % O_SLOTS - 1
                                        go = ternary_external_refs(ra, rb, rc, oa, ob, oc, p, k, l, q)
                                        if go == NO_ITEM:
                                            continue
                                        if ncu >= cu.shape[0]:
                                            cu = grow_rows(cu, ncu + 1)
                                            cf = grow_rows(cf, ncu + 1)
                                        cu[ncu, 0] = rule
                                        cu[ncu, 1] = 3
                                        cu[ncu, 2] = la
                                        cu[ncu, 3] = lb
                                        cu[ncu, 4] = lc
                                        cu[ncu, 5] = k
                                        cu[ncu, 6] = l
                                        cu[ncu, 7] = go
                                        cf[ncu, 0] = 0.0
                                        if train:
                                            ccp[0] = p
                                            ccq[0] = k
                                            cco[0] = oa
                                            cck[0] = ka
                                            ccp[1] = k
                                            ccq[1] = l
                                            cco[1] = ob
                                            cck[1] = kb
                                            ccp[2] = l
                                            ccq[2] = q
                                            cco[2] = oc
                                            cck[2] = kc
                                            cf[ncu, 0] = comb_loss(letters, loss, kids, Combo(3, p, q, k, l, go))
                                        if cube > 0:
                                            rows3[0] = ra0
                                            rows3[1] = sb_rows[sb_lo[lb]]
                                            rows3[2] = sb_rows[sb_lo[lc]]
                                            cf[ncu, 1] = ins[rows3[0]] + ins[rows3[1]] + ins[rows3[2]] + cf[ncu, 0]
                                            if spine_scores:
                                                cf[ncu, 1] -= spine_correction(it, sp_off, sp_score, rows3, 3, root)
                                        ncu += 1
                stats[0, cell] = ncu
                # -- combinations: every corner in order (cube = 0) or best-first from a heap --
                # One loop with one copy of the pop: the combination, the item's merge into
                # the cell and the log are written out here rather than called (module speed
                # notes: every array handed to a helper costs a reference-count pair per pop).
                exhaustive = cube <= 0
                if exhaustive:
                    total = 0
                    for z in range(ncu):
                        total += sb_len[cu[z, 2]] * sb_len[cu[z, 3]] * (sb_len[cu[z, 4]] if cu[z, 1] == 3 else 1)
                else:
                    total = cube
                if sn + total > sit.shape[0] or 2 * (sn + total) > hk.shape[0] or (log and ln + total > slg.shape[0]):
                    scratch = reserve(scratch, sn, ln, gen, total, log)
                    sit, sins, sidn, hk, hv, hg, slg, slw = scratch
                hmask = hk.shape[0] - 1
                hn = 0
                ne = 0
                if not exhaustive:
                    # every sub-cube's top corner enters the heap (heapified in linear time);
                    # at most ``cube`` pops follow, so only the best ``cube`` corners can be
                    # reached -- the reference's trimming of sub-cubes, without a sort
                    cap = ncu + 3 * cube + 3
                    if cap > pri.shape[0]:
                        pri = np.empty(cap, np.float64)
                        ez = np.empty(cap, np.int64)
                        eix = np.empty((cap, 3), np.int64)
                        heap = np.empty(cap, np.int64)
                    for z in range(ncu):
                        pri[z] = cf[z, 1]
                        ez[z] = z
                        eix[z, 0] = 0
                        eix[z, 1] = 0
                        eix[z, 2] = 0
                        heap[z] = z
                    hn = ncu
                    ne = ncu
                    for i0 in range(hn // 2 - 1, -1, -1):
                        i = i0
                        while True:
                            c1 = 2 * i + 1
                            if c1 >= hn:
                                break
                            c2 = c1 + 1
                            cbest = c1
                            if c2 < hn and (pri[heap[c2]] > pri[heap[c1]]
                                            or (pri[heap[c2]] == pri[heap[c1]] and heap[c2] < heap[c1])):
                                cbest = c2
                            a_, b_ = heap[cbest], heap[i]
                            if pri[a_] > pri[b_] or (pri[a_] == pri[b_] and a_ < b_):
                                heap[i] = a_
                                heap[cbest] = b_
                                i = cbest
                            else:
                                break
                z = 0
                ia = 0
                ib = 0
                ic = 0
                while True:
                    if exhaustive:
                        if z >= ncu:
                            break
                    else:
                        if hn == 0 or npop >= cube:
                            break
                        # heap pop (the sift-down repeats the heapify's above: as a helper taking
                        # the heap arrays it would cost two reference-count pairs per pop)
                        x = heap[0]
                        hn -= 1
                        heap[0] = heap[hn]
                        i = 0
                        while True:
                            c1 = 2 * i + 1
                            if c1 >= hn:
                                break
                            c2 = c1 + 1
                            cbest = c1
                            if c2 < hn and (pri[heap[c2]] > pri[heap[c1]]
                                            or (pri[heap[c2]] == pri[heap[c1]] and heap[c2] < heap[c1])):
                                cbest = c2
                            a_, b_ = heap[cbest], heap[i]
                            if pri[a_] > pri[b_] or (pri[a_] == pri[b_] and a_ < b_):
                                heap[i] = a_
                                heap[cbest] = b_
                                i = cbest
                            else:
                                break
                        z = ez[x]
                        ia = eix[x, 0]
                        ib = eix[x, 1]
                        ic = eix[x, 2]
                    npop += 1
                    ar = cu[z, 1]
                    na = sb_len[cu[z, 2]]
                    nb = sb_len[cu[z, 3]]
                    nc3 = sb_len[cu[z, 4]] if ar == 3 else 1
                    r0 = sb_rows[sb_lo[cu[z, 2]] + ia]
                    r1 = sb_rows[sb_lo[cu[z, 3]] + ib]
                    r2 = sb_rows[sb_lo[cu[z, 4]] + ic] if ar == 3 else -1
                    k = cu[z, 5]
                    l = cu[z, 6]
                    go = cu[z, 7]
                    # the goal's flags, spines and spine correction (-1: a parser-level check fails)
                    fl = -1
                    gsp = 0
                    gsq = 0
                    gso = 0
                    corr = 0.0
                    if ar == 2 and it[r0, O] < 0 and it[r1, O] < 0:
                        # two Intervals: points p, k, q; nothing external, no spine counted twice
                        fa = it[r0, FLG]
                        fb = it[r1, FLG]
                        if not ((fa & ROOT_EDGE) and (fb & ROOT_EDGE)) and ((fa & SP_Q) != 0) != ((fb & SP_P) != 0) \
                                and it[r0, SQ] == it[r1, SP]:
                            fl = (fa | fb) & ROOT_EDGE
                            if fa & SP_P:
                                fl |= SP_P
                            if fb & SP_Q:
                                fl |= SP_Q
                            gsp = it[r0, SP]
                            gsq = it[r1, SQ]
                    else:
                        fl = combine_flags(it, sp_off, sp_score, r0, r1, r2, Combo(ar, p, q, k, l, go), root, pts, out5)
                        gsp = pts[4, 0]
                        gsq = pts[4, 1]
                        gso = pts[4, 2]
                        corr = out5[0]
                    if fl >= 0:
                        key = comb_goal[cu[z, 0]]
                        gold = mark_gold and (it[r0, FLG] & GOLD) != 0 and (it[r1, FLG] & GOLD) != 0
                        if ar == 3:
                            gold = gold and (it[r2, FLG] & GOLD) != 0
                        idn = ident(go, key, fl, gsp, gsq, gso)
                        if gold:
                            gold = False
                            for zg in range(gold_off[cell], gold_off[cell + 1]):
                                if gold_id[zg] == idn:
                                    gold = True
                        if gold or key // N_STATES != I_SPAN or (coarse[cell] >> (fl & COARSE_FLAGS)) & 1:
                            w = cf[z, 0] - corr
                            score = ins[r0] + ins[r1] + w
                            if ar == 3:
                                score += ins[r2]
                            # add the item to the cell, or merge it into the row with its identity
                            h = mix(idn) & hmask
                            while hg[h] == gen and hk[h] != idn:
                                h = (h + 1) & hmask
                            if hg[h] == gen:
                                row = hv[h]
                                if score > sins[row]:
                                    sins[row] = score
                                    sit[row, KIND] = KIND_COMB
                                    sit[row, RULE] = cu[z, 0]
                                    sit[row, A] = r0
                                    sit[row, B] = r1
                                    sit[row, C] = r2
                                    sit[row, AUX] = -1
                                    sit[row, MODE] = 0
                                if gold:
                                    sit[row, FLG] |= GOLD
                            else:
                                row = sn
                                sit[row, P] = p
                                sit[row, Q] = q
                                sit[row, O] = go
                                sit[row, KEY] = key
                                sit[row, FLG] = fl | (GOLD if gold else 0)
                                sit[row, SP] = gsp
                                sit[row, SQ] = gsq
                                sit[row, SO] = gso
                                sit[row, KIND] = KIND_COMB
                                sit[row, RULE] = cu[z, 0]
                                sit[row, A] = r0
                                sit[row, B] = r1
                                sit[row, C] = r2
                                sit[row, AUX] = -1
                                sit[row, MODE] = 0
                                sins[row] = score
                                sidn[row] = idn
                                hk[h] = idn
                                hv[h] = row
                                hg[h] = gen
                                sn += 1
                            if log:
                                slg[ln, LG_GOAL] = row
                                slg[ln, LG_A] = r0
                                slg[ln, LG_B] = r1
                                slg[ln, LG_C] = r2
                                slg[ln, LG_PAIR] = -1
                                slw[ln, LW_W] = w
                                slw[ln, LW_S] = NEG
                                slw[ln, LW_T] = NEG
                                ln += 1
                    if exhaustive:
                        # next corner: c fastest, then b, then a, then the next sub-cube
                        ic += 1
                        if ic >= nc3:
                            ic = 0
                            ib += 1
                            if ib >= nb:
                                ib = 0
                                ia += 1
                                if ia >= na:
                                    ia = 0
                                    z += 1
                        continue
                    # successors: each corner has one predecessor (a first, then b, then c)
                    for axis in range(3):
                        if axis == 1 and ia != 0:
                            break
                        if axis == 2 and (ia != 0 or ib != 0 or ar == 2):
                            break
                        ja = ia + (1 if axis == 0 else 0)
                        jb = ib + (1 if axis == 1 else 0)
                        jc = ic + (1 if axis == 2 else 0)
                        if ja >= na or jb >= nb or (ar == 3 and jc >= nc3):
                            continue
                        rows3[0] = sb_rows[sb_lo[cu[z, 2]] + ja]
                        rows3[1] = sb_rows[sb_lo[cu[z, 3]] + jb]
                        v = ins[rows3[0]] + ins[rows3[1]] + cf[z, 0]
                        if ar == 3:
                            rows3[2] = sb_rows[sb_lo[cu[z, 4]] + jc]
                            v += ins[rows3[2]]
                        if spine_scores:
                            v -= spine_correction(it, sp_off, sp_score, rows3, ar, root)
                        pri[ne] = v
                        ez[ne] = z
                        eix[ne, 0] = ja
                        eix[ne, 1] = jb
                        eix[ne, 2] = jc
                        heap[hn] = ne
                        i = hn
                        while i > 0:
                            par_ = (i - 1) // 2
                            a_, b_ = heap[i], heap[par_]
                            if pri[a_] > pri[b_] or (pri[a_] == pri[b_] and a_ < b_):
                                heap[i] = b_
                                heap[par_] = a_
                                i = par_
                            else:
                                break
                        hn += 1
                        ne += 1
            stats[1, cell] = npop
            # -- arc stages on the kept items of the main sub-beams ------------------------
            for stage in range(2):
                if sn > wrow.shape[0]:
                    wrow = np.empty(2 * sn, np.int64)
                    word = np.empty((3, 2 * sn), np.int64)
                    wkey = np.empty((3, 2 * sn), np.int64)
                    wkeep = np.zeros((3, 2 * sn), np.bool_)
                    perm = np.empty(2 * sn, np.int64)
                m = 0
                for r in range(sn):
                    wkeep[0, r] = False
                    wkey[0, r] = (np.int64(sit[r, KEY]) * O_SLOTS + sit[r, O] + 1) * SPN
                    if n_direct[sit[r, KEY] % N_STATES] == stage:
                        wrow[m] = r
                        m += 1
                rank_rows(sins, sidn, wrow, m, wkey[0], K, wkeep[0], word[0])
                nk = 0
                bound = 0
                for z in range(m):
                    r = word[0, z]
                    if wkeep[0, r]:
                        wrow[nk] = r
                        nk += 1
                        key = sit[r, KEY]
                        for ridx in range(arc_start[key], arc_start[key + 1]):
                            bound += 2 * (N * max_nsp if arc_xcreate[arc_rules[ridx]] else 1)
                if sn + bound > sit.shape[0] or 2 * (sn + bound) > hk.shape[0] or (log and ln + bound > slg.shape[0]):
                    scratch = reserve(scratch, sn, ln, gen, bound, log)
                    sit, sins, sidn, hk, hv, hg, slg, slw = scratch
                hmask = hk.shape[0] - 1
                for z in range(nk):
                    r = wrow[z]
                    key = sit[r, KEY]
                    o0 = sit[r, O]
                    fl0 = sit[r, FLG] & ID_FLAGS
                    gold_r = mark_gold and (sit[r, FLG] & GOLD) != 0
                    for ridx in range(arc_start[key], arc_start[key + 1]):
                        rule = arc_rules[ridx]
                        par = arc_parent[rule]
                        chd = arc_child[rule]
                        xcreate = arc_xcreate[rule]
                        end = p if (par == 0 or chd == 0) else q
                        # candidate external points: every point outside the span when the rule
                        # creates one (then each of its spine options), else the item's own
                        for o in range(0 if xcreate else o0, N if xcreate else o0 + 1):
                            if xcreate:
                                if p <= o <= q:
                                    continue
                                if chd == 2:
                                    cc, pp = o, end
                                else:
                                    cc, pp = end, o
                                if strict and not new_external_ok_roles(par, chd, o, p, q, root):
                                    continue
                                gk = (X_RIGHT if o > q else X_LEFT) * N_STATES + arc_goal[rule]
                            else:
                                pp, cc = role_points(par, chd, p, q, o0)
                                gk = arc_goal[rule]
                            if pp < 0 or cc < 0 or cc == root or pair_off[cc * N + pp] < 0:
                                continue
                            # an external edge is worth creating only if an allowed edge can cross it
                            # without an end strictly inside the span (exact: a
                            # derivation never creates an Exterval whose external edge nothing
                            # crosses); a structural one only by a trace
                            cross_s = True
                            cross_t = True
                            if xcreate:
                                # the crosser's end between the edge's ends (not strictly inside
                                # the span) is among a1..b1; its other end must lie below elo or
                                # above ehi, and not strictly inside the span either
                                if o > q:
                                    a1, b1 = (q + 1, o - 1) if end == q else (q, o - 1)
                                    elo = p + 1 if end == q else p
                                    ehi = o
                                else:
                                    a1, b1 = (o + 1, p - 1) if end == p else (o + 1, p)
                                    elo = o
                                    ehi = q - 1 if end == p else q
                                cross_s = crossable(cross, 0, elo, ehi, a1, b1, 1, 0)
                                cross_t = crossable(cross, 1, elo, ehi, a1, b1, 1, 0)
                                if not cross_t:
                                    continue
                            # a new point's gold pairs with the span's interior die here
                            xloss = miss * gold_between(gps, N, o, o + 1, p + 1, q) if (xcreate and train) else 0.0
                            rc = role(cc, p, q, o)
                            rp = role(pp, p, q, o)
                            m_s = miss * gold_st[0, cc * N + pp]
                            m_t = miss * gold_st[1, cc * N + pp]
                            rev = miss * (gold_st[0, pp * N + cc] + gold_st[1, pp * N + cc])
                            for jo in range(n_spines(sp_off, o) if xcreate else 1):
                                so = jo if xcreate else sit[r, SO]
                                extra = sp_score[sp_off[o] + jo] + xloss if xcreate else 0.0
                                ic_ = sit[r, SP] if rc == 0 else (sit[r, SQ] if rc == 1 else so)
                                jp_ = sit[r, SP] if rp == 0 else (sit[r, SQ] if rp == 1 else so)
                                flat = pair_off[cc * N + pp] + ic_ * n_spines(sp_off, pp) + jp_
                                sv = st_best[0, flat]
                                tv = st_best[1, flat]
                                # two proposals: the structural item (a trace may ride along) and
                                # the trace-only item
                                for which in range(2):
                                    if which == 0:
                                        if sv == NEG or not cross_s:
                                            continue
                                        bit = SP_P if rc == 0 else (SP_Q if rc == 1 else SP_O)
                                        if fl0 & bit or (pp == root and fl0 & ROOT_EDGE):
                                            continue
                                        if rc != 2 and rp != 2 and fl0 & XS_IN:
                                            continue      # a structural edge between the ends would cross o's
                                        nf = fl0 | bit
                                        if pp == root:
                                            nf |= ROOT_EDGE
                                        if rc == 2:
                                            nf |= XS_P if rp == 0 else XS_Q
                                        elif rp == 2:
                                            nf |= XS_P if rc == 0 else XS_Q
                                        ride = pp != root and tv > m_t
                                        w = extra + sv + rev + (tv if ride else m_t)
                                        ws = w
                                        wt = extra + sv + rev + tv if tv > NEG else NEG
                                        mode = MODE_ST if ride else MODE_S
                                        gold = gold_r and gold_st[0, cc * N + pp] != 0 and \
                                            ride == (gold_st[1, cc * N + pp] != 0)
                                    else:
                                        if tv == NEG or pp == root:
                                            continue
                                        nf = fl0
                                        w = extra + tv + m_s + rev
                                        ws = NEG
                                        wt = w
                                        mode = MODE_T
                                        gold = gold_r and gold_st[0, cc * N + pp] == 0 and gold_st[1, cc * N + pp] != 0
                                    idn = ident(o, gk, nf, sit[r, SP], sit[r, SQ], so)
                                    if gold:
                                        gold = False
                                        for zg in range(gold_off[cell], gold_off[cell + 1]):
                                            if gold_id[zg] == idn:
                                                gold = True
                                    score = sins[r] + w
                                    # add the item to the cell, or merge it into the row with its identity
                                    h = mix(idn) & hmask
                                    while hg[h] == gen and hk[h] != idn:
                                        h = (h + 1) & hmask
                                    if hg[h] == gen:
                                        row = hv[h]
                                        if score > sins[row]:
                                            sins[row] = score
                                            sit[row, KIND] = KIND_ARC
                                            sit[row, RULE] = rule
                                            sit[row, A] = r
                                            sit[row, B] = -1
                                            sit[row, C] = -1
                                            sit[row, AUX] = flat
                                            sit[row, MODE] = mode
                                        if gold:
                                            sit[row, FLG] |= GOLD
                                    else:
                                        row = sn
                                        sit[row, P] = p
                                        sit[row, Q] = q
                                        sit[row, O] = o
                                        sit[row, KEY] = gk
                                        sit[row, FLG] = nf | (GOLD if gold else 0)
                                        sit[row, SP] = sit[r, SP]
                                        sit[row, SQ] = sit[r, SQ]
                                        sit[row, SO] = so
                                        sit[row, KIND] = KIND_ARC
                                        sit[row, RULE] = rule
                                        sit[row, A] = r
                                        sit[row, B] = -1
                                        sit[row, C] = -1
                                        sit[row, AUX] = flat
                                        sit[row, MODE] = mode
                                        sins[row] = score
                                        sidn[row] = idn
                                        hk[h] = idn
                                        hv[h] = row
                                        hg[h] = gen
                                        sn += 1
                                    if log:
                                        slg[ln, LG_GOAL] = row
                                        slg[ln, LG_A] = r
                                        slg[ln, LG_B] = -1
                                        slg[ln, LG_C] = -1
                                        slg[ln, LG_PAIR] = cc * N + pp
                                        slw[ln, LW_W] = w
                                        slw[ln, LW_S] = ws
                                        slw[ln, LW_T] = wt
                                        ln += 1
            # -- the cell's indexes; copy the kept items to the permanent table --------------
            if sn > wrow.shape[0]:
                wrow = np.empty(2 * sn, np.int64)
                word = np.empty((3, 2 * sn), np.int64)
                wkey = np.empty((3, 2 * sn), np.int64)
                wkeep = np.zeros((3, 2 * sn), np.bool_)
                perm = np.empty(2 * sn, np.int64)
            for r in range(sn):
                wrow[r] = r
                mk = (np.int64(sit[r, KEY]) * O_SLOTS + sit[r, O] + 1) * SPN
                wkey[0, r] = mk
                wkey[1, r] = mk + sit[r, SQ]
                wkey[2, r] = mk + sit[r, SP]
                wkeep[0, r] = False
                wkeep[1, r] = False
                wkeep[2, r] = False
            n_ix = 3 if spines else 1
            for ix in range(n_ix):
                rank_rows(sins, sidn, wrow, sn, wkey[ix], K, wkeep[ix], word[ix])
            nalive = 0
            for r in range(sn):
                perm[r] = -1
                if wkeep[0, r] or (spines and (wkeep[1, r] or wkeep[2, r])):
                    nalive += 1
            if nit + nalive > it.shape[0]:
                it = grow_rows(it, nit + nalive)
                ins = grow_vec(ins, nit + nalive)
            # copied in index order (key, score, identity): permanent rows -- and so every
            # later tie -- do not depend on the order in which the cell's items were made
            for ix in range(n_ix):
                for z in range(sn):
                    r = word[ix, z]
                    if perm[r] >= 0 or not wkeep[ix, r]:
                        continue
                    perm[r] = nit
                    for col in range(NCOL):
                        it[nit, col] = sit[r, col]
                    ins[nit] = sins[r]
                    nit += 1
            for r in range(sn):
                if perm[r] >= 0 and sit[r, KIND] == KIND_ARC:
                    it[perm[r], A] = perm[sit[r, A]]
            stats[2, cell] = nalive
            if nsb + 3 * sn > sb_key.shape[0]:
                sb_key = grow_vec(sb_key, nsb + 3 * sn)
                sb_lo = grow_vec(sb_lo, nsb + 3 * sn)
                sb_len = grow_vec(sb_len, nsb + 3 * sn)
            if nsr + 3 * sn > sb_rows.shape[0]:
                sb_rows = grow_vec(sb_rows, nsr + 3 * sn)
            for ix in range(3):
                if ix >= n_ix:
                    ix_lo[ix, cell] = ix_lo[IX_MAIN, cell]
                    ix_hi[ix, cell] = ix_hi[IX_MAIN, cell]
                    continue
                ix_lo[ix, cell] = nsb
                z = 0
                while z < sn:
                    e = z
                    kz = wkey[ix, word[ix, z]]
                    start = nsr
                    while e < sn and wkey[ix, word[ix, e]] == kz:
                        r = word[ix, e]
                        if wkeep[ix, r]:
                            sb_rows[nsr] = perm[r]
                            nsr += 1
                        e += 1
                    if nsr > start:
                        sb_key[nsb] = kz
                        sb_lo[nsb] = start
                        sb_len[nsb] = nsr - start
                        nsb += 1
                    z = e
                ix_hi[ix, cell] = nsb
            if log:
                if nlg + ln > lg.shape[0]:
                    lg = grow_rows(lg, nlg + ln)
                    lw = grow_rows(lw, nlg + ln)
                for e in range(ln):
                    gr = slg[e, LG_GOAL]
                    if perm[gr] < 0:
                        continue
                    lg[nlg, LG_GOAL] = perm[gr]
                    a = slg[e, LG_A]
                    lg[nlg, LG_A] = perm[a] if slg[e, LG_PAIR] >= 0 else a
                    lg[nlg, LG_B] = slg[e, LG_B]
                    lg[nlg, LG_C] = slg[e, LG_C]
                    lg[nlg, LG_PAIR] = slg[e, LG_PAIR]
                    lw[nlg, LW_W] = slw[e, LW_W]
                    lw[nlg, LW_S] = slw[e, LW_S]
                    lw[nlg, LW_T] = slw[e, LW_T]
                    nlg += 1
    kept = Kept(it, ins, nit, lg, lw, nlg, stats)
    if over:
        return it, ins, nit, lg, lw, nlg, GAVE_UP, NEG, stats
    goal, best = best_goal(kept, sen)
    return it, ins, nit, lg, lw, nlg, goal, best, stats

if NUMBA_CACHE:
    # numba does not notice when inlined code of another module changes
    _numba_cache.guard_cache(__file__, chart, _apply.__file__, _beam.__file__, _items.__file__, _steps.__file__)
