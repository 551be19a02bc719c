"""Empty nodes and co-indexation: the Johnson (2002) metric as the reference's
``evaluation/ptb-trace-eval.py`` (jkkummerfeld/1ec-graph-parser) computes it.

The script is Python 2, so it cannot be run as an oracle; ``tests/test_eval_traces.py``
holds hand-checked fixtures worked out from reading it, one per quirk below.

Reading
-------
The script reads both files with its own ``treebanks.ptb_read_tree`` (several trees per
line or one tree over several lines) followed by ``ptb_cleaning`` and nothing else: the
top is *not* homogenised (``--homogenise_top_label`` is off by default).  plgraph does the
same: :func:`read_trace_file` reads with plgraph's reader with ``clean=False``, and
:func:`traces` applies the reference's ``ptb_cleaning`` (``|`` labels, ``{``/``}`` words,
the forced POS of ``--`` ``-`` ``;`` ``:`` brackets and ``Wa``) to every tree it is given,
without changing the caller's trees.  Trees already cleaned with ``clean=True`` (which also
homogenises the top to ``ROOT``) score the same: cleaning twice is a no-op and the root
label never enters an item unless a null or an antecedent hangs directly under the root.

Edits (``ptb-trace-eval.py`` defaults), applied to gold and test alike
------------------------------------------------------------------------
* function tags removed (``treebanks.remove_function_tags``): of the ``-X``/``=X``
  segments of a label only the all-digit ones stay, ``NP-SBJ-1`` -> ``NP-1``,
  ``NP-SBJ=2`` -> ``NP=2``; labels starting with ``-`` (``-NONE-``) are untouched;
* **reference quirk** -- nodes labelled ``#``, ``''``, ``,``, ``.``, `````` or ``:`` are
  removed *with their words*, and every constituent left spanning no node is removed too
  (``remove_nodes(..., preserve_subtrees=True)``), so positions count the remaining words
  only and a constituent that held a null and a comma now spans nothing;
* **reference quirk** -- ``PRT`` becomes ``ADVP`` (``--equivalent_labels ADVP:PRT``; only
  the exact label ``PRT``);
* spans are recomputed over the remaining overt words.

Items (``get_traces`` + ``mapping_to_items``)
---------------------------------------------
Nodes are visited in post-order.  ``position`` of a null is the left word index of its
lowest ancestor that spans a word; ``span(x)`` is the word span of ``x`` or, when ``x``
spans no word, of its lowest word-spanning ancestor.

* unindexed null (word without ``-N``, including ``0``):
  ``("no-link_" + word.split('-')[0] + "_" + L, position)`` where ``L`` is the parent's
  label before its first ``-`` when the parent spans no word, else ``""``;
* gapping, each node ``X=N``: ``("gap", span(X), X.label.split('=')[0], span(A),
  A.label.split('-')[0])``;
* co-indexed null ``*T*-N``: ``(word.split('-')[0] + "_" + A.label.split('-')[0] + "_" +
  parent.label.split('-')[0], position, span(A))``;

where **reference quirk** -- the antecedent ``A`` of index ``N`` is the *last* node in
post-order whose label carries ``-N`` (so of ``(NP-1 (NP-1 ...))`` the outer one), and a
null antecedent (``(WHNP-1 (-NONE- 0))``) gets the span of its lowest word-spanning
ancestor.  **reference quirk** -- labels are cut at their first ``-`` (``=`` for the gapped
node) only, so the antecedent ``NP-SBJ=1-3`` (``NP=1-3`` after the edits) of ``*-3`` gives
the type ``*_NP=1_NP`` (it occurs in the sample).  With ``null_only`` every null is an
unindexed item (``no-link_*T*_...``) and gapping is not scored.  The item type is its
first field.  A tree whose every word is removed by the edits has no items (the script
leaves such a tree unedited; it holds no null element).

Scoring
-------
* **reference quirk** -- a gold item is matched when it occurs *anywhere* in the test list
  of the sentence (``item in test_items``), not as a multiset: two identical gold items
  matched by one test item count twice, so ``matched`` can exceed ``test`` and precision
  can pass 100 (for a type and for "all").  Gold against gold is always exactly 100.
* per type and for "all": P = 100·matched/test, R = 100·matched/gold, F = 2PR/(P+R)
  (0.0 when a denominator or P+R is 0);
* **reference quirk** -- an empty test tree (a failed parse) adds to *no* total, not even
  the gold count: its row in :attr:`TraceResult.per_sentence` is ``[0, gold items, 0]``,
  with the gold items taken from the unedited gold tree (function tags and punctuation
  kept), as the script prints them;
* the report (:meth:`TraceResult.report`) prints the script's final table: one line
  ``TYPE matched gold test P R F`` per type and ``all``, sorted as the script sorts its
  tuples (by gold count, then type name), numbers printed as Python 2's ``print`` prints
  them (``66.6666666667``; an F of a type with no match is the integer ``0``); the
  ``all`` line appears only when there are both gold and test items.  (The script's
  ``empty*T*`` exclusion for test-only types is reproduced but no item type can have that
  name.)  Per sentence the script prints ``matched test gold``; plgraph's
  ``per_sentence`` rows are ``[matched, gold, test]``.

Where the script crashes, plgraph scores the sentence and says so
------------------------------------------------------------------
Each such sentence is listed in :attr:`TraceResult.problems` (and the DataFrame's
``problem`` column, and the CLI's stderr); the run never stops.

* a co-indexed null ``*-N`` whose index no node carries (the script raises KeyError, with
  ``null_only`` too, since it looks the antecedent up first): scored as a co-indexed item
  with an empty antecedent label and no span, ``("*T*__NP", position, None)`` -- it can
  only match the same dangling index in the other tree (with ``null_only`` it is the usual
  ``no-link`` item);
* a gapping node ``X=N`` with no ``-N`` node (KeyError): ``("gap", span(X), label, None,
  "")``;
* a null with no word-spanning ancestor (a tree without overt words; AttributeError):
  position and span of the root, ``(0, 0)``; a null leaf with no parent at all: parent
  label ``""``.

On the NLTK PTB sample the script would stop at wsj_0118.55 (``*T*-2``, no ``-2`` node);
wsj_0118.69 (``*-1``) and wsj_0137.50 (``ADJP-PRD=1``) are the two other such sentences.

Files (:func:`read_trace_file`)
-------------------------------
Trees may be spread over lines or several to a line, with any root (``( (S ...))``,
``ROOT``, ``TOP``).  An empty tree is written ``()``, or -- in a file holding one tree per
line -- as a blank line (each blank line before or between trees is one failed parse;
blank lines after the last tree are ignored; blank lines in a file with trees spread over
lines only separate trees).  The script's character reader instead takes a blank line
right after a tree's line as a failed parse in every layout, a lone blank first line or
every second line of a run of blank lines as nothing, and ``) \\n`` (a space before the
newline) as an extra failed parse, which shifts its pairing; plgraph does not reproduce
that.  Bad input is an :class:`~plgraph.errors.InputError` naming the file and sentence
(the script stops or pairs the wrong trees): unbalanced brackets, an empty gold tree,
different numbers of trees (the script stops silently at the shorter file).  :func:`traces`
does not compare words (the script never does; the DataFrame's ``same_words`` column says
whether the edited trees have the same words); the CLI does, as ``eval graphs`` does: a
pair whose overt words (null elements left out, ``{``/``}`` cleaned) differ -- files in
another order, say -- is an InputError naming the gold file, the sentence and the first
differing word or both word counts.  An empty test tree (a failed parse) is not compared.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

from ..errors import InputError, PlgraphError, PTBFormatError
from ..ptb.clean import WORD_TO_POS as _WORD_TO_POS, WORD_TO_WORD as _WORD_TO_WORD  # ptb_cleaning's tables
from ..tree import NONE_LABEL, Tree
from ._scores import prf
from ._words import check_same_words

#: ``--labels_to_remove`` default of the script: ``#&''&,&.&``&:``
LABELS_TO_REMOVE = frozenset(["#", "''", ",", ".", "``", ":"])
_DIGITS = frozenset("0123456789")


# ---------------------------------------------------------------------------------------
# label helpers (ports of the script's string logic; results cached per label)
# ---------------------------------------------------------------------------------------
def get_reference(text: str, sep: str = "-") -> str | None:
    """The script's ``get_reference``: the text after the *last* ``sep`` that starts a
    ``-``/``=`` segment (``NP-1`` -> ``"1"``, ``*T*-2`` -> ``"2"``, ``NP=3`` with ``"="`` ->
    ``"3"``; ``-NONE-`` -> ``""``), ``None`` when there is none or the text is ``0``."""
    if text == "0":
        return None
    end = len(text)
    for j in range(len(text) - 1, -1, -1):
        ch = text[j]
        if ch == "-" or ch == "=":
            if ch == sep:
                return text[j + 1:end]
            end = j
    return None


def remove_function_tags(label: str) -> str:
    """``treebanks.remove_function_tags`` on one label: keep the leading part and the
    ``-``/``=`` segments that hold only digits (``NP-SBJ-1`` -> ``NP-1``)."""
    if not label or label[0] == "-":
        return label
    keep: list[str] = []
    cur_end = len(label)
    all_digits = True
    for j in range(len(label) - 1, -1, -1):
        ch = label[j]
        if ch == "-" or ch == "=":
            if all_digits:
                keep.append(label[j:cur_end])
            all_digits = True
            cur_end = j
        elif ch not in _DIGITS:
            all_digits = False
    return label[:cur_end] + "".join(reversed(keep))


def _clean_label(label: str) -> str:
    """The ``|`` rule of the reference's ``ptb_cleaning``."""
    if "|" in label:
        return "ADVP" if "ADVP" in label else label.split("|")[0]
    return label


