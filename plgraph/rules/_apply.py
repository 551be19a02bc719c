"""Numba kernels: applying the 1EC deduction rules to chart items.

This is the rule-application library every chart over :class:`~plgraph.rules.tables.RuleTables`
uses: the derivation counter (:func:`plgraph.rules._chart.count_derivations`, and
through it the brute-force check of :mod:`plgraph.rules.bruteforce`) and the parser's
chart.  It knows items and rules, not graphs, scores or semirings: a chart decides
which edges it may add and what an item carries.

**Items.** An item is ``(p, q, o, key)``: span ends ``p < q``, external point ``o``
(-1 none) and ``key = span_code * N_STATES + state_id`` (:func:`plgraph.rules.tables.item_key`).
Positions are 0..N-1 with ROOT = N-1 (the last point).

**Tables.** Every function that reads rules takes ``g``, the namedtuple
:meth:`RuleTables.kernel_args() <plgraph.rules.tables.RuleTables.kernel_args>` returns
(:class:`plgraph.rules.tables.KernelArgs`: the state letters, per-state direct-edge
counts, the rule arrays and their lookup indexes).

**Roles and slots.** The points of an item have roles 0 (``i``, the left end), 1
(``j``, the right end) and 2 (``x``, the external point); a state's six slots are
``(i,j), (i,x), (j,i), (j,x), (x,i), (x,j)`` with letters 0 none, 1 indirect, 2
direct (:func:`plgraph.rules.tables.state_letters`).

**Parser-level conditions** (the reference
parser applies them, the rule tables do not encode them; a chart applies them when
its ``strict`` switch is set): :func:`interval_split_ok` (an Interval with no parent
links and width > 1 is never the left child of Interval + Interval) and
:func:`new_external_ok` (where an Exterval's new external point may lie).  ROOT is
never a child (:func:`arc_points` callers test ``child == root``) whether or not
``strict`` is set.

The constants below are positions in :data:`plgraph.rules.generate.SPAN_CODES`,
:data:`plgraph.rules.tables.REF_CODES` and :func:`plgraph.rules.states.all_states`;
they are checked against those at import.
"""
from __future__ import annotations

from numba import njit

from ..files import _numba_cache
from ..config import NUMBA_CACHE
from .generate import SPAN_CODES
from .states import all_states
from .tables import N_KEYS as _TABLE_N_KEYS
from .tables import REF_CODES

N_STATES = 90
N_SPANS = 17
N_KEYS = N_SPANS * N_STATES
X_RIGHT = 14   # "__.X": Exterval, external point right of the span
X_LEFT = 15    # "_._X": Exterval, external point left of the span
I_SPAN = 16    # "___I": Interval
REF_NONE, REF_XP, REF_I0, REF_J0, REF_I1, REF_J1, REF_J2, REF_IPLUS = 0, 1, 2, 3, 4, 5, 6, 7
J_F_STATE = 0  # "J_F___": the left end has the right end as direct parent
j_F_STATE = 1  # "j_F___": ... as indirect parent
F_F_STATE = 4  # "F_F___": no parent links
KIND_INIT, KIND_COMB, KIND_ARC = 0, 1, 2   # how an item was built (back-pointer kinds)
NO_ITEM = -2   # returned for "the rule does not apply" where -1 means "no external point"

if (SPAN_CODES[X_RIGHT], SPAN_CODES[X_LEFT], SPAN_CODES[I_SPAN], len(SPAN_CODES)) != ("__.X", "_._X", "___I", N_SPANS) \
        or REF_CODES.index("i+") != REF_IPLUS or REF_CODES.index("xP") != REF_XP or REF_CODES.index("j2") != REF_J2 \
        or [all_states()[k].code for k in (J_F_STATE, j_F_STATE, F_F_STATE)] != ["J_F___", "j_F___", "F_F___"] \
        or len(all_states()) != N_STATES or _TABLE_N_KEYS != N_KEYS:
    raise ImportError("plgraph.rules._apply: kernel constants disagree with the span codes, reference codes or states")


# -- items ------------------------------------------------------------------------------------
@njit(cache=NUMBA_CACHE)
def role(v, a, b, o):
    """Role of point ``v`` in an item with ends ``a``, ``b`` and external point ``o``:
    0 (i), 1 (j), 2 (x) or -1 (not a visible point)."""
    if v == a:
        return 0
    if v == b:
        return 1
    if o >= 0 and v == o:
        return 2
    return -1


@njit(cache=NUMBA_CACHE)
def has_direct(letters, state, ra, rb):
    """Does the point in role ``ra`` have the point in role ``rb`` as direct parent
    in ``state``?  False when a role is -1 or both are the same."""
    if ra == rb or ra < 0 or rb < 0:
        return False
    # slot order: (i,j),(i,x),(j,i),(j,x),(x,i),(x,j)
    if ra == 0:
        slot = 0 if rb == 1 else 1
    elif ra == 1:
        slot = 2 if rb == 0 else 3
    else:
        slot = 4 if rb == 0 else 5
    return letters[state, slot] == 2


@njit(cache=NUMBA_CACHE)
def goal_key(first_word_edge_to_root):
    """Key of the goal item over [0, ROOT] (no external point): ``J_F___`` if the
    first word's edge to ROOT is direct, else ``j_F___``."""
    return I_SPAN * N_STATES + (J_F_STATE if first_word_edge_to_root else j_F_STATE)


