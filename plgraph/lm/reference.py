"""Reference figures, as published or measured by others (never computed here).

``KENLM_BROWN``: KenLM 0.3.0 ``lmplz -o N`` + ``query`` on the Brown protocol
(measured outside plgraph; our own KenLM runs are in ``docs/results.md``).
``KENLM_BROWN_TRIGRAM_DISCOUNTS``: the discounts lmplz printed for the order-3
model (order: D1, D2, D3+).

``PAPER``: the numbers the PLRE paper's text states (its tables are not in the
copy of the text we hold): int-MKN with tuned discounts on Small-English /
Small-Russian, LBL and a 4-gram PLRE on Small-English without end markers.
The corpora (AP News, WMT-13 Russian) cannot be had here, so none of these is a reproduction target.

``MIKOLOV_PTB``: literature perplexities on the PTB split (Mikolov's thesis,
Table 4.1).
"""
from __future__ import annotations

KENLM_BROWN = {  # order: (valid, test, lmplz wall seconds of that run)
    2: (164.6104, 154.4633, 2.9),
    3: (156.9222, 147.7010, 2.0),
    4: (156.2431, 146.9905, 4.3),
    5: (155.9974, 146.7425, 3.1),
}
KENLM_BROWN_TRIGRAM_DISCOUNTS = {
    1: (0.221814, 0.72885, 1.38934),
    2: (0.732569, 1.13489, 1.50951),
    3: (0.860296, 1.23685, 1.46557),
}
KENLM_BROWN_NGRAMS = (14117, 271047, 575007)

PAPER = {
    "int-MKN tuned discounts, Small-English test": 98.94,
    "int-MKN tuned discounts, Small-Russian test": 259.0,
    "LBL context 5, Small-English (no end markers)": 117.0,
    "LBL context 10, Small-English (no end markers)": 107.8,
    "PLRE 4-gram, Small-English (no end markers)": 108.4,
}
PAPER_PLRE_SETTINGS = {
    "terms": "one low-rank bigram and one low-rank trigram (plus the ML n-grams)",
    "power": 0.5,
    "discounts": "square roots of the Good-Turing estimates",
    "rank grid Small-English": (1e-3, 5e-3),
    "rank grid Small-Russian": (5e-4, 1e-3),
}

MIKOLOV_PTB = {"GT 3-gram": 165.2, "KN 5-gram": 141.2, "KN 5-gram + cache": 125.7, "RNNLM": 124.7}