# (label after cleaning, edit) -> (final label, removed, ref "-N", ref "=N", before '-', before '=')
_LABEL_CACHE: dict = {}


def _label_info(label: str, edit: bool):
    key = (label, edit)
    info = _LABEL_CACHE.get(key)
    if info is None:
        removed = False
        final = label
        if edit:
            final = remove_function_tags(label)
            removed = final in LABELS_TO_REMOVE
            if final == "PRT":  # reference quirk: --equivalent_labels ADVP:PRT
                final = "ADVP"
        ref = get_reference(final) if "-" in final else None
        gap = get_reference(final, "=") if "=" in final else None
        info = (final, removed, ref, gap, final.split("-")[0], final.split("=")[0])
        _LABEL_CACHE[key] = info
    return info


_WORD_CACHE: dict = {}


def _null_info(word: str):
    """(index after ``-`` or None, word before its first ``-``) of a null word."""
    info = _WORD_CACHE.get(word)
    if info is None:
        info = (get_reference(word), word.split("-")[0])
        _WORD_CACHE[word] = info
    return info


# ---------------------------------------------------------------------------------------
# items of one tree
# ---------------------------------------------------------------------------------------
class ItemContext(NamedTuple):
    """Where an item of :func:`tree_items` sits, in the labels of the tree before the
    edits (function tags kept): ``kind`` the null word without its index (``*T*``,
    ``*``, ``0``, ``*U*`` ...) or ``gap``; ``ancestors`` the labels from the null
    element's parent (the gapped node itself for ``gap``) upwards, at most four;
    ``antecedent`` the antecedent's label and its two lowest ancestors' (empty: none);
    ``indexed`` whether the item is co-indexed."""

    kind: str
    ancestors: tuple
    antecedent: tuple
    indexed: bool


