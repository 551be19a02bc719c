"""The chart's items and their storage (numba helpers of :mod:`plgraph.parser.chart._kernel`).

Item table columns (:data:`P` .. :data:`MODE`), flags (``ROOT_EDGE`` .. ``GOLD``), arc
modes, the packed item identity (:func:`ident`), a cell's scratch storage
(:class:`CellScratch`) and the per-cell hash that merges items of one identity
(:func:`add_item`, one :class:`Item` at a time); the kernel's docstring describes what
they mean.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...files import _numba_cache
from ...config import NUMBA_CACHE
from ...rules._apply import N_KEYS

NEG = -np.inf
ROOT_EDGE, SP_P, SP_Q, SP_O, XS_P, XS_Q, XS_IN, GOLD = 1, 2, 4, 8, 16, 32, 64, 128
ID_FLAGS = 127
COARSE_FLAGS = ROOT_EDGE | SP_P | SP_Q   # the flags a pass-1b (coarse) identity keeps
MODE_S, MODE_ST, MODE_T = 0, 1, 2
O_SLOTS = 1024          # o + 1 in 0..1023: at most 1,022 words
SPN = 1024              # spine options per point: at most 1,024
MAX_WORDS = O_SLOTS - 2
IX_MAIN, IX_L, IX_R = 0, 1, 2

# columns of the item table
P, Q, O, KEY, FLG, SP, SQ, SO, KIND, RULE, A, B, C, AUX, MODE = range(15)
NCOL = 15
# columns of the hyperedge log: ints (goal, children, pair = c * N + p' for an arc step or -1)
# and floats (weight; for an arc step also the weight of the structural and of the trace
# alternative used for arc max-marginals, -inf when there is none)
LG_GOAL, LG_A, LG_B, LG_C, LG_PAIR = range(5)
LW_W, LW_S, LW_T = range(3)




# -- identities and storage ---------------------------------------------------------------------
@njit(cache=NUMBA_CACHE)
def ident(o, key, flags, sp, sq, so):
    """The exact int64 identity of an item within its cell (58 bits)."""
    x = (np.int64(o) + 1) * N_KEYS + key
    x = x * 128 + (flags & ID_FLAGS)
    return ((x * SPN + sp) * SPN + sq) * SPN + so


@njit(cache=NUMBA_CACHE)
def mix(x):
    x = x ^ (x >> 31)
    x = x * np.int64(-7046029254386353131)
    return x ^ (x >> 29)


@njit(cache=NUMBA_CACHE)
def hfind(hk, hg, gen, idn):
    """Slot of ``idn`` in the cell's open-addressing table, or the free slot for it (a slot
    is in use when its generation ``hg`` is the current cell's ``gen``)."""
    mask = hk.shape[0] - 1
    h = mix(idn) & mask
    while hg[h] == gen and hk[h] != idn:
        h = (h + 1) & mask
    return h


@njit(cache=NUMBA_CACHE)
def grow_rows(t, need):
    if need <= t.shape[0]:
        return t
    b = np.empty((max(need, 2 * t.shape[0]), t.shape[1]), t.dtype)
    b[:t.shape[0]] = t
    return b


@njit(cache=NUMBA_CACHE)
def grow_vec(v, need):
    if need <= v.shape[0]:
        return v
    b = np.empty(max(need, 2 * v.shape[0]), v.dtype)
    b[:v.shape[0]] = v
    return b


@njit(cache=NUMBA_CACHE)
def rehash(sidn, sn, gen, size):
    """A fresh hash table of ``size`` slots (a power of two) holding scratch rows ``0..sn-1``."""
    hk = np.empty(size, np.int64)
    hv = np.empty(size, np.int32)
    hg = np.zeros(size, np.int64)
    for r in range(sn):
        h = hfind(hk, hg, gen, sidn[r])
        hk[h] = sidn[r]
        hv[h] = r
        hg[h] = gen
    return hk, hv, hg


