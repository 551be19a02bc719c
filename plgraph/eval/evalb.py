"""Bracket scoring exactly as the C program EVALB (Sekine & Collins; 2006 version).

The oracle is the C program ``evalb.c`` (Sekine & Collins' 2006 release, which the tests
compile and run beside this module);
this module follows its algorithm step for step, and :meth:`EvalbResult.report` prints
the C program's standard output character for character (per-sentence table, total
line, the ``-- All --`` and ``-- len<=N --`` summaries).

What the C program does, and so does this module
------------------------------------------------
* **Reading** (``read_line``): one tree per line.  ``(LABEL WORD)`` is a terminal; a
  terminal whose tag is in ``DELETE_LABEL`` (exact string) is dropped with its word; any
  other ``(LABEL`` opens a bracket over the words read until its ``)``.  The sentence
  length for the ``len<=CUTOFF_LEN`` summary counts the terminals whose tag is not in
  ``DELETE_LABEL_FOR_LENGTH`` (deleted punctuation included).  Tags are compared raw.
* **Quote fix** (``fix_quote``, 2006): terminals whose tag is a ``QUOTE_LABEL`` and
  whose word is ``'``, ``"`` or ``/`` are remembered; on a length mismatch a terminal that
  was deleted on one side only is reinserted there (brackets shifted) before the lengths
  are compared again.  ``COLLINS.prm`` has no ``QUOTE_LABEL``, so this is a no-op there.
* **Status**: an empty test tree (no word) is a *skip* (status 2); different lengths
  or words (``EQ_WORD`` aside) an *error* (status 1, message on stderr, the C ``Error``);
  both are printed with zeros and left out of the totals.  ``MAX_ERROR``: the C program
  exits, without totals, on the error call that finds the count already above it;
  here the result is then ``stopped`` and its report ends in the same place.
* **Brackets** (``massage_data``): zero-width brackets are dropped; labels are cut at
  the first ``-`` or ``=``; a cut label equal (or ``EQ_LABEL``-equal) to a
  ``DELETE_LABEL`` is dropped (so ``TOP`` is; an empty root label ``( (S ...))`` or
  ``ROOT`` is not).  Each gold bracket takes the first unmatched test bracket of the
  same span and (if ``LABELED``) equal or ``EQ_LABEL``-equal label.  Crossing: test
  brackets that cross at least one gold bracket.  Tag accuracy over the kept words.

Where plgraph differs from the C program (only where the C behaviour is undefined or
useless), and says so
-----------------------------------------------------------------------------------
* Input the C program cannot read -- unbalanced brackets (too many ``)`` is undefined
  behaviour in C), a word outside a pre-terminal or a third element in one (the C
  program loops on ``Reading sentence`` until ``MAX_ERROR``) -- is an
  :class:`~plgraph.errors.InputError` naming the file and line.
* No fixed limits: the C buffers (5000 bytes a line, 200 words or brackets a sentence,
  20 quote terms, 30-byte labels, 100-byte words) overflow or split lines silently; here
  lines of any size are read and scored whole (within the limits both agree).
* ``strict=True`` (the default, and the CLI): different sentence counts in gold and
  test, and empty lines in the *gold* file, are an InputError naming the files, counts
  or line; so is a file with no line at all (:func:`evalb_files`), where the C program
  prints the totals of no sentence (F-measure ``-nan``).  ``strict=False`` does what the
  C program does: scores the common prefix and records ``Number of lines unmatch ...``;
  an empty gold line is a sentence with no words (a skip if the test line is empty too,
  else a length error).  An empty *test* line is always a skip sentence (that is how
  EVALB counts a parser's failures).
* ``DEBUG`` output (``-d``/``-D``, ``dsp_info``) is not reproduced: the report is the
  ``DEBUG 0`` one.  The F-measure of an empty group is 0/0: the C program prints
  ``-nan`` (x86-64 glibc), the report prints the same, the dicts hold ``None``.
"""
from __future__ import annotations