def tree_items(tree: Tree, null_only: bool = False, edit: bool = True, contexts: list | None = None):
    """``(items, problems, words)`` of one tree (see the module doc).

    ``edit=False`` skips the edits (the script does this for the gold tree of an empty
    test tree).  ``problems`` lists, as text, where the script would crash; ``words`` are
    the overt words left after the edits.  ``contexts``: a list that gets one
    :class:`ItemContext` per item, in the items' order (what
    :mod:`plgraph.eval.constructions` classifies items by).  The tree is not modified."""
    lab: list[str] = []     # final label per kept node (kept nodes numbered in post-order)
    raw: list[str] = []     # its label before the edits (function tags kept)
    info_of: list = []
    wrd: list = []          # null word info or None
    par: list[int] = []
    st: list[int] = []
    en: list[int] = []
    words: list[str] = []
    ante: dict = {}         # N -> last node carrying -N (post-order)
    gaps: dict = {}         # N -> nodes carrying =N
    coidx: dict = {}        # N -> nulls *-N
    plain: list[int] = []   # nulls without index
    pos = 0
    kids_stack: list[list[int]] = [[]]
    work = [(tree, False)]
    while work:
        node, done = work.pop()
        word = node.word
        if word is not None:
            # the reference's ptb_cleaning, then the edits
            word = _WORD_TO_WORD.get(word, word)
            clean = _WORD_TO_POS.get(word)
            info = _label_info(clean if clean is not None else _clean_label(node.label), edit)
            if info[1]:
                continue
            i = len(lab)
            final = info[0]
            lab.append(final)
            raw.append(clean if clean is not None else _clean_label(node.label))
            info_of.append(info)
            par.append(-1)
            st.append(pos)
            if final == NONE_LABEL:
                nwi = _null_info(word)
                wrd.append(nwi)
                if nwi[0] is not None:
                    coidx.setdefault(nwi[0], []).append(i)
                else:
                    plain.append(i)
            else:
                wrd.append(None)
                words.append(word)
                pos += 1
            en.append(pos)
            kids_stack[-1].append(i)
            if info[2] is not None:
                ante[info[2]] = i
            if info[3] is not None:
                gaps.setdefault(info[3], []).append(i)
            continue
        if not done:
            work.append((node, True))
            kids_stack.append([])
            children = node.children
            for c in range(len(children) - 1, -1, -1):
                work.append((children[c], False))
            continue
        kids = kids_stack.pop()
        if not kids:
            continue  # reference quirk: a constituent left empty is removed
        info = _label_info(_clean_label(node.label), edit)
        if info[1]:
            kids_stack[-1].extend(kids)  # a removed bracket keeps its children
            continue
        i = len(lab)
        lab.append(info[0])
        raw.append(_clean_label(node.label))
        info_of.append(info)
        wrd.append(None)
        par.append(-1)
        for k in kids:
            par[k] = i
        st.append(st[kids[0]])
        en.append(en[kids[-1]])
        kids_stack[-1].append(i)
        if info[2] is not None:
            ante[info[2]] = i
        if info[3] is not None:
            gaps.setdefault(info[3], []).append(i)

    problems: list[str] = []
    no_words_noted = [False]

    def span(i: int):
        while st[i] == en[i]:
            p = par[i]
            if p < 0:
                if not no_words_noted[0]:
                    no_words_noted[0] = True
                    problems.append("no constituent spans a word (the reference raises AttributeError); "
                                    "position and span of the root used")
                break
            i = p
        return (st[i], en[i])

    def parent_label_if_empty(i: int) -> str:
        p = par[i]
        if p < 0:
            problems.append("a null element has no parent (the reference raises AttributeError); "
                            "parent label '' used")
            return ""
        return info_of[p][4] if st[p] == en[p] else ""

    def chain(i: int, above: int) -> tuple:
        out = []
        while i >= 0 and len(out) <= above:
            out.append(raw[i])
            i = par[i]
        return tuple(out)

    def note(kind: str, i: int, a, indexed: bool) -> None:
        if contexts is not None:
            contexts.append(ItemContext(kind, chain(par[i], 3), () if a is None else chain(a, 2), indexed))

    items: list = []
    for i in plain:
        items.append(("no-link_" + wrd[i][1] + "_" + parent_label_if_empty(i), span(i)[0]))
        note(wrd[i][1], i, None, False)
    if not null_only:
        for num, nodes in gaps.items():
            a = ante.get(num)
            if a is None:
                problems.append(f"gapping index ={num} has no -{num} node (the reference raises KeyError); "
                                f"scored with no correlate")
            for i in nodes:
                if a is None:
                    items.append(("gap", span(i), info_of[i][5], None, ""))
                else:
                    items.append(("gap", span(i), info_of[i][5], span(a), info_of[a][4]))
                if contexts is not None:
                    contexts.append(ItemContext("gap", chain(i, 3), () if a is None else chain(a, 2), True))
    for num, nodes in coidx.items():
        a = ante.get(num)
        if a is None:
            extra = " even with --null_only" if null_only else ""
            how = "scored as an unindexed null" if null_only else "scored with an empty antecedent"
            problems.append(f"co-index -{num} of {wrd[nodes[0]][1]}-{num} has no antecedent "
                            f"(the reference raises KeyError{extra}); {how}")
        for i in nodes:
            if null_only:
                items.append(("no-link_" + wrd[i][1] + "_" + parent_label_if_empty(i), span(i)[0]))
                note(wrd[i][1], i, None, False)
                continue
            p = par[i]
            plabel = info_of[p][4] if p >= 0 else ""
            if p < 0:
                problems.append("a null element has no parent (the reference raises AttributeError); "
                                "parent label '' used")
            if a is None:
                items.append((wrd[i][1] + "__" + plabel, span(i)[0], None))
            else:
                items.append((wrd[i][1] + "_" + info_of[a][4] + "_" + plabel, span(i)[0], span(a)))
            note(wrd[i][1], i, a, True)
    return items, problems, words


