"""Precision / recall / F as both reference scripts compute them."""
from __future__ import annotations


def prf(matched: int, gold: int, test: int) -> tuple[float, float, float]:
    """(P, R, F) in percent as ``ptb-trace-eval.py`` and ``shp-eval.py`` compute them: a
    ratio with a zero denominator is 0.0, F is 0.0 when P + R is 0."""
    p = 100.0 * matched / test if test > 0 else 0.0
    r = 100.0 * matched / gold if gold > 0 else 0.0
    f = 2 * p * r / (p + r) if (p + r) > 0 else 0.0
    return p, r, f