import math
import os
import re
import sys
from dataclasses import asdict, dataclass, field
from typing import Iterable, Sequence

from ..errors import InputError
from ._words import first_word_difference

__all__ = ["EvalbParams", "EvalbResult", "read_prm", "read_evalb_file", "evalb", "evalb_files",
           "cli_main"]

#: C ``isspace`` in the C locale
_WS = " \t\n\r\x0b\x0c"
_W = r" \t\n\r\x0b\x0c"
#: one token of a tree line, with the whitespace before it:
#:   terminal ``(LABEL WORD)`` -> groups 1, 2, 3;  open ``(LABEL`` (followed by ``(`` or
#:   ``)``, after optional spaces for ``(``) -> groups 4, 5;  close -> 6;  anything else -> 7
_TOKEN = re.compile(
    rf"[{_W}]*(?:"
    rf"\(([^{_W}()]*)[{_W}]+([^{_W}()]*)(\))"
    rf"|(\()([^{_W}()]*)(?=[{_W}]*\(|\))"
    rf"|(\))"
    rf"|([^{_W}]))"
)
_CUT = re.compile(r"[-=]")
#: words that make a QUOTE_LABEL terminal a quote term (``is_quote_term``)
_QUOTE_WORDS = frozenset(("'", '"', "/"))
_NAN_TEXT = "-nan"     # printf("%6.2f", 0.0/0.0) with glibc on x86-64


# -- parameters ------------------------------------------------------------------------------
@dataclass(frozen=True)
class EvalbParams:
    """The settings of an EVALB parameter file (defaults: the C program's own, no file).

    ``max_error=None`` means no ``MAX_ERROR`` stop.  ``eq_labels``/``eq_words`` are
    pairs; ``quote_labels`` are the 2006 ``QUOTE_LABEL`` entries."""

    debug: int = 0
    max_error: int | None = 10
    cutoff_len: int = 40
    labeled: int = 1
    delete_labels: tuple = ()
    delete_labels_for_length: tuple = ()
    eq_labels: tuple = ()
    quote_labels: tuple = ()
    eq_words: tuple = ()

    @classmethod
    def collins(cls, max_error: int | None = None) -> "EvalbParams":
        """``COLLINS.prm`` (Collins 1997), except that the error limit is ``max_error``
        (default: off)."""
        return cls(debug=0, max_error=max_error, cutoff_len=40, labeled=1,
                   delete_labels=("TOP", "-NONE-", ",", ":", "``", "''", "."),
                   delete_labels_for_length=("-NONE-",),
                   eq_labels=(("ADVP", "PRT"),))

    def to_json(self) -> dict:
        doc = asdict(self)
        for key in ("delete_labels", "delete_labels_for_length", "quote_labels"):
            doc[key] = list(doc[key])
        for key in ("eq_labels", "eq_words"):
            doc[key] = [list(p) for p in doc[key]]
        return doc


_INT_KEYS = {"DEBUG": "debug", "MAX_ERROR": "max_error", "CUTOFF_LEN": "cutoff_len", "LABELED": "labeled"}
_LIST_KEYS = {"DELETE_LABEL": "delete_labels", "DELETE_LABEL_FOR_LENGTH": "delete_labels_for_length",
              "QUOTE_LABEL": "quote_labels"}
_PAIR_KEYS = {"EQ_LABEL": "eq_labels", "EQ_WORD": "eq_words"}
_INT_VALUE = re.compile(r"[+-]?\d+")


