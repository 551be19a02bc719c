"""Good-Turing style discount estimates for Kneser-Ney (Ney et al. 1994; Chen &
Goodman 1998) and PLRE's discounts (Parikh et al. 2014, Algorithm 1).

From the count-of-counts ``n_r`` of one level's adjusted counts, with
``Y = n1 / (n1 + 2 n2)``:

* KN (one discount):   ``D = Y``;
* modified KN (three): ``D1 = 1 - 2Y n2/n1``, ``D2 = 2 - 3Y n3/n2``,
  ``D3+ = 3 - 4Y n4/n3``; a count of 0 has discount 0.

These are KenLM's formulas too.  When the counts of counts do not support an
estimate (a zero ``n_r``, or a discount outside ``(0, r)``; typical of tiny or
de-duplicated corpora), KenLM stops unless told ``--discount_fallback``; here
the same fallback values (0.5 / 1.0 / 1.5, KN: 0.5) are used and the level is
flagged in the model header.

PLRE (Parikh et al. 2014, §4.1 and §4.4, Algorithm 1): an ensemble of ``eta`` powered terms
with powers ``1 = rho_0 > rho_1 > ... > rho_eta > rho_(eta+1) = 0`` discounts
term ``j`` by ``D_j = d* . c^rho_(j+1)`` at every observed n-gram of count
``c``, where ``d*`` is the ``(eta+1)``-th root of the (M)KN discount.  With
``rho_(j+1) = 0`` this is a constant, i.e. absolute discounting, and the
product of the leftover weights ``gamma_0 ... gamma_eta`` telescopes to KN's
``D N+(h) / c(h)`` with ``D = d*^(eta+1)``.  For modified KN we take the root
per count class (``d*(c) = D_min(c,3)^(1/(eta+1))``): the PLRE paper names only the
KN discount, which leaves the choice open.
"""
from __future__ import annotations

import numpy as np

FALLBACK_MKN = (0.5, 1.0, 1.5)
FALLBACK_KN = 0.5


def kn_discount(n: np.ndarray) -> tuple[float, bool]:
    """``(D, ok)`` from count-of-counts ``n`` (``n[r]`` = number seen r times)."""
    n1, n2 = float(n[1]), float(n[2])
    if n1 <= 0 or n2 <= 0:
        return FALLBACK_KN, False
    d = n1 / (n1 + 2 * n2)
    if not 0 < d < 1:
        return FALLBACK_KN, False
    return d, True


def mkn_discounts(n: np.ndarray) -> tuple[tuple[float, float, float], bool]:
    """``((D1, D2, D3+), ok)`` from count-of-counts ``n[0..4]``."""
    n1, n2, n3, n4 = (float(x) for x in n[1:5])
    if min(n1, n2, n3, n4) <= 0:
        return FALLBACK_MKN, False
    y = n1 / (n1 + 2 * n2)
    d = (1 - 2 * y * n2 / n1, 2 - 3 * y * n3 / n2, 3 - 4 * y * n4 / n3)
    if not all(0 < d[r] < r + 1 for r in range(3)):
        return FALLBACK_MKN, False
    return d, True


def discount_table(kind: str, n: np.ndarray) -> tuple[np.ndarray, bool]:
    """Discount by count class as an array ``D[0..3]`` (``D[0] = 0``; class 3 = 3 or more)."""
    if kind == "kn":
        d, ok = kn_discount(n)
        return np.array([0.0, d, d, d]), ok
    if kind == "mkn":
        d3, ok = mkn_discounts(n)
        return np.array([0.0, *d3]), ok
    raise ValueError(f"discount kind must be 'kn' or 'mkn', got {kind!r}")


def plre_term_discounts(counts: np.ndarray, d_star: np.ndarray, rho_next: float) -> np.ndarray:
    """Algorithm 1: the discount ``d* . c^rho_(j+1)`` of term j at each observed count ``c > 0``.

    ``d_star`` holds the discount parameter of each entry (one value for KN, the
    count-class value for MKN).  ``rho_next = 0`` gives ``d*`` itself: absolute
    discounting.
    """
    c = counts.astype(np.float64)
    if rho_next == 0:
        return np.where(counts > 0, d_star, 0.0)
    return np.where(counts > 0, d_star * c ** rho_next, 0.0)