# ---------------------------------------------------------------------------------------
# result
# ---------------------------------------------------------------------------------------


def py2_str(x) -> str:
    """``str(x)`` as Python 2.7 prints a number: floats with 12 significant digits."""
    if isinstance(x, float):
        text = "%.12g" % x
        if not any(c in text for c in ".enai"):
            text += ".0"
        return text
    return str(x)


def _item_text(item) -> str:
    return "(" + ", ".join(repr(x) for x in item) + ")"


@dataclass
class Problem:
    """A sentence scored where the reference script would crash."""

    position: int
    id: str
    side: str          # "gold" or "test"
    reason: str

    def __str__(self) -> str:
        return f"{self.id} ({self.side}, sentence {self.position + 1}): {self.reason}"

    def to_json(self) -> dict:
        return {"position": self.position, "id": self.id, "side": self.side, "reason": self.reason}


@dataclass
class TraceResult:
    """Scores of a gold/test pairing (percent).

    ``all``: ``{matched, gold, test, precision, recall, f1}``; ``by_type``: ``{TYPE: same}``;
    ``per_sentence``: ``[[matched, gold, test], ...]``; ``problems``: :class:`Problem` list;
    ``sentences``: DataFrame (``id``, ``position``, ``matched``, ``gold``, ``test``,
    ``empty_test``, ``same_words``, ``problem``, ``gold_items``, ``test_items``,
    ``matched_items``; items as text), built on first use."""

    all: dict
    by_type: dict
    per_sentence: list
    problems: list
    null_only: bool = False
    rows: list = field(default_factory=list, repr=False, compare=False)        # the script's report tuples
    _raw: list = field(default_factory=list, repr=False, compare=False)
    _frame: object = field(default=None, repr=False, compare=False)

    @property
    def n_sentences(self) -> int:
        return len(self.per_sentence)

    @property
    def n_empty_test(self) -> int:
        return sum(1 for r in self._raw if r[4])

    @property
    def sentences(self):
        if self._frame is None:
            import pandas as pd

            recs = []
            for k, (sid, m, g, t, empty, same, problem, gi, ti) in enumerate(self._raw):
                tset = set(ti)
                recs.append({
                    "id": sid, "position": k, "matched": m, "gold": g, "test": t, "empty_test": empty,
                    "same_words": same, "problem": problem,
                    "gold_items": "; ".join(map(_item_text, gi)),
                    "test_items": "; ".join(map(_item_text, ti)),
                    "matched_items": "; ".join(_item_text(x) for x in gi if x in tset),
                })
            cols = ["id", "position", "matched", "gold", "test", "empty_test", "same_words", "problem",
                    "gold_items", "test_items", "matched_items"]
            self._frame = pd.DataFrame(recs, columns=cols)
        return self._frame

    def report(self) -> str:
        """The final table of ``ptb-trace-eval.py``: ``TYPE matched gold test P R F`` per
        line, sorted as the script sorts, numbers as Python 2 prints them."""
        out = []
        for gold, sym, match, _, test, precision, recall in self.rows:
            f = 0
            if precision + recall > 0:
                f = 2 * precision * recall / (precision + recall)
            out.append(" ".join([sym, str(match), str(gold), str(test), py2_str(precision), py2_str(recall),
                                 py2_str(f)]))
        return "\n".join(out) + ("\n" if out else "")

    def to_json(self) -> dict:
        """``{"all", "by_type", "per_sentence", "sentences", "empty_test", "null_only",
        "problems"}``."""
        return {
            "all": dict(self.all),
            "by_type": {k: dict(v) for k, v in self.by_type.items()},
            "per_sentence": [list(r) for r in self.per_sentence],
            "sentences": self.n_sentences,
            "empty_test": self.n_empty_test,
            "null_only": self.null_only,
            "problems": [p.to_json() for p in self.problems],
        }

    def __repr__(self) -> str:
        a = self.all
        return (f"TraceResult(sentences={self.n_sentences}, matched={a['matched']}, gold={a['gold']}, "
                f"test={a['test']}, P={a['precision']:.2f}, R={a['recall']:.2f}, F={a['f1']:.2f}, "
                f"problems={len(self.problems)})")