def read_prm(path) -> EvalbParams:
    """Read an EVALB ``.prm`` file as ``read_parameter_file`` does.

    Lines starting with ``#`` and lines shorter than 3 characters (after trailing
    whitespace is cut) are ignored; ``KEY VALUE`` sets a parameter; the value of a
    ``DELETE_LABEL``-like key is the whole rest of the line.  Where the C program only
    warns and goes on (an unknown key, a missing value, ``EQ_LABEL`` without two values)
    or silently reads ``atoi`` garbage, this is an InputError naming file and line."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        raise InputError(f"cannot read parameter file: {err.strerror or err}", source=path) from None
    values: dict = {"debug": 0, "max_error": 10, "cutoff_len": 40, "labeled": 1}
    lists: dict = {k: [] for k in (*_LIST_KEYS.values(), *_PAIR_KEYS.values())}
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, raw in enumerate(lines, 1):
        buff = raw.split("\0", 1)[0]
        # the C trim loop stops at index 1: the first character is never cut
        buff = buff[:1] + buff[1:].rstrip(_WS)
        if buff.startswith("#") or len(buff) < 3:
            continue
        key_end = 0
        while key_end < len(buff) and buff[key_end] not in _WS:
            key_end += 1
        key, value = buff[:key_end], buff[key_end:].lstrip(_WS)
        if not key:
            raise InputError(f"parameter line starts with whitespace: {raw.strip()!r}", source=path, line=number)
        if not value:
            raise InputError(f"parameter {key} has no value", source=path, line=number)
        if key in _INT_KEYS:
            if not _INT_VALUE.fullmatch(value):
                raise InputError(f"parameter {key} needs an integer, got {value!r}", source=path, line=number)
            values[_INT_KEYS[key]] = int(value)
        elif key in _LIST_KEYS:
            lists[_LIST_KEYS[key]].append(value)
        elif key in _PAIR_KEYS:
            parts = [x for x in re.split(f"[{_W}]+", value) if x]
            if len(parts) != 2:
                raise InputError(f"{key} requires two values, got {value!r}", source=path, line=number)
            lists[_PAIR_KEYS[key]].append(tuple(parts))
        else:
            raise InputError(f"unknown keyword {key!r} in parameter file", source=path, line=number)
    return EvalbParams(**values, **{k: tuple(v) for k, v in lists.items()})


# -- reading trees ----------------------------------------------------------------------------
class _LineError(Exception):
    pass


def read_evalb_file(path) -> list[str]:
    """The lines of an EVALB input file, as the C ``fgets`` loop sees them: split at
    ``\\n`` (a final newline does not start another line; a blank line is a line, i.e.
    a sentence), each cut at a NUL byte; bytes that are not UTF-8 are kept (surrogate
    escapes), so comparisons are byte-exact.  Trees are not checked here: that happens
    when they are scored (InputError naming file and line)."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", source=path) from None
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if "\0" in text:
        lines = [line.split("\0", 1)[0] for line in lines]
    return lines


class _Sent:
    """One tree as ``read_line`` leaves it."""

    __slots__ = ("words", "tags", "length", "quotes", "bstart", "bend", "blabel")

    def __init__(self, words, tags, length, quotes, bstart, bend, blabel):
        self.words = words
        self.tags = tags
        self.length = length
        self.quotes = quotes
        self.bstart = bstart
        self.bend = bend
        self.blabel = blabel


_AFTER_OPEN = re.compile(rf"\(([^{_W}()]*)[{_W}]+([^{_W}()]+)[{_W}]*(.?)")


def _what_is_wrong(text: str, at: int) -> str:
    """Why the C reader cannot go on at character ``at`` (0-based)."""
    if text[at] != "(":
        return f"{text[at]!r} at character {at + 1} is not inside a (TAG word) pre-terminal"
    m = _AFTER_OPEN.match(text, at)
    if m is None:
        return f"bracket at character {at + 1} is not closed"
    if m.group(3) == "(":
        return f"word {m.group(2)!r} after ({m.group(1)} at character {at + 1} is not inside a (TAG word) pre-terminal"
    if m.group(3):
        return f"bracket ({m.group(1)} at character {at + 1} has more than a label and a word"
    return f"bracket at character {at + 1} is not closed"


