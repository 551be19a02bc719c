"""The rule-pruning figures (``python -m plgraph figures --only program``/``template_usage``):
the complete program with unseen templates boxed, the pruned program, and the per-template
usage beside the thesis's.

Expected values come from elsewhere than the code under test: the seed's and the design
notes' numbers (plgraph.paper), the rule texts of the tables (parsed here, field by
field), RuleUsage's own per-rule table, and hand-derived notation."""
from __future__ import annotations

import re
from collections import Counter

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

from plgraph import figures, paper  # noqa: E402
from plgraph.corpora import Corpus  # noqa: E402
from plgraph.rules import count_rules, full_tables  # noqa: E402
from plgraph.rules.notation import item_math, pattern_math  # noqa: E402
from plgraph.rules.program import Observed, observed_view, program_rules, program_use, template_view  # noqa: E402
from plgraph.rules.program_tex import full_program_tex, pruned_program_tex  # noqa: E402
from plgraph.rules.pruning_properties import check_properties  # noqa: E402
from plgraph.rules.template_usage import template_usage_frame  # noqa: E402
from plgraph.rules.templates import COMBINATION_TEMPLATES, item  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def sample(sample_dir):
    """Rule usage of the sample's train split (about 5 s), shared by the module; skipped,
    saying how to get it, without the PTB sample (``sample_dir``)."""
    tables = full_tables()
    usage = count_rules(Corpus("train").sentences(), tables, progress=False)
    return tables, usage, program_use(usage, tables)


def _arc_fields(text: str):
    """(premise span code, parent, child) of an arc rule's text line."""
    fields = [f.strip() for f in text.split("|")]
    span = fields[1].split()[1]
    return span, fields[3].split(": ")[1], fields[4].split(": ")[1]


def _arc_key(text: str) -> str:
    span, parent, child = _arc_fields(text)
    typ = "X" if span == "___I" and "x" in (parent, child) else span[-1]
    return f"{typ} A[{parent} {child}]"


@pytest.fixture(scope="module")
def independent(sample):
    """Applications per template key, from RuleUsage's per-rule table (combination) and the
    arc rules' texts (arcs) -- not from plgraph.rules.program."""
    tables, usage, _ = sample
    counts: Counter = Counter()
    for row in usage.table(tables).itertuples():
        counts[row.template] += row.count
    for a, c in usage.arc.items():
        counts[_arc_key(tables.arc_text[a])] += c
    return counts


# -- the thesis's numbers ----------------------------------------------------------------------
def test_seed_template_counts_agree_with_the_other_published_numbers():
    assert tuple(sorted(paper.TEMPLATE_COUNTS)) == paper.TEMPLATES_USED
    assert sum(paper.TEMPLATE_COUNTS.values()) == paper.RULE_APPLICATIONS == 901773
    for t in (0, 7):   # both concrete rules of T0 and of T7 are among the five most frequent
        assert sum(c for tt, _, c in paper.TOP_RULES if tt == t) == paper.TEMPLATE_COUNTS[t]
    assert paper.TOP_RULES[0][2] / paper.RULE_APPLICATIONS * 100 == pytest.approx(paper.TOP_RULE_SHARE, abs=0.01)


def test_plgraph_numbers_templates_as_the_reference():
    """plgraph's T0 and T7 have exactly the two rules, with the item states, that the
    reference's statistics list for its T0 and T7; its T1 holds the most frequent rule."""
    tables = full_tables()
    states: dict = {}
    for text, t in zip(tables.comb_text, tables.comb_template):
        states.setdefault(int(t), set()).add(tuple(text.split("|")[3].split()))
    for t in (0, 7):
        assert states[t] == {s for tt, s, _ in paper.TOP_RULES if tt == t}
    assert paper.TOP_RULES[0][1] in states[1]


# -- the listing ---------------------------------------------------------------------------------
def test_listing_has_every_template_once_and_covers_every_rule(sample):
    tables, _, uses = sample
    keys = [r.key for r in program_rules()]
    assert len(keys) == len(set(keys)) == 69
    assert [r.key for r in program_rules() if not r.is_arc] == [f"T{t}" for t in range(len(COMBINATION_TEMPLATES))]
    assert sum(u.total for u in uses) == tables.n_comb + tables.n_arc == paper.RULES_TOTAL
    arc_totals = Counter(_arc_key(t) for t in tables.arc_text)
    assert {u.rule.key: u.total for u in uses if u.rule.is_arc} == dict(arc_totals)


def test_template_applications_equal_the_per_rule_counts(sample, independent):
    tables, usage, uses = sample
    assert {u.rule.key: u.applications for u in uses if u.seen} == dict(independent)
    frame = template_usage_frame(usage, tables).set_index("template")
    for key, count in independent.items():
        if key.startswith("T"):
            assert frame.loc[key, "plgraph_count"] == count
    assert frame.plgraph_count.sum() == usage.applications
    assert frame.plgraph_share_pct.sum() == pytest.approx(100.0)
    assert frame.thesis_count.sum() == paper.RULE_APPLICATIONS
    assert frame.loc["T6", "thesis_count"] == 1 and frame.loc["T5", "thesis_count"] == 0


def test_unseen_templates_are_those_never_applied(sample, independent):
    _, _, uses = sample
    unseen = {u.rule.key for u in uses if not u.seen}
    assert unseen == {r.key for r in program_rules()} - set(independent)
    assert unseen  # the sample leaves templates unused (B items, among others)
    assert {"B A[i j]", "B A[j i]"} <= unseen


# -- LaTeX ---------------------------------------------------------------------------------------
def _rule_lines(tex: str) -> dict:
    return {m.group(1): line for line in tex.splitlines() for m in [re.search(r"\\ruleref\{([^}]*)\}", line)] if m}


