"""Rules as numpy tables indexed for fast lookup.

An *item key* is ``span_code * 90 + state_id`` (17 span codes, 90 parent
states; see :mod:`plgraph.rules.states`).  Combination rules are indexed by the
keys of their first two items (a dense CSR over ``key0 * 1530 + key1``), arc rules
by the key of the item they apply to.  External-point references are small
integers (:data:`REF_CODES`).  :class:`RuleTables` is what the chart kernels and,
later, the parser consume: :meth:`RuleTables.kernel_args` packs every array a kernel
reads into one :class:`KernelArgs`; :meth:`RuleTables.subset` gives a pruned grammar.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..files.atomic import atomic_json, atomic_savez_compressed
from ..errors import ModelFileError
from ..files.modelfile import (check_array, check_crc32, check_format, check_index_range, check_version, content_crc32,
                         load_json, load_npz, model_errors)
from .generate import SPAN_CODES, generate_rules
from .states import all_states, state_ids

N_STATES = 90
N_KEYS = len(SPAN_CODES) * N_STATES
REF_CODES = ("__", "xP", "i0", "j0", "i1", "j1", "j2", "i+")
SLOT = {"ij": 0, "ix": 1, "ji": 2, "jx": 3, "xi": 4, "xj": 5}
POINT = {"i": 0, "j": 1, "x": 2}
SPAN_INDEX = {c: k for k, c in enumerate(SPAN_CODES)}
I_SPAN = SPAN_INDEX["___I"]


def item_key(span_code: str, state_code: str) -> int:
    return SPAN_INDEX[span_code] * N_STATES + state_ids()[state_code]


def key_text(key: int) -> str:
    return f"{SPAN_CODES[key // N_STATES]} {all_states()[key % N_STATES].code}"


@lru_cache(maxsize=None)
def state_letters() -> np.ndarray:
    """(90, 6) int8: per state and slot, 0 none, 1 indirect, 2 direct, -1 not applicable."""
    out = np.full((N_STATES, 6), -1, dtype=np.int8)
    for k, s in enumerate(all_states()):
        for slot, ch in enumerate(s.code):
            if ch == "_":
                continue
            out[k, slot] = 0 if ch == "F" else (2 if ch.isupper() else 1)
    return out


@lru_cache(maxsize=None)
def state_direct_counts() -> np.ndarray:
    """(90,) int64: per state, the number of direct edges among its points."""
    return (state_letters() == 2).sum(axis=1).astype(np.int64)


class KernelArgs(NamedTuple):
    """Everything a chart kernel reads about the rules, as one argument (numba takes a
    namedtuple of arrays).  Built by :meth:`RuleTables.kernel_args`; the rule arrays
    are those of :class:`RuleTables`, the rest:

    * ``letters``: :func:`state_letters`; ``n_direct``: :func:`state_direct_counts`;
    * ``bin_start``/``bin_rules``, ``ter_start``/``ter_rules``: CSR over
      ``key0 * N_KEYS + key1`` of the binary / ternary combination rules;
    * ``has_ternary[key]``: some ternary rule has ``key`` as its first item;
    * ``arc_start``/``arc_rules``: CSR over ``arc_in`` of the arc rules;
    * ``bin1_start``/``bin1_rules``, ``ter1_start``/``ter1_rules``: CSR over the *first*
      item's key of the binary / ternary rules, each group sorted by the other keys (the
      parser's chart walks a left sub-beam's rules, then looks the other children's
      sub-beams up by key; the derivation counter does not use them).
    """

    letters: np.ndarray
    n_direct: np.ndarray
    comb_n: np.ndarray
    comb_keys: np.ndarray
    comb_refs: np.ndarray
    comb_goal: np.ndarray
    bin_start: np.ndarray
    bin_rules: np.ndarray
    ter_start: np.ndarray
    ter_rules: np.ndarray
    has_ternary: np.ndarray
    arc_in: np.ndarray
    arc_goal: np.ndarray
    arc_parent: np.ndarray
    arc_child: np.ndarray
    arc_xcreate: np.ndarray
    arc_start: np.ndarray
    arc_rules: np.ndarray
    bin1_start: np.ndarray
    bin1_rules: np.ndarray
    ter1_start: np.ndarray
    ter1_rules: np.ndarray


def _csr(keys: np.ndarray, size: int):
    """``(start, order)``: rules ``order[start[k]:start[k + 1]]`` have key ``k``; ``start``
    is int32 (it indexes at most every rule), which halves the ``N_KEYS ** 2`` pair index."""
    order = np.argsort(keys, kind="stable")
    counts = np.bincount(keys, minlength=size)
    start = np.zeros(size + 1, dtype=np.int32)
    np.cumsum(counts, out=start[1:])
    return start, order.astype(np.int64)


def _by_first_key(rules: np.ndarray, keys: np.ndarray, refs: np.ndarray, goal: np.ndarray):
    """CSR over ``keys[r, 0]`` of ``rules``, each group sorted by the rules' content (other
    keys, references, goal) -- not by rule number, so that the parser's chart visits rules
    in the same order whatever order a rule subset lists them in."""
    keys = keys.astype(np.int64)
    refs = refs.astype(np.int64)
    order = np.lexsort((goal[rules], refs[rules, 2], refs[rules, 1], refs[rules, 0], keys[rules, 2], keys[rules, 1],
                        keys[rules, 0]))
    rules = rules[order].astype(np.int64)
    start = np.zeros(N_KEYS + 1, np.int64)
    np.cumsum(np.bincount(keys[rules, 0], minlength=N_KEYS), out=start[1:])
    return start, rules


@dataclass
class RuleTables:
    """All (or a subset of the) rules as flat arrays.

    Combination rule ``r``: ``comb_n[r]`` items with keys ``comb_keys[r, :n]``
    and external-point references ``comb_refs[r, :n]`` (indices into
    :data:`REF_CODES`), producing ``comb_goal[r]``; ``comb_template[r]`` is its
    template number, ``comb_graph``/``comb_crossing`` its flags.

    Arc rule ``a`` applies to items with key ``arc_in[a]``, adds the edge
    ``arc_child[a] -> arc_parent[a]`` (0 = i, 1 = j, 2 = x) and produces
    ``arc_goal[a]``; for arcs that create an Exterval ``arc_goal`` holds only the
    state (its span code, left or right, follows from where the new external
    point is) and ``arc_xcreate[a]`` is true.
    """

    comb_n: np.ndarray
    comb_keys: np.ndarray
    comb_refs: np.ndarray
    comb_goal: np.ndarray
    comb_template: np.ndarray
    comb_graph: np.ndarray
    comb_crossing: np.ndarray
    comb_text: list
    arc_in: np.ndarray
    arc_goal: np.ndarray
    arc_parent: np.ndarray
    arc_child: np.ndarray
    arc_xcreate: np.ndarray
    arc_graph: np.ndarray
    arc_crossing: np.ndarray
    arc_text: list
    index: dict = field(default_factory=dict)

    @property
    def n_comb(self) -> int:
        return int(self.comb_n.shape[0])

    @property
    def n_arc(self) -> int:
        return int(self.arc_in.shape[0])

    def __post_init__(self):
        self._build_index()

    def _build_index(self):
        """:attr:`index`, all but the pair index's two ``N_KEYS ** 2`` start arrays
        (``bin_start`` / ``ter_start``), which :meth:`kernel_args` adds when asked."""
        pair = self.comb_keys[:, 0].astype(np.int64) * N_KEYS + self.comb_keys[:, 1]
        binary = np.flatnonzero(self.comb_n == 2)
        ternary = np.flatnonzero(self.comb_n == 3)
        bo = np.argsort(pair[binary], kind="stable")
        to = np.argsort(pair[ternary], kind="stable")
        as_, ao = _csr(self.arc_in.astype(np.int64), N_KEYS)
        has_ternary = np.zeros(N_KEYS, dtype=np.bool_)
        has_ternary[self.comb_keys[ternary, 0]] = True
        b1s, b1r = _by_first_key(binary, self.comb_keys, self.comb_refs, self.comb_goal)
        t1s, t1r = _by_first_key(ternary, self.comb_keys, self.comb_refs, self.comb_goal)
        self.index = {
            "bin_rules": binary[bo].astype(np.int64), "ter_rules": ternary[to].astype(np.int64),
            "arc_start": as_, "arc_rules": ao,
            "has_ternary": has_ternary,
            "bin1_start": b1s, "bin1_rules": b1r, "ter1_start": t1s, "ter1_rules": t1r,
        }
        self._pairs = (pair[binary], pair[ternary])
        self._kernel_args = {}
        self._projective = None

    def kernel_args(self, pair_index: bool = True) -> KernelArgs:
        """The arrays every chart kernel takes, packed once per tables object (see
        :class:`KernelArgs`); a rule subset is a new tables object with its own.

        ``pair_index=False`` leaves ``bin_start`` / ``ter_start`` (the CSR over both keys:
        ``N_KEYS ** 2`` entries each, 9 MB) empty: the parser's chart walks rules by their
        first key and never reads them; the derivation counters do, and get them built
        on their first call (then kept in :attr:`index`)."""
        if pair_index and "bin_start" not in self.index:
            self.index["bin_start"] = _csr(self._pairs[0], N_KEYS * N_KEYS)[0]
            self.index["ter_start"] = _csr(self._pairs[1], N_KEYS * N_KEYS)[0]
        if pair_index not in self._kernel_args:
            ix = self.index
            none = np.zeros(1, np.int32)
            self._kernel_args[pair_index] = KernelArgs(
                state_letters(), state_direct_counts(), self.comb_n, self.comb_keys, self.comb_refs, self.comb_goal,
                ix["bin_start"] if pair_index else none, ix["bin_rules"],
                ix["ter_start"] if pair_index else none, ix["ter_rules"], ix["has_ternary"], self.arc_in,
                self.arc_goal, self.arc_parent, self.arc_child, self.arc_xcreate, ix["arc_start"], ix["arc_rules"],
                ix["bin1_start"], ix["bin1_rules"], ix["ter1_start"], ix["ter1_rules"])
        return self._kernel_args[pair_index]

    def projective(self) -> "RuleTables":
        """The projective-tree subset of these rules (neither ``graph`` nor ``1ec``-flagged):
        what pass 1b runs (of the full grammar: 7 combination rules, 2 arc rules).  Built
        once per tables object."""
        if self._projective is None:
            self._projective = self.subset(~self.comb_graph & ~self.comb_crossing, ~self.arc_graph & ~self.arc_crossing)
        return self._projective

    # -- subsets and files ---------------------------------------------------------------
    def subset(self, comb_mask=None, arc_mask=None) -> "RuleTables":
        cm = np.ones(self.n_comb, bool) if comb_mask is None else np.asarray(comb_mask, bool)
        am = np.ones(self.n_arc, bool) if arc_mask is None else np.asarray(arc_mask, bool)
        ci, ai = np.flatnonzero(cm), np.flatnonzero(am)
        return RuleTables(
            self.comb_n[ci], self.comb_keys[ci], self.comb_refs[ci], self.comb_goal[ci], self.comb_template[ci],
            self.comb_graph[ci], self.comb_crossing[ci], [self.comb_text[i] for i in ci],
            self.arc_in[ai], self.arc_goal[ai], self.arc_parent[ai], self.arc_child[ai], self.arc_xcreate[ai],
            self.arc_graph[ai], self.arc_crossing[ai], [self.arc_text[i] for i in ai])

    def lines(self) -> list[str]:
        """Every rule in the reference's text format, sorted."""
        return sorted(self.arc_text + self.comb_text)

    def save(self, path, meta: dict | None = None) -> None:
        """Write ``path`` (.npz with the arrays) and ``path`` + ``.json`` (rule
        texts and metadata), each atomically."""
        path = os.fspath(path)
        arrays = {k: getattr(self, k) for k in ("comb_n", "comb_keys", "comb_refs", "comb_goal", "comb_template",
                                                "comb_graph", "comb_crossing", "arc_in", "arc_goal", "arc_parent",
                                                "arc_child", "arc_xcreate", "arc_graph", "arc_crossing")}
        atomic_savez_compressed(path, **arrays)
        doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "comb_text": self.comb_text,
               "arc_text": self.arc_text, "meta": meta or {}}
        doc["crc32"] = content_crc32(arrays, doc, TABLE_CRC_KEYS)
        atomic_json(path + ".json", doc, indent=None)

    @classmethod
    def load(cls, path) -> "RuleTables":
        """Load tables written by :meth:`save`.  Raises
        :class:`~plgraph.errors.ModelFileError` naming the file for a missing, damaged,
        mis-shaped or other-version ``path`` / ``path.json`` (files without
        ``format_version`` are version 1), or arrays whose item keys, references or
        lengths are out of range."""
        path = os.fspath(path)
        arrays = load_npz(path, TABLE_ARRAYS, "rule tables")
        jpath = path + ".json"
        doc = load_json(jpath, {"format": str, "comb_text": list, "arc_text": list}, "rule tables header")
        check_format(doc, jpath, FORMAT)
        check_version(doc, jpath, FORMAT_VERSION, "rule tables")
        check_crc32(doc, jpath, content_crc32(arrays, doc, TABLE_CRC_KEYS), os.path.basename(path))
        counts = (arrays["comb_n"].shape[0], arrays["arc_in"].shape[0])
        texts = (len(doc["comb_text"]), len(doc["arc_text"]))
        if counts != texts:
            raise ModelFileError(f"{counts[0]} combination and {counts[1]} arc rules, but {jpath} has {texts[0]} and "
                                 f"{texts[1]} rule texts: the files do not belong together", source=path)
        check_table_arrays(arrays, path, len(doc["comb_text"]), len(doc["arc_text"]))
        with model_errors(path, "rule tables"):
            return cls(arrays["comb_n"], arrays["comb_keys"], arrays["comb_refs"], arrays["comb_goal"],
                       arrays["comb_template"], arrays["comb_graph"], arrays["comb_crossing"], doc["comb_text"],
                       arrays["arc_in"], arrays["arc_goal"], arrays["arc_parent"], arrays["arc_child"],
                       arrays["arc_xcreate"], arrays["arc_graph"], arrays["arc_crossing"], doc["arc_text"])