def _read_line(text: str, delete: frozenset, delete_len: frozenset, quote_labels: frozenset) -> _Sent:
    words: list = []
    tags: list = []
    length = 0
    quotes: list = []
    bstart: list = []
    bend: list = []
    blabel: list = []
    stack: list = []
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() != pos:        # only whitespace can be left between tokens
            break
        pos = m.end()
        tlabel, word, tclose, opening, olabel, close, other = m.groups()
        if tclose:
            if tlabel not in delete_len:
                length += 1
            if quote_labels and tlabel in quote_labels and word in _QUOTE_WORDS:
                quotes.append([len(words), len(bstart), tuple(stack), word, tlabel])
            if tlabel in delete:
                continue
            words.append(word)
            tags.append(tlabel)
        elif opening:
            stack.append(len(bstart))
            bstart.append(len(words))
            bend.append(-1)
            blabel.append(olabel)
        elif close:
            if not stack:
                raise _LineError(f"too many close brackets (at character {m.end()})")
            bend[stack.pop()] = len(words)
        else:
            at = m.end() - 1
            raise _LineError(_what_is_wrong(text, at))
    if text[pos:].strip(_WS):
        raise _LineError(f"unreadable text at character {pos + 1}")
    if stack:
        raise _LineError(f"unbalanced brackets: {len(stack)} not closed")
    return _Sent(words, tags, length, quotes, bstart, bend, blabel)


def _as_line(item) -> str:
    if isinstance(item, str):
        return item.split("\0", 1)[0]
    to_string = getattr(item, "to_string", None)
    if callable(to_string):                  # plgraph Tree
        return to_string()
    pformat = getattr(item, "pformat", None)
    if callable(pformat):                    # nltk Tree
        return pformat(margin=sys.maxsize)
    if isinstance(item, bytes):
        return item.decode("utf-8", "surrogateescape").split("\0", 1)[0]
    raise TypeError(f"expected a bracketed string, a plgraph Tree or an nltk Tree, got {type(item).__name__}")


