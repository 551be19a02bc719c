"""Combination-rule applications per template, plgraph's derivations beside the thesis's
(the counts after the rules-subset algorithm of §"Algorithm rule pruning",
:data:`plgraph.paper.TEMPLATE_COUNTS`).

Numbering.  plgraph numbers the 47 combination templates T0-T46 in the order of the
reference's ``rule-generation/templates_used.tex`` (:data:`plgraph.rules.templates.COMBINATION_TEMPLATES`),
the numbering of the reference's usage statistics.  The thesis lists its counts by bare
number; they are in the same numbering: the thesis's 20 numbers are the templates
:data:`plgraph.paper.TEMPLATES_USED` lists as used, they sum to the thesis's 901,773 applications,
and the thesis's counts of T0 and T7 -- the two templates with exactly two concrete rules,
both among the five most frequent rules -- equal the sums of those rules' counts in the
reference's ``templates_used-pruned.tex`` (:data:`plgraph.paper.TOP_RULES`), with the same item
states as plgraph's two T0 and two T7 rules.  Where the thesis's drawn figure and the counts disagree (its Figure
rules-to-prune leaves T12, T30 and T32 unboxed though the thesis lists no application of
them), the thesis's counts are followed.

Shares, not counts, are compared: the corpora differ in size.
"""
from __future__ import annotations

from collections import Counter

from .. import paper
from .tables import RuleTables, full_tables
from .usage import RuleUsage

N_TEMPLATES = 47


def template_usage_frame(usage: RuleUsage, tables: RuleTables | None = None, thesis: dict | None = None):
    """One row per combination template T0-T46 (pandas DataFrame): ``template``,
    ``thesis_count`` and ``thesis_share_pct`` (of all the thesis's combination-rule
    applications; ``thesis`` defaults to :data:`plgraph.paper.TEMPLATE_COUNTS`),
    ``plgraph_count`` and ``plgraph_share_pct`` (of ``usage``'s), ``plgraph_rules_used``
    (distinct concrete rules applied) and ``rules_total`` (concrete rules of the template in
    ``tables``, default the full tables)."""
    import pandas as pd

    t = tables or full_tables()
    thesis = paper.TEMPLATE_COUNTS if thesis is None else thesis
    counts: Counter = Counter()
    used: Counter = Counter()
    for r, c in usage.combination.items():
        if c > 0:
            counts[int(t.comb_template[r])] += c
            used[int(t.comb_template[r])] += 1
    total = Counter(int(x) for x in t.comb_template)
    n_ours = max(sum(counts.values()), 1)
    n_thesis = max(sum(thesis.values()), 1)
    rows = [{"template": f"T{k}", "thesis_count": thesis.get(k, 0),
             "thesis_share_pct": 100.0 * thesis.get(k, 0) / n_thesis, "plgraph_count": counts[k],
             "plgraph_share_pct": 100.0 * counts[k] / n_ours, "plgraph_rules_used": used[k], "rules_total": total[k]}
            for k in range(N_TEMPLATES)]
    return pd.DataFrame(rows)
