"""Helpers for the notebooks: the quick-mode switch, its banner, and tables shown as the documentation shows them.

Contract
--------
* :func:`quick_mode` is the switch every notebook reads: true when ``PLGRAPH_QUICK`` is
  set to anything but ``""``, ``"0"``, ``"false"`` or ``"no"`` (``make test`` sets it to
  1).  It is :func:`plgraph.config.quick_mode`, re-exported so a notebook needs one import.
* :func:`quick_banner` displays (``IPython.display``) a visible HTML banner
  "Quick mode (PLGRAPH_QUICK=1): <what>; numbers below are from a small slice, the prose
  quotes the full run" when quick mode is on, and displays nothing otherwise.  Outside
  IPython the banner is printed as plain text instead.
* A notebook that does the same work in both modes calls ``quick_banner(sliced=False)``:
  the banner then says "Quick mode (PLGRAPH_QUICK=1): this notebook runs in full either
  way; the numbers below are the full run's", so quick mode stays visible without a
  false claim about the numbers.
* :func:`table` shows a DataFrame the way the documentation's tables read: a missing value
  (NaN, None, pd.NA) as "–" (or blank in the columns named in ``blank``, e.g. notes),
  float columns that hold only whole numbers as integers (``2``, not ``2.0``), other
  floats with ``precision`` decimals.  It returns a pandas ``Styler`` (the cell's value).
"""
from __future__ import annotations

import html

from plgraph.config import quick_mode

__all__ = ["quick_mode", "quick_banner", "banner_text", "banner_html", "table"]

_STYLE = ("border:2px solid #d97706;background:#fef3c7;color:#78350f;padding:8px 12px;"
          "margin:4px 0;border-radius:4px;font-weight:600")


def banner_text(what: str = "", *, sliced: bool = True) -> str:
    """The banner's sentence (plain text); ``what`` says what quick mode cuts."""
    if not sliced:
        return ("Quick mode (PLGRAPH_QUICK=1): this notebook runs in full either way; "
                "the numbers below are the full run's")
    what = what.strip().rstrip(";.")
    head = "Quick mode (PLGRAPH_QUICK=1)" + (f": {what}" if what else "")
    return head + "; numbers below are from a small slice, the prose quotes the full run"


def banner_html(what: str = "", *, sliced: bool = True) -> str:
    """The banner as one HTML ``<div>`` (``what`` is escaped)."""
    text = html.escape(banner_text(what, sliced=sliced), quote=False)
    return f'<div class="plgraph-quick-banner" style="{_STYLE}">{text}</div>'


def quick_banner(what: str = "", *, sliced: bool = True) -> None:
    """Show the quick-mode banner if ``PLGRAPH_QUICK`` is on; do nothing otherwise.

    ``sliced=False`` is for notebooks whose quick run is their full run."""
    if not quick_mode():
        return
    text = banner_text(what, sliced=sliced)
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display
    except ImportError:  # plain Python without IPython
        print(text)
        return
    if get_ipython() is None:
        print(text)
    else:
        display(HTML(banner_html(what, sliced=sliced)))


def table(df, precision: int = 2, na_rep: str = "–", blank=(), index: bool = True):
    """``df`` as a Styler: missing values as ``na_rep`` ("" in the ``blank`` columns),
    whole-number float columns as integers, other floats with ``precision`` decimals;
    ``index=False`` hides the index."""
    import pandas as pd

    formats = {}
    for col in df.columns:
        values = df[col]
        if pd.api.types.is_float_dtype(values):
            present = values.dropna()
            whole = len(present) > 0 and bool((present == present.round()).all())
            formats[col] = "{:.0f}" if whole else f"{{:.{precision}f}}"
    styler = df.style.format(formats, na_rep=na_rep)
    blank = [c for c in blank if c in df.columns]
    if blank:
        styler = styler.format(lambda v: "" if pd.isna(v) else v, subset=blank)
    if not index:
        styler = styler.hide(axis="index")
    return styler