# -- scoring ----------------------------------------------------------------------------------
class _Scorer:
    """The per-parameter constants of ``evalb.c`` and its per-sentence functions."""

    def __init__(self, params: EvalbParams):
        self.p = params
        self.delete = frozenset(params.delete_labels)
        self.delete_len = frozenset(params.delete_labels_for_length)
        self.quote_labels = frozenset(params.quote_labels)
        eq = set()
        for a, b in params.eq_labels:
            eq.add((a, b))
            eq.add((b, a))
        self.eq = eq
        eqw = set()
        for a, b in params.eq_words:
            eqw.add((a, b))
            eqw.add((b, a))
        self.eq_words = eqw
        # a cut bracket label is deleted when label_comp(label, DELETE_LABEL[j]) for some j
        self.deleted_cut = set(self.delete) | {a for (a, b) in eq if b in self.delete}
        self._cut_cache: dict = {}
        # label_comp is an equivalence when every EQ_LABEL component is a clique: then
        # labels can be mapped to a class and the greedy matching is a multiset count
        self.canon = self._canonical_classes(eq)
        self.labeled = params.labeled != 0

    @staticmethod
    def _canonical_classes(eq):
        if not eq:
            return {}
        adj: dict = {}
        for a, b in eq:
            adj.setdefault(a, set()).add(b)
        canon: dict = {}
        for start in adj:
            if start in canon:
                continue
            comp, todo = {start}, [start]
            while todo:
                x = todo.pop()
                for y in adj.get(x, ()):
                    if y not in comp:
                        comp.add(y)
                        todo.append(y)
            for x in comp:
                if any(y != x and (x, y) not in eq for y in comp):
                    return None          # not transitive: match greedily, bracket by bracket
            rep = min(comp)
            for x in comp:
                canon[x] = rep
        return canon

    def label_comp(self, a: str, b: str) -> bool:
        return a == b or (a, b) in self.eq

    def cut(self, label: str) -> str:
        cut = self._cut_cache.get(label)
        if cut is None:
            m = _CUT.search(label)
            cut = label[:m.start()] if m else label
            self._cut_cache[label] = cut
        return cut

    def read(self, text: str) -> _Sent:
        return _read_line(text, self.delete, self.delete_len, self.quote_labels)

    # ``fix_quote`` / ``reinsert_term``
    def fix_quote(self, s1: _Sent, s2: _Sent) -> None:
        q1, q2 = s1.quotes, s2.quotes
        delete = self.delete
        for i in range(len(q2)):
            ind = q2[i][0]
            for j in range(len(q1)):
                if q1[j][0] == ind and q1[j][4] != q2[i][4]:
                    if q1[j][4] in delete and q2[i][4] not in delete:
                        self._reinsert(q1[j], s1)
                        for k in range(j, len(q1)):
                            q1[k][0] += 1
                    elif q2[i][4] in delete and q1[j][4] not in delete:
                        self._reinsert(q2[i], s2)
                        for k in range(i, len(q2)):
                            q2[k][0] += 1

    @staticmethod
    def _reinsert(quot, s: _Sent) -> None:
        ind, bra, ends, word, label = quot
        s.words.insert(ind, word)
        s.tags.insert(ind, label)
        for k in range(bra, len(s.bstart)):
            s.bstart[k] += 1
            s.bend[k] += 1
        for k in ends:
            s.bend[k] += 1

    def kept(self, s: _Sent):
        """``massage_data``: the (start, end, cut label) of the brackets not deleted."""
        out = []
        cut = self.cut
        deleted = self.deleted_cut
        for a, b, lab in zip(s.bstart, s.bend, s.blabel):
            if a == b:
                continue
            lab = cut(lab)
            if lab in deleted:
                continue
            out.append((a, b, lab))
        return out

    def match(self, g, t) -> int:
        if not self.labeled:
            keys_g = [(a, b) for a, b, _ in g]
            keys_t = [(a, b) for a, b, _ in t]
        elif self.canon is not None:
            cn = self.canon
            keys_g = [(a, b, cn.get(lab, lab)) for a, b, lab in g]
            keys_t = [(a, b, cn.get(lab, lab)) for a, b, lab in t]
        else:
            return self._match_greedy(g, t)
        count: dict = {}
        for k in keys_t:
            count[k] = count.get(k, 0) + 1
        match = 0
        for k in keys_g:
            c = count.get(k)
            if c:
                count[k] = c - 1
                match += 1
        return match

    def _match_greedy(self, g, t) -> int:
        by_span: dict = {}
        for a, b, lab in t:
            by_span.setdefault((a, b), []).append([lab, False])
        match = 0
        for a, b, lab in g:
            for cand in by_span.get((a, b), ()):
                if not cand[1] and self.label_comp(lab, cand[0]):
                    cand[1] = True
                    match += 1
                    break
        return match

    @staticmethod
    def crossing(g, t) -> int:
        # gold brackets come from one tree, so no two of them cross: a test bracket whose
        # span is a gold span crosses none, only the others need the pairwise test
        gold_spans = {(a, b) for a, b, _ in g}
        crossing = 0
        for s2, e2, _ in t:
            if (s2, e2) in gold_spans:
                continue
            for s1, e1, _ in g:
                if (s1 < s2 < e1 < e2) or (s2 < s1 < e2 < e1):
                    crossing += 1
                    break
        return crossing

    def correct_tags(self, tags1, tags2) -> int:
        if self.eq:
            eq = self.eq
            return sum(1 for a, b in zip(tags1, tags2) if a == b or (a, b) in eq)
        return sum(1 for a, b in zip(tags1, tags2) if a == b)

    def words_mismatch(self, w1, w2):
        diff = first_word_difference(w1, w2, self.eq_words)
        return None if diff is None else diff[1:]


# -- result -----------------------------------------------------------------------------------
_COLUMNS = ["id", "length", "status", "recall", "precision", "matched", "gold", "test",
            "crossing", "words", "correct_tags", "tag_accuracy"]


