"""Penn Treebank escapes shown as the text they stand for.

The treebank writes brackets as ``-LRB-``/``-RRB-`` (``-LCB-``, ``-RCB-``,
``-LSB-``, ``-RSB-`` for braces and square brackets), escapes ``/`` and ``*``
inside words as ``\\/`` and ``\\*`` (``5\\/8``), and writes double quotes as the
TeX pairs ``````/``''``.  Drawings show what a reader of the sentence sees:
``(``, ``5/8``, “ and ”.  Only the drawn text changes; the graph's words (and
every file plgraph writes) keep the treebank's tokens.
"""
from __future__ import annotations

BRACKETS = {"-LRB-": "(", "-RRB-": ")", "-LCB-": "{", "-RCB-": "}", "-LSB-": "[", "-RSB-": "]"}
QUOTES = {"``": "\u201c", "''": "\u201d"}


def display_token(token: str, quotes: bool = True) -> str:
    """The text a treebank token stands for (``quotes=False`` keeps ````/``''``,
    which TeX already typesets as quotes)."""
    if token in BRACKETS:
        return BRACKETS[token]
    if quotes and token in QUOTES:
        return QUOTES[token]
    return token.replace("\\/", "/").replace("\\*", "*")


def display_text(tokens, quotes: bool = True) -> str:
    """The sentence as text: display tokens joined by spaces."""
    return " ".join(display_token(t, quotes) for t in tokens)
