"""Feature templates and per-sentence atom arrays for the dependency parser.

Atoms
-----
Every token gets a row of stable 64-bit hashes (computed once per sentence, see
:func:`encode`), one per atom:

====  ==============================================================================
W     word form, lower-cased
P     fine POS (XPOS; UPOS when XPOS is ``_``) -- Schiehlen & Spranger's *fp*
C     coarse POS (UPOS; CoNLL-X CPOSTAG)
L     lemma (the lower-cased form when the lemma is ``_``)
P5    5-character prefix of W (McDonald et al. 2005)
LC    lemma + coarse POS -- S&S's *lcp*
M     P with VerbForm and Case appended (S&S's reversible FEATS-into-POS transformation;
      keyless CoNLL-X FEATS are appended whole)
====  ==============================================================================

plus four agreement attributes (Number, Person, Gender, Case) from FEATS, from which
the pair atom ``agr`` (yes / no / don't know, S&S §2.2) is computed inside the
kernels.  Each sentence is stored as rows ``BOS, ROOT, w1..wn, EOS`` so that the
neighbour positions h-1, h+1, d-1, d+1 always exist.

Templates
---------
A template is a string of ``position+atom`` parts joined by ``.``, e.g.
``"hW.hP.dW.dP"``; positions are ``h`` (head), ``d`` (dependent), ``h-1 h+1 d-1 d+1``,
``b`` (each distinct value of a word strictly between head and dependent), ``s``
(the previous sibling, second order; the first dependent on a side gets a special
"none" sibling), and ``agr`` is the pair agreement atom.  With ``dd="both"`` every
template is used once plain and once conjoined with direction and the binned
distance |h - d| in {1, 2, 3, 4, 5-9, >= 10} (S&S §2.2 bins; McDonald et al. add
both variants too).  For sibling templates the distance is |s - d|.

:data:`ARC_TEMPLATES` are McDonald et al. (2005)'s first-order set (unigrams,
bigrams, in-between POS, surrounding-POS 4-grams and their trigram back-offs) plus
S&S's lemma/coarse-POS (*lcp*) and agreement pairs; they carry label copies.
:data:`SIBLING_TEMPLATES` are McDonald & Pereira (2006)'s sibling features plus
S&S's three (fp_i fp_j fp_s, lcp_i fp_j fp_s, w_i fp_j fp_s); they are unlabelled
and hashed (see ``plgraph.dep.model``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..learn.features import hash_string, hash_strings
from .conll import parse_feats

ATOMS = ("W", "P", "C", "L", "P5", "LC", "M")
AGR_KEYS = ("Number", "Person", "Gender", "Case")
N_COLS = len(ATOMS) + len(AGR_KEYS)
AGR = 99            # atom code of the pair agreement atom
POS_CODES = {"h": 0, "d": 1, "h-1": 2, "h+1": 3, "d-1": 4, "d+1": 5, "b": 6, "s": 7}
KIND_HEAD, KIND_DEP, KIND_PAIR, KIND_BETWEEN, KIND_SIB = range(5)
MAX_PARTS = 6
N_DIST = 6

_PART = re.compile(r"^(h|d|b|s)([+-]1)?(W|P5|P|C|LC|L|M)$")

ARC_TEMPLATES = (
    # head and dependent unigrams (McDonald et al. 2005) + lcp (S&S)
    "hW.hP", "hW", "hP", "hC", "hL", "hLC", "hP5", "hM",
    "dW.dP", "dW", "dP", "dC", "dL", "dLC", "dP5", "dM",
    # bigrams (McDonald et al. 2005)
    "hW.hP.dW.dP", "hP.dW.dP", "hW.dW.dP", "hW.hP.dP", "hW.hP.dW", "hW.dW", "hP.dP",
    # S&S pairs: w.lcp, lcp.w, lcp.lcp, fp.lcp, fp.fp.agr; coarse and morphological pairs
    "hW.dLC", "hLC.dW", "hLC.dLC", "hP.dLC", "hLC.dP", "hP.dP.agr", "hC.dC", "hM.dM", "hP5.dP5",
    # in-between POS
    "hP.bP.dP", "hC.bC.dC",
    # surrounding POS 4-grams and trigram back-offs (fine POS), 4-grams with coarse POS
    "hP.h+1P.d-1P.dP", "h-1P.hP.d-1P.dP", "hP.h+1P.dP.d+1P", "h-1P.hP.dP.d+1P",
    "hP.h+1P.dP", "hP.d-1P.dP", "h-1P.hP.dP", "hP.dP.d+1P",
    "hC.h+1C.d-1C.dC", "h-1C.hC.d-1C.dC", "hC.h+1C.dC.d+1C", "h-1C.hC.dC.d+1C",
)

SIBLING_TEMPLATES = (
    "hP.sP.dP", "sP.dP", "sW.dW", "sW.dP", "sP.dW", "hC.sC.dC", "hLC.sP.dP", "hW.sP.dP",
)


@dataclass(frozen=True)
class TemplateSet:
    """Compiled templates (arrays for the kernels)."""

    specs: tuple          # (template string, dd flag) per compiled template
    seed: np.ndarray      # uint64 (T,) template hash
    length: np.ndarray    # int64 (T,)
    pos: np.ndarray       # int64 (T, MAX_PARTS)
    atom: np.ndarray      # int64 (T, MAX_PARTS)
    dd: np.ndarray        # int64 (T,)
    kind: np.ndarray      # int64 (T,)

    def of_kind(self, *kinds) -> np.ndarray:
        return np.flatnonzero(np.isin(self.kind, kinds)).astype(np.int64)


def parse_template(spec: str):
    """``"hW.h+1P"`` -> list of (position code, atom code); raises ValueError if malformed."""
    parts = []
    for part in spec.split("."):
        if part == "agr":
            parts.append((-1, AGR))
            continue
        m = _PART.match(part)
        if not m:
            raise ValueError(f"bad template part {part!r} in {spec!r} (expected e.g. hW, d+1P, bC, sLC or agr)")
        parts.append((POS_CODES[m.group(1) + (m.group(2) or "")], ATOMS.index(m.group(3))))
    if not 1 <= len(parts) <= MAX_PARTS:
        raise ValueError(f"template {spec!r} must have 1..{MAX_PARTS} parts")
    return parts


def template_kind(parts) -> int:
    positions = {p for p, _ in parts if p >= 0}
    has_agr = any(a == AGR for _, a in parts)
    if 7 in positions:
        return KIND_SIB
    if 6 in positions:
        return KIND_BETWEEN
    head_side = positions & {0, 2, 3}
    dep_side = positions & {1, 4, 5}
    if has_agr or (head_side and dep_side):
        return KIND_PAIR
    return KIND_HEAD if head_side else KIND_DEP


def compile_templates(specs, dd: str = "both") -> TemplateSet:
    """Compile template strings; ``dd`` in {"both", "only", "none"} chooses the plain
    and/or the direction+distance-conjoined variant of each."""
    if dd not in ("both", "only", "none"):
        raise ValueError("dd must be 'both', 'only' or 'none'")
    flags = {"both": (0, 1), "only": (1,), "none": (0,)}[dd]
    compiled = []
    for spec in specs:
        parts = parse_template(spec)
        kind = template_kind(parts)
        if kind == KIND_BETWEEN and sum(1 for p, _ in parts if p == 6) != 1:
            raise ValueError(f"template {spec!r}: at most one 'b' part")
        for f in flags:
            compiled.append((spec, f, parts, kind))
    T = len(compiled)
    seed = np.empty(T, np.uint64)
    length = np.empty(T, np.int64)
    pos = np.zeros((T, MAX_PARTS), np.int64)
    atom = np.zeros((T, MAX_PARTS), np.int64)
    ddv = np.empty(T, np.int64)
    kind = np.empty(T, np.int64)
    for i, (spec, f, parts, k) in enumerate(compiled):
        seed[i] = hash_string(f"{spec}|{f}")
        length[i] = len(parts)
        for j, (p, a) in enumerate(parts):
            pos[i, j] = p
            atom[i, j] = a
        ddv[i] = f
        kind[i] = k
    return TemplateSet(tuple((s, f) for s, f, _, _ in compiled), seed, length, pos, atom, ddv, kind)


# ---------------------------------------------------------------------------------------------
# atoms

_SPECIAL = {name: np.array([hash_string(f"<{name}>|{c}") for c in range(N_COLS)], np.uint64)
            for name in ("BOS", "ROOT", "EOS")}
#: atom values of the "no previous sibling" pseudo-token
NONE_SIB = np.array([hash_string(f"<NOSIB>|{c}") for c in range(N_COLS)], np.uint64)
_MORPH_KEYS = ("VerbForm", "Case")
_KEYLESS_CASES = {"ABS", "ERG", "DAT", "GEN", "INE", "ALA", "ABL", "INS", "SOZ", "DES", "PAR", "MOT", "ABU",
                  "ABZ", "GEL", "BNK", "PRO", "EM"}


def _token_strings(s):
    forms = s.forms
    W = [f.lower() for f in forms]
    up = s.upos
    xp = s.xpos
    P = [x if x != "_" else u for x, u in zip(xp, up)]
    C = [u if u != "_" else x for x, u in zip(xp, up)]
    L = [lem if lem not in ("_", "") else w for lem, w in zip(s.lemmas, W)]
    P5 = [w[:5] for w in W]
    LC = [lem + "\x1f" + c for lem, c in zip(L, C)]
    M = []
    agr = [[], [], [], []]
    for p, feats in zip(P, s.feats):
        fd = parse_feats(feats)
        keyless = fd and all(v == "" for v in fd.values())
        if keyless:
            M.append(p + "\x1f" + feats)
            vals = {"Number": next((k for k in fd if k.startswith("NUM")), ""),
                    "Case": next((k for k in fd if k in _KEYLESS_CASES), "")}
        else:
            M.append(p + "\x1f" + "|".join(f"{k}={fd[k]}" for k in _MORPH_KEYS if k in fd))
            vals = fd
        for j, key in enumerate(AGR_KEYS):
            agr[j].append(vals.get(key, ""))
    return [W, P, C, L, P5, LC, M] + agr


@dataclass
class Encoded:
    """A corpus as flat arrays (what the kernels read).

    Attributes
    ----------
    atoms : uint64 (rows, N_COLS)
        Sentence i occupies rows ``row0[i] .. row0[i] + n_i + 2`` (BOS, ROOT, words, EOS).
        Agreement columns hold 0 where the attribute is absent.
    row0, word0, n : int64 (S,)
        First row, offset of the first word in the word arrays, number of words.
    heads, labels : int64 (total words,)
        Gold heads (0..n; -1 unknown) and label ids (-1 unknown / not in the label set).
    """

    atoms: np.ndarray
    row0: np.ndarray
    word0: np.ndarray
    n: np.ndarray
    heads: np.ndarray
    labels: np.ndarray

    def __len__(self) -> int:
        return int(self.n.shape[0])


@dataclass
class TokenColumns:
    """One sentence's token columns, all :func:`encode` reads -- an array-based
    stand-in for a :class:`~plgraph.dep.conll.DepSentence` (same attribute names), so
    that callers holding arrays (the arc pass, :func:`plgraph.encoding.dep_tokens`)
    need not build CoNLL rows.  ``heads``: int64 (n,), 0 = ROOT, -1 unknown;
    ``lemmas`` / ``feats`` ``"_"`` when absent, as in CoNLL."""

    forms: list
    upos: list
    xpos: list
    lemmas: list
    feats: list
    heads: np.ndarray
    deprels: list

    def __len__(self) -> int:
        return len(self.forms)


def encode(sentences, label_index: dict | None = None, heads_list=None, labels_list=None) -> Encoded:
    """Atoms (and gold heads/labels) of ``sentences``
    (:class:`~plgraph.dep.conll.DepSentence` or :class:`TokenColumns` objects).

    ``heads_list``/``labels_list`` override the sentences' own HEAD/DEPREL (used for
    projectivised training trees); labels not in ``label_index`` become -1.
    """
    S = len(sentences)
    n = np.array([len(s) for s in sentences], np.int64)
    rows_per = n + 3
    row0 = np.zeros(S, np.int64)
    if S:
        row0[1:] = np.cumsum(rows_per)[:-1]
    word0 = np.zeros(S, np.int64)
    if S:
        word0[1:] = np.cumsum(n)[:-1]
    R = int(rows_per.sum())
    atoms = np.zeros((R, N_COLS), np.uint64)
    cols = [[] for _ in range(N_COLS)]
    for s in sentences:
        for c, vals in enumerate(_token_strings(s)):
            cols[c].extend(vals)
    word_rows = (np.repeat(row0 + 2, n) + (np.arange(int(n.sum())) - np.repeat(word0, n))).astype(np.int64)
    for c in range(N_COLS):
        h = hash_strings(cols[c])
        if c >= len(ATOMS):
            empty = np.array([v == "" for v in cols[c]], bool)
            h[empty] = 0
        atoms[word_rows, c] = h
    for name, off in (("BOS", 0), ("ROOT", 1)):
        atoms[row0 + off] = _SPECIAL[name]
    atoms[row0 + n + 2] = _SPECIAL["EOS"]
    atoms[row0, len(ATOMS):] = 0
    atoms[row0 + 1, len(ATOMS):] = 0
    atoms[row0 + n + 2, len(ATOMS):] = 0
    heads = np.full(int(n.sum()), -1, np.int64)
    labels = np.full(int(n.sum()), -1, np.int64)
    for i, s in enumerate(sentences):
        hs = s.heads if heads_list is None else np.asarray(heads_list[i])[1:]
        heads[word0[i]:word0[i] + n[i]] = hs
        if label_index is not None:
            ls = s.deprels if labels_list is None else labels_list[i][1:]
            labels[word0[i]:word0[i] + n[i]] = [label_index.get(x, -1) for x in ls]
    return Encoded(atoms, row0, word0, n, heads, labels)