def _group_summary(rows, cutoff=None) -> dict:
    n = err = skip = bn1 = bn2 = match = comp = word = cross = nocross = le2 = tags = 0
    for (_id, length, status, _r, _p, m, g, t, c, w, ct, _a) in rows:
        if cutoff is not None and length > cutoff:
            continue
        n += 1
        if status == 1:
            err += 1
        elif status == 2:
            skip += 1
        else:
            bn1 += g
            bn2 += t
            match += m
            if g == t and t == m:
                comp += 1
            word += w
            cross += c
            if c == 0:
                nocross += 1
            if c <= 2:
                le2 += 1
            tags += ct
    valid = n - err - skip
    r = 100.0 * match / bn1 if bn1 > 0 else 0.0
    p = 100.0 * match / bn2 if bn2 > 0 else 0.0
    f = 2 * p * r / (p + r) if (p + r) != 0 else None
    return {
        "sentences": n, "errors": err, "skipped": skip, "valid": valid,
        "recall": r, "precision": p, "f1": f,
        "complete_match": 100.0 * comp / valid if valid > 0 else 0.0,
        "average_crossing": 1.0 * cross / valid if valid > 0 else 0.0,
        "no_crossing": 100.0 * nocross / valid if valid > 0 else 0.0,
        "two_or_less_crossing": 100.0 * le2 / valid if valid > 0 else 0.0,
        "tagging_accuracy": 100.0 * tags / word if word > 0 else 0.0,
        "matched": match, "gold_brackets": bn1, "test_brackets": bn2, "crossing": cross,
        "complete_sentences": comp, "no_crossing_sentences": nocross,
        "two_or_less_crossing_sentences": le2, "words": word, "correct_tags": tags,
    }


def _f62(x) -> str:
    return f"{_NAN_TEXT:>6}" if x is None else "%6.2f" % x


_HEAD = ("  Sent.                        Matched  Bracket   Cross        Correct Tag\n"
         " ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy\n"
         "============================================================================\n")


@dataclass
class EvalbResult:
    """What one EVALB run gives: ``rows`` (one tuple per printed sentence, in the order
    of :data:`_COLUMNS`), ``summary`` (``"all"`` and ``"len40"``, empty when the run was
    ``stopped`` by ``MAX_ERROR``), ``messages`` (the C program's stderr lines, e.g.
    ``3 : Length unmatch (5|6)``), ``params``."""

    rows: list
    summary: dict
    messages: list
    params: EvalbParams
    stopped: bool = False
    _frame: object = field(default=None, repr=False)

    @property
    def sentences(self):
        """A pandas DataFrame, one row per sentence: id (the EVALB line number), length,
        status (0 ok, 1 error, 2 skip), recall, precision, matched, gold, test,
        crossing, words, correct_tags, tag_accuracy -- the columns of the report."""
        if self._frame is None:
            import pandas as pd

            self._frame = pd.DataFrame(self.rows, columns=_COLUMNS)
        return self._frame

    def report(self) -> str:
        """EVALB's standard output, exactly."""
        out = [_HEAD]
        fmt = "%4d  %3d    %d  %6.2f %6.2f   %3d    %3d  %3d    %3d   %4d  %4d   %6.2f\n"
        out.extend(fmt % row for row in self.rows)
        if self.stopped:
            return "".join(out)
        a = self.summary["all"]
        out.append("============================================================================\n")
        line = ""
        if a["gold_brackets"] > 0 and a["test_brackets"] > 0:
            line += "                %6.2f %6.2f %6d %5d %5d  %5d" % (
                a["recall"], a["precision"], a["matched"], a["gold_brackets"], a["test_brackets"], a["crossing"])
        line += "  %5d %5d   %6.2f" % (a["words"], a["correct_tags"], a["tagging_accuracy"])
        out.append(line + "\n")
        out.append("=== Summary ===\n")
        for title, s in (("-- All --", a), (f"-- len<={self.params.cutoff_len} --", self.summary["len40"])):
            out.append(f"\n{title}\n")
            out.append("Number of sentence        = %6d\n" % s["sentences"])
            out.append("Number of Error sentence  = %6d\n" % s["errors"])
            out.append("Number of Skip  sentence  = %6d\n" % s["skipped"])
            out.append("Number of Valid sentence  = %6d\n" % s["valid"])
            out.append("Bracketing Recall         = %6.2f\n" % s["recall"])
            out.append("Bracketing Precision      = %6.2f\n" % s["precision"])
            out.append("Bracketing FMeasure       = %s\n" % _f62(s["f1"]))
            out.append("Complete match            = %6.2f\n" % s["complete_match"])
            out.append("Average crossing          = %6.2f\n" % s["average_crossing"])
            out.append("No crossing               = %6.2f\n" % s["no_crossing"])
            out.append("2 or less crossing        = %6.2f\n" % s["two_or_less_crossing"])
            out.append("Tagging accuracy          = %6.2f\n" % s["tagging_accuracy"])
        return "".join(out)

    def to_json(self) -> dict:
        return {**{k: dict(v) for k, v in self.summary.items()},
                "stopped": self.stopped, "messages": list(self.messages),
                "params": self.params.to_json()}