#: the format name and version of saved tables (``path.json``; files without
#: ``format_version`` are version 1)
FORMAT = "plgraph-rules-1"
FORMAT_VERSION = 1
#: the fields of ``path.json`` its CRC covers (with the arrays); ``meta`` is free
TABLE_CRC_KEYS = ("format", "format_version", "comb_text", "arc_text")
#: what :meth:`RuleTables.load` requires of the ``.npz`` (name -> (ndim, dtype kinds))
TABLE_ARRAYS = {"comb_n": (1, "iu"), "comb_keys": (2, "iu"), "comb_refs": (2, "iu"), "comb_goal": (1, "iu"),
                "comb_template": (1, "iu"), "comb_graph": (1, "b"), "comb_crossing": (1, "b"), "arc_in": (1, "iu"),
                "arc_goal": (1, "iu"), "arc_parent": (1, "iu"), "arc_child": (1, "iu"), "arc_xcreate": (1, "b"),
                "arc_graph": (1, "b"), "arc_crossing": (1, "b")}


def check_table_arrays(arrays: dict, path, n_comb: int, n_arc: int) -> None:
    """Lengths and value ranges of loaded rule arrays (the chart kernels index with them
    unchecked); raises ModelFileError naming ``path``."""
    for name in TABLE_ARRAYS:
        n = n_comb if name.startswith("comb_") else n_arc
        check_array(arrays, path, name, shape=(n, 3) if name in ("comb_keys", "comb_refs") else (n,))
    check_index_range(arrays["comb_n"], path, "comb_n", 2, 4)
    keys, comb_n = arrays["comb_keys"], arrays["comb_n"].astype(np.int64)
    used = np.arange(3)[None, :] < comb_n[:, None]
    if keys.size and (bool((keys[used] < 0).any()) or bool((keys[used] >= N_KEYS).any())
                      or bool((keys[~used] != -1).any())):
        raise ModelFileError("array 'comb_keys' has item keys out of range", source=os.fspath(path))
    check_index_range(arrays["comb_refs"], path, "comb_refs", 0, len(REF_CODES))
    for name in ("comb_goal", "arc_in", "arc_goal"):
        check_index_range(arrays[name], path, name, 0, N_KEYS)
    for name in ("arc_parent", "arc_child"):
        check_index_range(arrays[name], path, name, 0, len(POINT))