# ---------------------------------------------------------------------------------------
# scoring
# ---------------------------------------------------------------------------------------
def _as_tree(x, side: str, k: int, name: str):
    """A Tree, ``None`` for an empty tree, from a Tree / SentenceTree / string / None."""
    if x is None:
        return None
    if isinstance(x, Tree):
        return x
    tree = getattr(x, "tree", None)
    if isinstance(tree, Tree):
        return tree
    if isinstance(x, str):
        s = x.strip()
        if not s or s.replace(" ", "") == "()":
            return None
        from ..ptb.reader import read_ptb_string

        try:
            got = read_ptb_string(s, name, clean=False)
        except PTBFormatError as err:
            raise InputError(err.reason, name, k) from None
        if len(got) != 1:
            raise InputError(f"{side} sentence {k} holds {len(got)} trees, not one", name, k)
        return got[0].tree
    raise TypeError(f"{side} sentence {k}: expected a Tree, a bracketed string or None, got {type(x).__name__}")


def _id_of(x, k: int) -> str:
    sid = getattr(x, "id", None)
    return sid if isinstance(sid, str) else str(k)


def traces(gold: Sequence, test: Sequence, null_only: bool = False, *, ids: Sequence[str] | None = None,
           gold_name: str = "gold", test_name: str = "test") -> TraceResult:
    """Score ``test`` trees against ``gold`` trees (same order); see the module doc.

    Each element is a :class:`~plgraph.tree.Tree`, a :class:`~plgraph.ptb.reader.SentenceTree`,
    or a bracketed string; on the test side ``None``, ``""`` or ``"()"`` is an empty tree (a
    failed parse).  ``ids`` name the sentences (default: the gold ``SentenceTree`` ids, else
    ``"0"``, ``"1"`` ...).  Raises :class:`InputError` for different sentence counts, an
    empty gold tree or a string that is not one tree."""
    gold, test = list(gold), list(test)
    if len(gold) != len(test):
        raise InputError(f"gold {gold_name} has {len(gold)} sentences, test {test_name} has {len(test)}",
                         test_name if len(test) < len(gold) else gold_name, min(len(gold), len(test)))
    if ids is not None and len(ids) != len(gold):
        raise ValueError(f"ids has {len(ids)} entries for {len(gold)} sentences")
    match_by: dict = {}
    gold_by: dict = {}
    test_by: dict = {}
    per: list = []
    raw: list = []
    problems: list = []
    for k in range(len(gold)):
        sid = ids[k] if ids is not None else _id_of(gold[k], k)
        g = _as_tree(gold[k], "gold", k, gold_name)
        if g is None:
            raise InputError("the gold tree is empty", gold_name, sid)
        t = _as_tree(test[k], "test", k, test_name)
        if t is None:
            # reference quirk: an empty test tree adds to no total; gold items of the unedited tree
            gi, gp, _ = tree_items(g, null_only, edit=False)
            for reason in gp:
                problems.append(Problem(k, sid, "gold", reason))
            per.append([0, len(gi), 0])
            raw.append((sid, 0, len(gi), 0, True, False, "; ".join(gp), gi, []))
            continue
        gi, gp, gw = tree_items(g, null_only)
        ti, tp, tw = tree_items(t, null_only)
        tset = set(ti)
        m = 0
        for item in gi:
            typ = item[0]
            gold_by[typ] = gold_by.get(typ, 0) + 1
            # reference quirk: `item in test_items`, not a multiset
            if item in tset:
                m += 1
                match_by[typ] = match_by.get(typ, 0) + 1
        for item in ti:
            typ = item[0]
            test_by[typ] = test_by.get(typ, 0) + 1
        for reason in gp:
            problems.append(Problem(k, sid, "gold", reason))
        for reason in tp:
            problems.append(Problem(k, sid, "test", reason))
        per.append([m, len(gi), len(ti)])
        text = "; ".join([f"gold: {r}" for r in gp] + [f"test: {r}" for r in tp])
        raw.append((sid, m, len(gi), len(ti), False, gw == tw, text, gi, ti))

    # the script's final table
    rows = []
    by_type = {}
    total_match = total_gold = total_test = 0
    for sym, match in match_by.items():
        gcount = gold_by.get(sym, 0)
        tcount = test_by.get(sym, 0)
        rows.append((gcount, sym, match, gcount, tcount, 100.0 * match / tcount, 100.0 * match / gcount))
        total_match += match
        total_gold += gcount
        total_test += tcount
    for sym, gcount in gold_by.items():
        if sym not in match_by:
            tcount = test_by.get(sym, 0)
            rows.append((gcount, sym, 0, gcount, tcount, 0.0, 0.0))
            total_gold += gcount
            total_test += tcount
    for sym, tcount in test_by.items():
        if sym not in match_by and sym not in gold_by and sym != "empty*T*":  # the script's exclusion
            rows.append((0, sym, 0, 0, tcount, 0.0, 0.0))
            total_test += tcount
    for gcount, sym, match, _, tcount, p, r in rows:
        f = 2 * p * r / (p + r) if (p + r) > 0 else 0.0
        by_type[sym] = {"matched": match, "gold": gcount, "test": tcount, "precision": p, "recall": r, "f1": f}
    p, r, f = prf(total_match, total_gold, total_test)
    all_ = {"matched": total_match, "gold": total_gold, "test": total_test, "precision": p, "recall": r, "f1": f}
    if total_gold > 0 and total_test > 0:
        rows.append((total_gold, "all", total_match, total_gold, total_test, p, r))
    rows.sort()
    by_type = {row[1]: by_type[row[1]] for row in rows if row[1] in by_type}  # in report order
    return TraceResult(all_, by_type, per, problems, null_only, rows, raw)


