"""The thesis's item notation as math strings, for LaTeX and for matplotlib's mathtext.

``X[ijx P Q R]``: type(s) X, the left end, right end and external point, then per point
its parent pattern (:class:`~plgraph.rules.program.ItemView`).  A ``·`` before the type:
the external point lies left of the span, after it: right.  Multiplicity -- the thesis's
wavy underline (more than one edge from the external point into the span) and dotted
underline (exactly one) -- is written ``\\widetilde{N}`` and ``\\underline{N}``, which both
LaTeX (amsmath) and mathtext typeset; a bar over letters negates them (``\\overline{JX}``:
neither J nor X is a direct parent).  With ``latex=True`` the letters an ItemView marks
boxed are wrapped in ``\\unseentype{..}`` (defined by :mod:`plgraph.rules.program_tex`);
mathtext cannot box, so there they are written plainly.

The strings carry no ``$``: callers put them in math mode.
"""
from __future__ import annotations

from .program import DeductionRule, ItemView


def _types(view: ItemView, latex: bool) -> str:
    parts = []
    for letter, boxed in view.types:
        parts.append(rf"\unseentype{{{letter}}}" if latex and boxed else letter)
    text = "".join(parts)
    if view.mult == "~":
        text = rf"\widetilde{{{text}}}"
    elif view.mult == "-":
        text = rf"\underline{{{text}}}"
    if view.side == "<":
        text = rf"\cdot {text}"
    elif view.side == ">":
        text = rf"{text}\cdot"
    return text


def pattern_math(symbols: tuple) -> str:
    """One point's symbols, consecutive negated ones under one bar (``\\overline{JX}``)."""
    out = []
    run: list[str] = []
    for text, negated in symbols:
        if negated:
            run.append(text)
            continue
        if run:
            out.append(rf"\overline{{{''.join(run)}}}")
            run = []
        out.append(text)
    if run:
        out.append(rf"\overline{{{''.join(run)}}}")
    return "".join(out)


def item_math(view: ItemView, latex: bool = False) -> str:
    """``view`` as a math string, e.g. ``\\widetilde{L}[ijx \\; .\\overline{X} \\; ...]``."""
    points = "".join(view.points) if all(len(p) == 1 for p in view.points) else r" \; ".join(view.points)
    pats = r" \; ".join(pattern_math(p) for p in view.patterns)
    return rf"{_types(view, latex)}[{points} \; {pats}]"


def premises_math(rule: DeductionRule, views: tuple, latex: bool = False) -> str:
    """The premises of ``rule`` (its items as ``views``), separated by quads; an arc
    rule's edge first, as the thesis writes it: ``A[parent \\; child]``."""
    parts = [item_math(v, latex) for v in views]
    if rule.edge is not None:
        parts.insert(0, rf"A[{rule.edge[0]} \; {rule.edge[1]}]")
    return r" \quad ".join(parts)