@lru_cache(maxsize=None)
def full_tables() -> RuleTables:
    """Tables of all 49,292 rules (built once per process, in about a second)."""
    arcs, combos = generate_rules()
    sid = state_ids()
    m = len(combos)
    comb_n = np.array([len(r.spans) for r in combos], dtype=np.int8)
    keys = np.full((m, 3), -1, dtype=np.int32)
    refs = np.zeros((m, 3), dtype=np.int8)
    for k, r in enumerate(combos):
        for t, (span, st, ref) in enumerate(zip(r.spans, r.states, r.refs)):
            keys[k, t] = SPAN_INDEX[span] * N_STATES + sid[st]
            refs[k, t] = REF_CODES.index(ref)
    goal = np.array([SPAN_INDEX[r.goal_span] * N_STATES + sid[r.goal_state] for r in combos], dtype=np.int32)
    a_in, a_goal, a_par, a_ch, a_x = [], [], [], [], []
    for r in arcs:
        xcreate = r.span == "___I" and r.crossing
        a_in.append(SPAN_INDEX[r.span] * N_STATES + sid[r.state])
        if xcreate:
            a_goal.append(sid[r.goal_state])
        else:
            a_goal.append(SPAN_INDEX[r.goal_mult + r.span[1:] if r.goal_mult != "_" else r.span] * N_STATES
                          + sid[r.goal_state])
        a_par.append(POINT[r.parent])
        a_ch.append(POINT[r.child])
        a_x.append(xcreate)
    return RuleTables(
        comb_n, keys, refs, goal, np.array([r.template for r in combos], dtype=np.int16),
        np.array([r.graph for r in combos]), np.array([r.crossing for r in combos]), [r.text() for r in combos],
        np.array(a_in, dtype=np.int32), np.array(a_goal, dtype=np.int32), np.array(a_par, dtype=np.int8),
        np.array(a_ch, dtype=np.int8), np.array(a_x), np.array([r.graph for r in arcs]),
        np.array([r.crossing for r in arcs]), [r.text() for r in arcs])