class _Stop(Exception):
    pass


def _score(gold_lines: Sequence[str], test_lines: Sequence[str], params: EvalbParams, strict: bool,
           gold_name: str, test_name: str, files: bool) -> EvalbResult:
    sc = _Scorer(params)
    rows: list = []
    messages: list = []
    error_count = [0]
    max_error = params.max_error

    def where(name, i):
        return {"source": name, "line": i + 1} if files else {"source": name, "sentence": i}

    def error(line_no: int, message: str) -> None:
        # the C ``Error``: print, then exit when the count *before* this call exceeds MAX_ERROR
        messages.append(f"{line_no} : {message}")
        old = error_count[0]
        error_count[0] += 1
        if max_error is not None and old > max_error:
            raise _Stop

    def read(text, name, i):
        try:
            return sc.read(text)
        except _LineError as err:
            raise InputError(str(err), **where(name, i)) from None

    if strict:
        if len(gold_lines) != len(test_lines):
            raise InputError(f"{gold_name} has {len(gold_lines)} sentence(s) but {test_name} has "
                             f"{len(test_lines)}: the files must hold the same sentences, one per line")
        for i, text in enumerate(gold_lines):
            if not text.strip(_WS):
                raise InputError("empty line in the gold file (every gold line must hold a tree)",
                                 **where(gold_name, i))

    n_test = len(test_lines)
    stopped = False
    zero = (0.0, 0.0, 0, 0, 0, 0, 0, 0, 0.0)
    try:
        line_no = 0
        for i, gtext in enumerate(gold_lines):
            line_no = i + 1
            g = read(gtext, gold_name, i)
            if i >= n_test:
                error(line_no, "Number of lines unmatch (too many lines in gold file)")
                break
            t = read(test_lines[i], test_name, i)
            r_wn1 = g.length
            if not t.words:
                rows.append((line_no, r_wn1, 2) + zero)
                continue
            if len(g.words) != len(t.words):
                if g.quotes and t.quotes:
                    sc.fix_quote(g, t)
                if len(g.words) != len(t.words):
                    error(line_no, f"Length unmatch ({len(g.words)}|{len(t.words)})")
                    rows.append((line_no, r_wn1, 1) + zero)
                    continue
            bad = sc.words_mismatch(g.words, t.words)
            if bad is not None:
                error(line_no, f"Words unmatch ({bad[0]}|{bad[1]})")
                rows.append((line_no, r_wn1, 1) + zero)
                continue
            gk = sc.kept(g)
            tk = sc.kept(t)
            match = sc.match(gk, tk)
            crossing = sc.crossing(gk, tk)
            wn1 = len(g.words)
            correct = sc.correct_tags(g.tags, t.tags)
            bn1, bn2 = len(gk), len(tk)
            rows.append((line_no, r_wn1, 0,
                         0.0 if bn1 == 0 else 100.0 * match / bn1,
                         0.0 if bn2 == 0 else 100.0 * match / bn2,
                         match, bn1, bn2, crossing, wn1, correct,
                         0.0 if wn1 == 0 else 100.0 * correct / wn1))
        else:
            line_no = len(gold_lines) + 1
        if n_test > len(gold_lines):
            error(line_no, "Number of lines unmatch (too many lines in test file)")
    except _Stop:
        stopped = True
    summary = {} if stopped else {"all": _group_summary(rows),
                                  "len40": _group_summary(rows, params.cutoff_len)}
    return EvalbResult(rows, summary, messages, params, stopped)