# -- combinations -----------------------------------------------------------------------------
@njit(cache=NUMBA_CACHE)
def ref_ok(ref, o, p, k, l, q, ternary):
    """Does an item's external point ``o`` match reference code ``ref`` in a combination
    over [p, q] split at k (and l, if ``ternary``)?  For REF_XP (the goal's external
    point) only "outside [p, q]" is checked here; REF_IPLUS only "no external point"
    (its width 1 is :func:`binary_external`'s test)."""
    if ref == REF_NONE or ref == REF_IPLUS:
        return o < 0
    if ref == REF_XP:
        return o >= 0 and (o < p or o > q)
    if ref == REF_I0:
        return o == p
    if ref == REF_J0:
        return o == k
    if ref == REF_J1:
        return o == (l if ternary else q)
    if ref == REF_J2:
        return o == q
    return False


@njit(cache=NUMBA_CACHE)
def binary_external(g, r, oa, ob, p, k, q):
    """Binary combination rule ``r`` over items [p, k] (external point ``oa``) and
    [k, q] (``ob``): the goal's external point (-1 none), or NO_ITEM if the rule's
    references do not match (the caller has matched the items' keys)."""
    return binary_external_refs(g.comb_refs[r, 0], g.comb_refs[r, 1], oa, ob, p, k, q)


@njit(cache=NUMBA_CACHE)
def binary_external_refs(ra, rb, oa, ob, p, k, q):
    """:func:`binary_external` given the rule's reference codes ``ra``, ``rb`` (kernels
    with hot loops pass scalars rather than the tables)."""
    if ra == REF_IPLUS and k != p + 1:
        return NO_ITEM
    if not ref_ok(ra, oa, p, k, -1, q, False) or not ref_ok(rb, ob, p, k, -1, q, False):
        return NO_ITEM
    go = oa if ra == REF_XP else -1
    if rb == REF_XP:
        if go >= 0 and go != ob:
            return NO_ITEM
        go = ob
    return go


@njit(cache=NUMBA_CACHE)
def ternary_external(g, r, oa, ob, oc, p, k, l, q):
    """Ternary combination rule ``r`` over [p, k], [k, l], [l, q] (external points
    ``oa``, ``ob``, ``oc``): the goal's external point (-1 none) or NO_ITEM."""
    return ternary_external_refs(g.comb_refs[r, 0], g.comb_refs[r, 1], g.comb_refs[r, 2], oa, ob, oc, p, k, l, q)


@njit(cache=NUMBA_CACHE)
def ternary_external_refs(r0, r1, r2, oa, ob, oc, p, k, l, q):
    """:func:`ternary_external` given the rule's reference codes."""
    if not (ref_ok(r0, oa, p, k, l, q, True) and ref_ok(r1, ob, p, k, l, q, True)
            and ref_ok(r2, oc, p, k, l, q, True)):
        return NO_ITEM
    go = -1
    bad = False
    for ref, oo in ((r0, oa), (r1, ob), (r2, oc)):
        if ref == REF_XP:
            if go >= 0 and go != oo:
                bad = True
            go = oo
    if bad:
        return NO_ITEM
    return go


@njit(cache=NUMBA_CACHE)
def interval_split_ok(ka, kb, p, k):
    """Parser-level condition on an Interval + Interval combination split at ``k``:
    the left child [p, k] may be ``I{F_F}`` (no parent links) only at width 1."""
    if ka // N_STATES == I_SPAN and kb // N_STATES == I_SPAN:
        if ka % N_STATES == F_F_STATE and k - p > 1:
            return False
    return True


# -- arc steps --------------------------------------------------------------------------------
@njit(cache=NUMBA_CACHE)
def arc_externals(g, r, o0, n):
    """The external points arc rule ``r`` may give an item with external point ``o0``,
    as ``range(lo, hi)``: every position when the rule creates an Exterval (the caller
    skips those inside the span), else just ``o0``."""
    if g.arc_xcreate[r]:
        return 0, n
    return o0, o0 + 1


@njit(cache=NUMBA_CACHE)
def arc_points(g, r, p, q, o):
    """(parent, child) positions of the edge arc rule ``r`` adds to an item with ends
    ``p``, ``q`` and external point ``o``; a role x with ``o = -1`` gives -1."""
    return role_points(g.arc_parent[r], g.arc_child[r], p, q, o)


@njit(cache=NUMBA_CACHE)
def role_points(par, chd, p, q, o):
    """(parent, child) positions of an edge between roles ``par`` and ``chd`` (0 i, 1 j,
    2 x) of an item with ends ``p``, ``q`` and external point ``o``."""
    pp = p if par == 0 else (q if par == 1 else o)
    cc = p if chd == 0 else (q if chd == 1 else o)
    return pp, cc


@njit(cache=NUMBA_CACHE)
def new_external_ok(g, r, o, p, q, root):
    """Parser-level conditions on the external point ``o`` that arc rule ``r`` (an
    Exterval-creating one) gives span [p, q]: ROOT only as the parent; the point just
    left of the span only if the edge touches the right end, and symmetrically."""
    return new_external_ok_roles(g.arc_parent[r], g.arc_child[r], o, p, q, root)


@njit(cache=NUMBA_CACHE)
def new_external_ok_roles(par, chd, o, p, q, root):
    """:func:`new_external_ok` given the arc rule's parent and child roles."""
    if o == root and par != 2:
        return False
    if o == p - 1 and par != 1 and chd != 1:
        return False
    if o == q + 1 and par != 0 and chd != 0:
        return False
    return True


@njit(cache=NUMBA_CACHE)
def arc_goal(g, r, o, q, o0):
    """(key, external point) of the item arc rule ``r`` builds; ``o`` is the external
    point chosen from :func:`arc_externals`, ``o0`` the item's own."""
    if g.arc_xcreate[r]:
        return (X_RIGHT if o > q else X_LEFT) * N_STATES + g.arc_goal[r], o
    return g.arc_goal[r], o0


if NUMBA_CACHE:
    # these kernels call only this module's; the guard is here to be given a file the day one calls another's
    _numba_cache.guard_cache(__file__, role)
