"""Attachment scores with the CoNLL 2018 conventions.

* Scored tokens: the syntactic words (integer ids); multiword-token lines and empty
  nodes are skipped.  Gold tokenisation is assumed: gold and prediction must have the
  same sentences with the same words (FORM), else :class:`~plgraph.errors.InputError`
  names the prediction's file, line and sentence.
* **UAS** = % of words with the correct HEAD; **LAS** = correct HEAD and DEPREL, where
  DEPREL is compared on its universal part (``nsubj:pass`` counts as ``nsubj``), as
  ``conll18_ud_eval.py`` does.  For CoNLL-X data without subtypes this is plain
  label equality (the eval07.pl default).  Punctuation is **included**.
* ``*_nopunct`` exclude words whose FORM consists only of Unicode punctuation
  characters (the ``eval07.pl -p`` / CoNLL-X rule), so the same rule serves CoNLL-U
  and CoNLL-X files.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from ..errors import InputError


def is_punct(form: str) -> bool:
    """FORM made only of Unicode punctuation (categories P*)."""
    return bool(form) and all(unicodedata.category(ch).startswith("P") for ch in form)


def universal(label: str) -> str:
    return label.split(":", 1)[0]


@dataclass
class Scores:
    """Attachment scores in percent, with the counts they come from."""

    uas: float
    las: float
    uas_nopunct: float
    las_nopunct: float
    sentences: int
    words: int
    words_nopunct: int
    label_acc: float = 0.0
    complete_uas: float = 0.0

    def as_dict(self) -> dict:
        return {"uas": round(self.uas, 2), "las": round(self.las, 2), "uas_nopunct": round(self.uas_nopunct, 2),
                "las_nopunct": round(self.las_nopunct, 2), "sentences": self.sentences}

    def __str__(self) -> str:
        return (f"UAS {self.uas:.2f}  LAS {self.las:.2f}  (no punct: UAS {self.uas_nopunct:.2f}  LAS "
                f"{self.las_nopunct:.2f})  {self.sentences} sentences, {self.words} words")


def _check_aligned(gold, pred, pred_source=None):
    if len(gold) != len(pred):
        src = pred_source or (pred[0].source if pred else "<prediction>")
        raise InputError(f"{len(pred)} sentences in the prediction but {len(gold)} in the gold file", src)
    for g, p in zip(gold, pred):
        if g.forms != p.forms:
            k = next((i for i, (a, b) in enumerate(zip(g.forms, p.forms)) if a != b), min(len(g), len(p)))
            what = (f"word {k + 1} is {p.forms[k]!r} but {g.forms[k]!r} in the gold file"
                    if k < min(len(g), len(p)) else f"{len(p)} words but {len(g)} in the gold file")
            raise InputError(f"tokenisation differs from the gold file: {what}", p.source, p.id, p.line)


def token_table(gold, pred):
    """One row per scored word: sentence index, position, sentence length, form, gold and
    predicted head and label, punct flag, head/label correctness (a pandas DataFrame)."""
    import pandas as pd

    _check_aligned(gold, pred)
    rows = {k: [] for k in ("sent", "pos", "length", "form", "upos", "gold_head", "pred_head", "gold_label",
                            "pred_label", "punct", "dist")}
    for si, (g, p) in enumerate(zip(gold, pred)):
        gh, ph = g.heads, p.heads
        n = len(g)
        for k in range(n):
            rows["sent"].append(si)
            rows["pos"].append(k + 1)
            rows["length"].append(n)
            rows["form"].append(g.forms[k])
            rows["upos"].append(g.upos[k])
            rows["gold_head"].append(int(gh[k]))
            rows["pred_head"].append(int(ph[k]))
            rows["gold_label"].append(universal(g.deprels[k]))
            rows["pred_label"].append(universal(p.deprels[k]))
            rows["punct"].append(is_punct(g.forms[k]))
            rows["dist"].append(abs(int(gh[k]) - (k + 1)) if gh[k] > 0 else 0)
    df = pd.DataFrame(rows)
    df["head_ok"] = df.gold_head == df.pred_head
    df["las_ok"] = df.head_ok & (df.gold_label == df.pred_label)
    return df


def evaluate(gold, pred, *, pred_source: str | None = None) -> Scores:
    """Scores of ``pred`` against ``gold`` (lists of :class:`~plgraph.dep.conll.DepSentence`)."""
    _check_aligned(gold, pred, pred_source)
    tot = uas = las = lab = 0
    totp = uasp = lasp = 0
    complete = 0
    for g, p in zip(gold, pred):
        gh, ph = g.heads, p.heads
        if (ph < 0).any():
            k = int(np.argmax(ph < 0))
            raise InputError(f"word {k + 1} has no HEAD in the prediction", p.source, p.id, p.line)
        gl = [universal(x) for x in g.deprels]
        pl = [universal(x) for x in p.deprels]
        all_ok = True
        for k, form in enumerate(g.forms):
            ok_h = gh[k] == ph[k]
            ok_lab = gl[k] == pl[k]
            ok_l = ok_h and ok_lab
            all_ok &= bool(ok_h)
            tot += 1
            uas += ok_h
            las += ok_l
            lab += ok_lab
            if not is_punct(form):
                totp += 1
                uasp += ok_h
                lasp += ok_l
        complete += all_ok

    def pct(a, b):
        return 100.0 * a / b if b else 0.0

    return Scores(pct(uas, tot), pct(las, tot), pct(uasp, totp), pct(lasp, totp), len(gold), tot, totp,
                  pct(lab, tot), pct(complete, len(gold)))
