"""Which rules the treebank's gold derivations use (thesis §"Algorithm rule pruning").

Counts every rule application in the unique derivation of each sentence's
representable graph, then reports distinct rules, applications per rule and per
template, the cumulative share of the most frequent rules, and — for a train
split — how many dev sentences need a rule never seen in train.  The pruned
grammar (rules seen at least ``k`` times) is exported as
:class:`~plgraph.rules.tables.RuleTables` for the parser.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .derive import derive
from .tables import RuleTables, full_tables


@dataclass
class RuleUsage:
    """Rule applications in a set of derivations."""

    n_sentences: int = 0
    n_derived: int = 0
    combination: Counter = field(default_factory=Counter)
    arc: Counter = field(default_factory=Counter)
    per_sentence_rules: dict = field(default_factory=dict)   # id -> set of combination rules
    per_sentence_arcs: dict = field(default_factory=dict)    # id -> set of arc rules
    failures: list = field(default_factory=list)             # (id, reason)

    @property
    def applications(self) -> int:
        return sum(self.combination.values())

    def top_shares(self, ks=(1, 2, 5, 10, 19, 50)) -> dict:
        counts = sorted(self.combination.values(), reverse=True)
        total = max(sum(counts), 1)
        return {k: 100.0 * sum(counts[:k]) / total for k in ks}

    def cumulative(self) -> np.ndarray:
        counts = np.array(sorted(self.combination.values(), reverse=True), dtype=np.float64)
        return np.cumsum(counts) / max(counts.sum(), 1.0)

    def per_template(self, tables: RuleTables | None = None) -> Counter:
        t = tables or full_tables()
        out: Counter = Counter()
        for r, c in self.combination.items():
            out[int(t.comb_template[r])] += c
        return out

    def table(self, tables: RuleTables | None = None, top: int | None = None):
        """Frequency table (pandas DataFrame) of the combination rules used."""
        import pandas as pd

        t = tables or full_tables()
        rows = [{"rule": r, "template": f"T{int(t.comb_template[r])}", "count": c, "text": t.comb_text[r]}
                for r, c in self.combination.most_common(top)]
        df = pd.DataFrame(rows, columns=["rule", "template", "count", "text"])
        total = max(self.applications, 1)
        df["share %"] = 100.0 * df["count"] / total
        df["cumulative %"] = df["share %"].cumsum()
        return df

    def pruned(self, min_count: int = 1, tables: RuleTables | None = None) -> RuleTables:
        """The rules seen at least ``min_count`` times (combination and arc rules)."""
        t = tables or full_tables()
        comb = np.zeros(t.n_comb, bool)
        arc = np.zeros(t.n_arc, bool)
        for r, c in self.combination.items():
            comb[r] = c >= min_count
        for r, c in self.arc.items():
            arc[r] = c >= min_count
        return t.subset(comb, arc)


def count_rules(sentences, tables: RuleTables | None = None, progress=None) -> RuleUsage:
    """Rule usage over an iterable of objects with ``id`` and ``graph``."""
    from tqdm.auto import tqdm

    usage = RuleUsage()
    disable = None if progress is None else not progress
    for s in tqdm(sentences, desc="derivations", disable=disable, leave=False):
        usage.n_sentences += 1
        d = derive(s.graph, tables)
        if d.count != 1:
            usage.failures.append((s.id, d.reason))
            continue
        usage.n_derived += 1
        comb = d.combination_rules()
        arcs = d.arc_rules()
        usage.combination.update(comb)
        usage.arc.update(arcs)
        usage.per_sentence_rules[s.id] = set(comb)
        usage.per_sentence_arcs[s.id] = set(arcs)
    return usage


def unseen_in(train: RuleUsage, dev: RuleUsage) -> dict:
    """Dev sentences whose derivation needs a rule never used in train."""
    seen_c = set(train.combination)
    seen_a = set(train.arc)
    need = {}
    for sid, rules in dev.per_sentence_rules.items():
        missing_c = sorted(rules - seen_c)
        missing_a = sorted(dev.per_sentence_arcs.get(sid, set()) - seen_a)
        if missing_c or missing_a:
            need[sid] = {"combination": missing_c, "arc": missing_a}
    return need