# ---------------------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------------------
_EMPTY_TREE = re.compile(r"\(\s*\)")


def _decode(path: str) -> str:
    with open(path, "rb") as handle:
        data = handle.read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise PTBFormatError(f"bytes that are not UTF-8: 0x{data[err.start]:02x}", path, None, line) from None


def _one_tree_per_line(lines: list[str]) -> bool:
    """True when no tree spans two lines (every line has as many ``(`` as ``)``)."""
    return all(line.count("(") == line.count(")") for line in lines)


def _scan_groups(text: str, out: list, slots: list) -> None:
    """Copy ``text`` to ``out`` with each depth-0 ``()`` group replaced by spaces; append
    one slot per depth-0 group (``None`` for an empty one, ``"tree"`` otherwise)."""
    depth = 0
    start = None
    for j, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                start = j
            depth += 1
        elif ch == ")":
            if depth == 0:
                out.append(ch)  # unbalanced: the reader reports it
                continue
            depth -= 1
            if depth == 0:
                group = text[start:j + 1]
                if _EMPTY_TREE.fullmatch(group):
                    slots.append(None)
                    out.append("".join("\n" if c == "\n" else " " for c in group))
                else:
                    slots.append("tree")
                    out.append(group)
                start = None
            continue
        if depth == 0:
            out.append(ch)
    if depth > 0:
        slots.append("tree")  # an unfinished tree: the reader reports it
        out.append(text[start:])