class CellScratch(NamedTuple):
    """One cell's storage while the chart builds it (row and log counts travel beside it).

    * ``rows`` (R, :data:`NCOL`) int32: the cell's items, one row each (columns
      :data:`P` .. :data:`MODE`); ``ins`` (R,) float64: their inside scores; ``idn`` (R,)
      int64: their identities (:func:`ident`);
    * ``hkey`` / ``hrow`` / ``hgen`` (H,): the open-addressing hash of the identities (H a
      power of two, kept at most half full): slot h holds identity ``hkey[h]`` at row
      ``hrow[h]`` when ``hgen[h]`` is the current cell's generation;
    * ``log_ix`` (R', 5) int32 / ``log_w`` (R', 3) float64: the cell's hyperedge log
      (columns ``LG_*`` / ``LW_*``).

    The arrays are filled in place; :func:`plgraph.parser.chart._steps.reserve` returns a
    grown copy when one is too small."""

    rows: np.ndarray
    ins: np.ndarray
    idn: np.ndarray
    hkey: np.ndarray
    hrow: np.ndarray
    hgen: np.ndarray
    log_ix: np.ndarray
    log_w: np.ndarray


class Item(NamedTuple):
    """One item as :func:`add_item` writes it, its fields in column order (:data:`P` ..
    :data:`MODE`): span ``p`` .. ``q``, external point ``o`` (-1: none), ``key``,
    ``flags``, spine options ``sp`` / ``sq`` / ``so``, and the back-pointer: ``kind``,
    ``rule``, child rows ``a`` / ``b`` / ``c`` (-1: none), ``aux`` (an arc step's flat
    score index) and ``mode`` (an arc step's ``MODE_*``).  Scalars only."""

    p: int
    q: int
    o: int
    key: int
    flags: int
    sp: int
    sq: int
    so: int
    kind: int
    rule: int
    a: int
    b: int
    c: int
    aux: int
    mode: int


@njit(cache=NUMBA_CACHE)
def add_item(scratch, sn, gen, item, score, gold):
    """Add ``item`` (:class:`Item`) with ``score`` to the cell's rows of ``scratch``
    (:class:`CellScratch`, ``sn`` rows used, room reserved, hash generation ``gen``) or
    merge it into the row with its identity (a better score takes the back-pointer; GOLD
    is or-ed).  Returns (sn, row)."""
    sit, sins, sidn, hk, hv, hg, _slg, _slw = scratch
    p, q, o, key, flags, sp, sq, so, kind, rule, a, b, c, aux, mode = item
    idn = ident(o, key, flags, sp, sq, so)
    h = hfind(hk, hg, gen, idn)
    if hg[h] == gen:
        row = hv[h]
        if score > sins[row]:
            sins[row] = score
            sit[row, KIND] = kind
            sit[row, RULE] = rule
            sit[row, A] = a
            sit[row, B] = b
            sit[row, C] = c
            sit[row, AUX] = aux
            sit[row, MODE] = mode
        if gold:
            sit[row, FLG] |= GOLD
        return sn, row
    row = sn
    sit[row, P] = p
    sit[row, Q] = q
    sit[row, O] = o
    sit[row, KEY] = key
    sit[row, FLG] = (flags & ID_FLAGS) | (GOLD if gold else 0)
    sit[row, SP] = sp
    sit[row, SQ] = sq
    sit[row, SO] = so
    sit[row, KIND] = kind
    sit[row, RULE] = rule
    sit[row, A] = a
    sit[row, B] = b
    sit[row, C] = c
    sit[row, AUX] = aux
    sit[row, MODE] = mode
    sins[row] = score
    sidn[row] = idn
    hk[h] = idn
    hv[h] = row
    hg[h] = gen
    return sn + 1, row


@njit(cache=NUMBA_CACHE)
def is_gold(gold_off, gold_id, cell, idn):
    for z in range(gold_off[cell], gold_off[cell + 1]):
        if gold_id[z] == idn:
            return True
    return False


@njit(cache=NUMBA_CACHE)
def n_spines(sp_off, w):
    return sp_off[w + 1] - sp_off[w]


@njit(cache=NUMBA_CACHE)
def end_units(v, root):
    """Half-units of a point's spine score an item counts for it as a span end."""
    return 2 if v == 0 or v == root else 1


if NUMBA_CACHE:
    _numba_cache.guard_cache(__file__, grow_rows)
