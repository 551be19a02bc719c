"""The two rule-pruning figures of the thesis as LaTeX documents: the complete program with
the templates unseen in training boxed and coloured blue (Figure rules-to-prune), and the
templates seen, with the parent constraints their used rules observe (Figure
rules-pruned).

Each document compiles on its own (article class; amsmath and xcolor) and is built from a
:func:`~plgraph.rules.program.program_use` result.  Every template is one line of an
``align*`` block under its group's heading, written as an inference rule (premises over a
bar, the goal below) and labelled ``\\ruleref{T13}`` / ``\\ruleref{L A[x j]}``, with its
point order and usage counts beside it.  In the complete program a template none of whose
concrete rules was used is wrapped in ``\\unseenrule{..}`` (a blue box), and in a template
that was used, an item type no used rule has in that premise is wrapped in
``\\unseentype{..}`` -- the thesis boxes such letters too (the B of BLRN).  Nothing else is
boxed.
"""
from __future__ import annotations

from .notation import item_math, premises_math
from .program import RuleUse, observed_view, template_view, unseen_types
from .pruning_properties import PropertyCheck

PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage[margin=1.5cm,landscape]{geometry}
\usepackage{amsmath}
\usepackage{xcolor}
\allowdisplaybreaks
\setlength{\fboxsep}{2pt}
\newcommand{\unseenrule}[1]{\fcolorbox{blue}{blue!10}{$\displaystyle #1$}}
\newcommand{\unseentype}[1]{\fcolorbox{blue}{blue!10}{$#1$}}
\newcommand{\ruleref}[1]{\text{\small\texttt{#1}}}
\newcommand{\note}[1]{\text{\footnotesize #1}}
\pagestyle{empty}
"""

#: what the notation means, for the documents' legends
LEGEND = (r"Items: $X[ijx \; P \; Q \; R]$ has type $X$, ends $i$, $j$ and external point $x$; $P$, $Q$, $R$ say "
          r"how $i$, $j$, $x$ relate to the other two points: $F$ no relation, $.$ anything, $J$ direct parent "
          r"$j$, $j$ indirect ancestor $j$, a bar negates ($\overline{J}$: $j$ is not a direct parent; "
          r"$\overline{F}$: some link), one symbol stands for both relations. $\cdot X$ / $X\cdot$: the external "
          r"point lies left / right of the span; $\widetilde{X}$: more than one edge from the external point into "
          r"the span, $\underline{X}$: exactly one. $A[p \; c]$ adds the edge from child $c$ to parent $p$.")


def _escape(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("#", r"\#"), ("_", r"\_"),
                 ("~", r"\textasciitilde{}"), ("$", r"\$"), ("{", r"\{"), ("}", r"\}"), ("^", r"\^{}")):
        text = text.replace(a, b)
    return text


def _heading(use: RuleUse) -> str:
    rule = use.rule
    if rule.is_arc:
        return _escape(rule.group[0].upper() + rule.group[1:])
    return rf"Goal ${item_math(template_view(rule.goal), latex=True)}$"


def _groups(uses) -> list[tuple[str, list[RuleUse]]]:
    out: list[tuple[str, list[RuleUse]]] = []
    for use in uses:
        if not out or out[-1][1][0].rule.group != use.rule.group:
            out.append((_heading(use), []))
        out[-1][1].append(use)
    return out


def _line(label: str, premises: str, goal: str, condition: str, note: str, boxed: bool) -> str:
    frac = rf"\dfrac{{{premises}}}{{{goal}}}"
    if boxed:
        frac = rf"\unseenrule{{{frac}}}"
    cond = f"{condition}" if condition else r"\;"
    return rf"\ruleref{{{_escape(label)}}} && {frac} && {cond} && \note{{{_escape(note)}}} \\"


def _document(title: str, intro: str, groups: list[tuple[str, list[str]]], closing: list[str]) -> str:
    lines = [PREAMBLE, r"\begin{document}", rf"\section*{{{_escape(title)}}}", intro, "", LEGEND, ""]
    for heading, rows in groups:
        lines += [rf"\paragraph{{{heading}}}", r"\begin{align*}", *rows, r"\end{align*}"]
    lines += closing + [r"\end{document}", ""]
    return "\n".join(lines)


def full_program_tex(uses: tuple[RuleUse, ...], source: str, thesis_counts: dict | None = None,
                     properties: tuple[PropertyCheck, ...] = ()) -> str:
    """The complete program, every template of ``uses`` with its applications in
    ``source`` (a phrase naming the derivations, e.g. "3,068 sample train sentences");
    unused templates and unused item types boxed.  ``thesis_counts``: {template number:
    applications on the thesis's corpus}, noted beside each combination template;
    ``properties``: checks listed at the end with their verdicts."""
    groups = []
    for heading, members in _groups(uses):
        rows = []
        for use in members:
            rule = use.rule
            views = tuple(template_view(spec, boxed) for spec, boxed in zip(rule.premises, unseen_types(use)))
            note = f"{use.applications:,} uses" if use.seen else "unseen"
            note += f" ({use.used} of {use.total:,} rules)" if use.seen else f" ({use.total:,} rules)"
            if thesis_counts is not None and rule.template is not None:
                note += f"; thesis {thesis_counts.get(rule.template, 0):,}"
            rows.append(_line(rule.key, premises_math(rule, views, latex=True),
                              item_math(template_view(rule.goal), latex=True), rule.condition(), note,
                              not use.seen))
        groups.append((heading, rows))
    n_unseen = sum(not u.seen for u in uses)
    intro = _escape(f"Complete dynamic program; the {n_unseen} of {len(uses)} templates no derivation of the "
                    f"{source} uses are boxed in blue, and so are item types that no used rule of a template has.")
    closing = []
    if properties:
        closing = [r"\paragraph{The thesis's observations, on these derivations}", r"\begin{itemize}"]
        for p in properties:
            verdict = "holds" if p.holds else "does not hold"
            closing.append(rf"\item {_escape(p.claim)} \emph{{{verdict}}}: {_escape(p.evidence)}.")
        closing.append(r"\end{itemize}")
    return _document("Full dynamic program, rules unseen in training boxed", intro, groups, closing)


def pruned_program_tex(uses: tuple[RuleUse, ...], source: str) -> str:
    """The templates of ``uses`` that were used, each premise written with the tightest
    pattern its used rules admit (:func:`~plgraph.rules.program.observed_view`; the goal as
    in the template), noted with how many of the template's concrete rules were used and
    how often."""
    seen = tuple(u for u in uses if u.seen)
    groups = []
    for heading, members in _groups(seen):
        rows = []
        for use in members:
            rule = use.rule
            views = tuple(observed_view(spec, obs) for spec, obs in zip(rule.premises, use.premises))
            note = f"{use.applications:,} uses, {use.used} of {use.total:,} rules"
            rows.append(_line(rule.key, premises_math(rule, views, latex=True),
                              item_math(template_view(rule.goal), latex=True), rule.condition(), note, False))
        groups.append((heading, rows))
    intro = _escape(f"Pruned dynamic program: the {len(seen)} of {len(uses)} templates used deriving the {source}, "
                    "premises tightened to the parent relations, item types, sides and multiplicities their used "
                    "rules have.")
    return _document("Pruned dynamic program, with the parent constraints observed", intro, groups, [])