def read_trace_file(path, side: str = "test") -> list:
    """Read a PTB file for :func:`traces`: ``[(id, Tree or None), ...]`` in file order
    (``None`` = empty tree; ids ``<stem>.<k>``, ``k`` 0-based over all trees, empty ones
    included).  Layouts and empty trees: see the module doc.  Raises
    :class:`~plgraph.errors.InputError` naming the file, the sentence and the line for
    unbalanced or malformed trees and for a file without trees; with ``side="gold"`` an
    empty tree is an error too."""
    from ..ptb.reader import read_ptb_string

    path = os.fspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    text = _decode(path)
    lines = text.split("\n")
    slots = None
    if _one_tree_per_line(lines):
        if _EMPTY_TREE.search(text) or any(not line.strip() for line in lines):
            slots = []
            out: list = []
            pending = 0                     # blank lines not yet followed by a tree
            for line in lines:
                if not line.strip():
                    pending += 1
                    out.append(line + "\n")
                    continue
                slots.extend([None] * pending)
                pending = 0
                _scan_groups(line, out, slots)
                out.append("\n")
            text = "".join(out)             # blank lines after the last tree: ignored
    elif _EMPTY_TREE.search(text):
        slots = []
        out = []
        _scan_groups(text, out, slots)
        text = "".join(out)
    if not text.strip() or (slots is not None and "tree" not in slots):
        trees = []
    else:
        try:
            trees = read_ptb_string(text, path, stem=stem, clean=False)
        except PTBFormatError as err:
            sentence = err.sentence
            if slots is not None and isinstance(sentence, str) and sentence.startswith(stem + "."):
                try:
                    j = int(sentence[len(stem) + 1:])
                    sentence = f"{stem}.{[i for i, s in enumerate(slots) if s == 'tree'][j]}"
                except (ValueError, IndexError):
                    pass
            raise PTBFormatError(err.reason, path, sentence, err.line) from None
    if slots is None:
        slots = ["tree"] * len(trees)
    result: list = []
    it = iter(trees)
    for k, s in enumerate(slots):
        sid = f"{stem}.{k}"
        if s is None:
            if side == "gold":
                raise InputError("the gold tree is empty (a blank line or '()' where a tree should be)",
                                 path, sid)
            result.append((sid, None))
        else:
            result.append((sid, next(it).tree))
    if not result:
        raise PTBFormatError("file contains no trees", path)
    return result


