"""The overt-word check of a gold/test sentence pair, shared by the scorers."""
from __future__ import annotations

from typing import Collection, Sequence

from ..errors import InputError


def first_word_difference(gold_words: Sequence[str], test_words: Sequence[str],
                          equal: Collection = ()) -> tuple[int, str, str] | None:
    """``(i, gold word, test word)`` at the first position ``i`` (0-based) of the common
    length where the two words differ, or ``None`` when none does.  A pair ``(a, b)`` in
    ``equal`` counts as the same word (EVALB's ``EQ_WORD``).  Lengths are not compared."""
    for i, (a, b) in enumerate(zip(gold_words, test_words)):
        if a != b and (a, b) not in equal:
            return i, a, b
    return None


def check_same_words(gold_words: Sequence[str], test_words: Sequence[str], gold_name: str, test_name: str,
                     sentence) -> None:
    """Return when the pair holds the same words in the same order; else raise
    :class:`~plgraph.errors.InputError` with source ``gold_name`` and ``sentence`` (the
    caller's description of the sentence, e.g. its id and position), saying "the words
    differ between gold ... and test ...: " and either both word counts or the first
    differing word (1-based) as it is in each file."""
    gold_words, test_words = list(gold_words), list(test_words)
    if gold_words == test_words:
        return
    if len(gold_words) != len(test_words):
        what = f"gold has {len(gold_words)} words, test {len(test_words)}"
    else:
        i, a, b = first_word_difference(gold_words, test_words)
        what = f"word {i + 1} is {a!r} in gold, {b!r} in test"
    raise InputError(f"the words differ between gold {gold_name} and test {test_name}: {what}",
                     gold_name, sentence)