def _balanced(tex: str) -> bool:
    body = tex.replace(r"\{", "").replace(r"\}", "")
    depth = 0
    for ch in body:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _environments_nest(tex: str) -> bool:
    stack = []
    for kind, name in re.findall(r"\\(begin|end)\{(\w+\*?)\}", tex):
        if kind == "begin":
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack


def test_full_program_tex_boxes_exactly_the_unseen_templates(sample, independent):
    tables, usage, uses = sample
    tex = full_program_tex(uses, "sample", paper.TEMPLATE_COUNTS, check_properties(usage, tables))
    lines = _rule_lines(tex)
    assert set(lines) == {r.key for r in program_rules()}
    for key, line in lines.items():
        assert (r"\unseenrule{" in line) == (key not in independent), key
        if key not in independent:
            assert r"\unseentype{" not in line
    # T2's first premise may be a B item, which no derivation of the sample creates
    assert r"\unseentype{B}LRN" in lines["T2"]
    assert tex.startswith(r"\documentclass") and tex.rstrip().endswith(r"\end{document}")
    assert _balanced(tex)
    assert _environments_nest(tex)


def test_pruned_program_tex_lists_only_the_seen_templates(sample, independent):
    _, _, uses = sample
    tex = pruned_program_tex(uses, "sample")
    lines = _rule_lines(tex)
    assert set(lines) == set(independent)
    assert r"\unseenrule{" not in tex and r"\unseentype{" not in tex
    assert _balanced(tex) and _environments_nest(tex)


# -- tightening and notation (hand-derived) ------------------------------------------------------
def test_observed_view_is_the_tightest_pattern():
    spec = item("N", "kjx", "!J!X", "!K!X", "!K!J", side="<")
    # j has k as direct parent in one variant and as indirect ancestor in the other; nothing else links
    view = observed_view(spec, Observed(frozenset({"-._N", "=._N"}), frozenset({"FFIFFF", "FFiFFF"})))
    assert view.types == (("N", False),) and view.side == "<" and view.mult == ""
    assert view.patterns == ((("F", False),), (("F", True), ("F", False)), (("F", False),))
    assert item_math(view) == r"\cdot N[kjx \; F \; \overline{F}F \; F]"
    one = observed_view(item("LN", "ikx", ".!X", ".X", "!I!K"), Observed(frozenset({"-_.L"}), frozenset({"FFFXFF"})))
    assert one.types == (("L", False),) and one.side == ">" and one.mult == "-"
    assert one.patterns == ((("F", False),), (("F", False), ("X", False)), (("F", False),))


def test_notation():
    assert pattern_math((("J", True), ("X", True))) == r"\overline{JX}"
    assert pattern_math((("I", False), ("J", True))) == r"I\overline{J}"
    view = template_view(item("BLRN", "ikj", "F", "I!J", "!I!K", side=">"), frozenset("B"))
    assert item_math(view, latex=True) == r"\unseentype{B}LRN\cdot[ikj \; F \; I\overline{J} \; \overline{IK}]"
    assert item_math(view) == r"BLRN\cdot[ikj \; F \; I\overline{J} \; \overline{IK}]"
    t0 = template_view(COMBINATION_TEMPLATES[0][1][1])
    assert item_math(t0) == r"I[i{+}1 \; j \; \overline{F} \; F]"


# -- the thesis's observations, re-derived from the rule texts -----------------------------------
def test_properties_agree_with_the_rule_texts(sample):
    tables, usage, _ = sample
    creates_b = any(tables.comb_text[r].split("|")[1].split()[0].endswith("B") for r in usage.combination)
    lr_not_i = False
    for r in usage.combination:
        fields = tables.comb_text[r].split("|")
        if any(s[-1] in "LR" for s in fields[2].split()) and not fields[1].split()[0].endswith("I"):
            lr_not_i = True
    x_roles = Counter()
    later = set()
    for a in usage.arc:
        span, parent, child = _arc_fields(tables.arc_text[a])
        if "x" not in (parent, child):
            continue
        if span == "___I":
            x_roles[parent == "x"] += 1
        else:
            later.add((span[-1], parent == "x"))
    x_claim = x_roles[True] > 0 and x_roles[False] > 0 and later <= {("N", True)}
    checks = {p.name: p.holds for p in check_properties(usage, tables)}
    assert checks == {"b-never-created": not creates_b, "lr-into-i": not lr_not_i, "x-edges": x_claim}


# -- the figures ---------------------------------------------------------------------------------
def test_figures_are_registered():
    assert {"program", "template_usage"} <= set(figures.FIGURES)


def test_full_program_figure_boxes_the_unseen_templates(sample, independent):
    _, _, uses = sample
    fig = figures.plot_full_program(uses, "sample")
    boxes = [a for a in fig.artists if isinstance(a, FancyBboxPatch)]
    assert len(boxes) == len(program_rules()) - len(independent)
    texts = [t.get_text() for t in fig.texts]
    for key in ("T5", "B A[i j]", "T1"):
        assert any(t.startswith(key + " ") for t in texts)


def test_template_usage_plot_shows_every_template_either_applied(sample):
    tables, usage, _ = sample
    fig = figures.plot_template_usage(template_usage_frame(usage, tables), usage.n_derived)
    ax = fig.axes[0]
    shown = [t.get_text() for t in ax.get_xticklabels()]
    expected = {f"T{t}" for t in paper.TEMPLATE_COUNTS} | {k for k, _ in usage.table(tables).groupby("template")}
    assert set(shown) == expected and len(shown) == len(expected)
    assert ax.get_yscale() == "log"