# ---------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------
def _overt_words(tree: Tree) -> list[str]:
    """The words of ``tree`` without its null elements, ``{``/``}`` cleaned as the scorer
    cleans them."""
    return [_WORD_TO_WORD.get(w, w) for w in tree.words()]


def cli_main(args) -> int:
    """``python -m plgraph eval traces GOLD TEST [--null-only] [--json PATH]``: print the
    report (stdout), the sentences scored where the reference script crashes and the number
    of empty test trees (stderr), write the JSON atomically.  Exit 0 when scored, 2 on bad
    input (``plgraph eval: error: FILE: ...`` on stderr), which includes a pair of non-empty
    trees whose overt words differ (see the module doc)."""
    from ..files.atomic import atomic_json, check_writable

    import gc

    json_path = getattr(args, "json", None)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # hundreds of thousands of cyclic Tree nodes: collections would cost ~0.5 s
    try:
        if json_path:
            check_writable(json_path)
        gold = read_trace_file(args.gold, side="gold")
        test = read_trace_file(args.test, side="test")
        if len(gold) != len(test):
            k = min(len(gold), len(test))
            longer, name = (gold, args.gold) if len(gold) > len(test) else (test, args.test)
            raise InputError(f"gold {args.gold} has {len(gold)} trees, test {args.test} has {len(test)}; "
                             f"the first unpaired one is sentence {k + 1} of {name}", name, longer[k][0])
        for k, ((sid, g), (_, t)) in enumerate(zip(gold, test)):
            if t is not None:
                check_same_words(_overt_words(g), _overt_words(t), str(args.gold), str(args.test),
                                 f"{sid}, tree {k + 1}")
        result = traces([t for _, t in gold], [t for _, t in test], bool(getattr(args, "null_only", False)),
                        ids=[sid for sid, _ in gold], gold_name=str(args.gold), test_name=str(args.test))
        sys.stdout.write(result.report())
        sys.stdout.flush()
        if result.problems:
            n = len({p.position for p in result.problems})
            print(f"plgraph eval traces: {n} sentence(s) scored where the reference script crashes:",
                  file=sys.stderr)
            for p in result.problems:
                print(f"  {p}", file=sys.stderr)
        if result.n_empty_test:
            print(f"plgraph eval traces: {result.n_empty_test} empty test tree(s), counted in no total",
                  file=sys.stderr)
        if json_path:
            atomic_json(json_path, result.to_json())
    except (PlgraphError, OSError) as err:
        print(f"plgraph eval: error: {err}", file=sys.stderr)
        return 2
    finally:
        if gc_was_enabled:
            gc.enable()
    return 0