def evalb(gold: Iterable, test: Iterable, params: EvalbParams | None = None, *, strict: bool = True,
          gold_name: str = "<gold>", test_name: str = "<test>") -> EvalbResult:
    """Score ``test`` trees against ``gold`` trees (same order) exactly as EVALB.

    Each item is a bracketed one-line string, a plgraph :class:`~plgraph.tree.Tree` or
    an :class:`nltk.Tree`.  ``params`` default: :meth:`EvalbParams.collins` (COLLINS.prm,
    no MAX_ERROR stop).  ``strict``: see the module docstring.  Unreadable trees are an
    InputError naming ``gold_name``/``test_name`` and the 0-based sentence index."""
    params = EvalbParams.collins() if params is None else params
    gold_lines = [_as_line(x) for x in gold]
    test_lines = [_as_line(x) for x in test]
    return _score(gold_lines, test_lines, params, strict, gold_name, test_name, files=False)


def evalb_files(gold_path, test_path, params: EvalbParams | None = None, *, strict: bool = True) -> EvalbResult:
    """:func:`evalb` on two EVALB input files (one tree per line, :func:`read_evalb_file`);
    errors name the file and its 1-based line.  With ``strict``, a file without lines is an
    InputError naming it (``file contains no trees``), the gold file first."""
    params = EvalbParams.collins() if params is None else params
    gold_lines = read_evalb_file(gold_path)
    test_lines = read_evalb_file(test_path)
    if strict:
        for path, lines in ((gold_path, gold_lines), (test_path, test_lines)):
            if not lines:
                raise InputError("file contains no trees", source=os.fspath(path))
    return _score(gold_lines, test_lines, params, strict, os.fspath(gold_path), os.fspath(test_path), files=True)


def _json_safe(doc):
    if isinstance(doc, float) and not math.isfinite(doc):
        return None
    if isinstance(doc, dict):
        return {k: _json_safe(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_json_safe(v) for v in doc]
    return doc


def cli_main(args) -> int:
    """``python -m plgraph eval trees GOLD TEST [--prm PATH] [--json PATH]``: print EVALB's
    report to stdout and its error messages to stderr (as the C program does); exit 0,
    or 2 on bad input (``plgraph eval: error: ...``) or a MAX_ERROR stop."""
    from ..errors import PlgraphError

    try:
        params = read_prm(args.prm) if getattr(args, "prm", None) else EvalbParams.collins()
        if getattr(args, "json", None):
            from ..files.atomic import check_writable

            check_writable(args.json)
        if params.debug:
            print("plgraph eval: note: DEBUG output (evalb -d/-D) is not reproduced; scoring as DEBUG 0",
                  file=sys.stderr)
        result = evalb_files(args.gold, args.test, params)
        sys.stdout.write(result.report())
        sys.stdout.flush()
        for message in result.messages:
            print(message, file=sys.stderr)
        if result.stopped:
            raise InputError(f"more than MAX_ERROR={params.max_error} errors: stopped as EVALB does "
                             f"(no totals)", source=args.test)
        if getattr(args, "json", None):
            from ..files.atomic import atomic_json

            atomic_json(args.json, _json_safe(result.to_json()))
    except PlgraphError as err:
        print(f"plgraph eval: error: {err}", file=sys.stderr)
        return 2
    return 0
