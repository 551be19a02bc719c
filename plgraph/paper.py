"""Published numbers the project reproduces, with their sources.

Coverage tables: Kummerfeld (2016), PhD thesis "Algorithms for Identifying
Syntactic Errors and Parsing with Graph Structured Output", UC Berkeley,
§"Results / Algorithm Coverage", computed on WSJ sections 2-21
(39,832 training sentences).
"""
from __future__ import annotations

#: (type, acyclic %, cyclic % or None, acyclic count, cyclic count or None)
STRUCTURE_TABLE = (
    ("Projective Tree", 46.74, None, 18617, None),
    ("Projective Graph", 26.37, 0.87, 10504, 345),
    ("One-Endpoint Crossing", 24.06, 0.37, 9585, 147),
    ("Other Graph", 1.57, 0.04, 618, 16),
)
#: (step, sentences %, edges %)
COVERAGE_TABLE = (
    ("Projective trees without null elements", 26.59, 96.27),
    ("Core representation (CCK head rules)", 76.69, 98.47),
    ("+ Head rule changes", 95.76, 99.53),
    ("+ Null reversal", 97.17, 99.59),
    ("+ Gapping shift", 97.66, 99.60),
)
N_SENTENCES = 39832
TREEBANK = "WSJ sections 02-21"

#: Trace edges of a single type in WSJ 2-21 (reference repository, properties/trace-type-stats.md)
TRACE_TYPE_COUNTS = {"*": 18398, "*T*": 15942, "*ICH*": 998, "=": 599, "*EXP*": 557, "*RNR*": 345, "*PPA*": 20}

#: Rule pruning (thesis §"Algorithm rule pruning"), WSJ 2-21 gold derivations
RULES_TOTAL = 49292
RULES_ARC = 1028
RULES_COMBINATION = 48264
RULES_USED = 158
RULE_APPLICATIONS = 901773
TOP_RULE_SHARE = 46.69
TOP_K_SHARE = {2: 82.6, 5: 95.9, 19: 99.0}
TEMPLATES_USED = (0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 21, 22, 29, 31, 33, 34, 35, 36, 45, 46)
DEV_UNSEEN = "one rule in one parse (WSJ section 22)"

#: Combination-rule applications per template (numbered T0-T46 as in plgraph.rules.templates)
#: in the gold derivations of WSJ 02-21: the thesis's comment block after the rules-subset
#: algorithm of §"Algorithm rule pruning" (lines ``%%%   0  356191`` ...); a template not
#: listed was never applied.  They sum to RULE_APPLICATIONS over the 20 TEMPLATES_USED.
TEMPLATE_COUNTS = {0: 356191, 1: 423587, 2: 1230, 3: 493, 4: 3756, 6: 1, 7: 87825, 8: 1367, 9: 1976, 10: 2197,
                   21: 369, 22: 4626, 29: 2756, 31: 1160, 33: 5539, 34: 800, 35: 6185, 36: 342, 45: 1250, 46: 123}
#: The five most frequent combination rules on WSJ 02-21 as (template, item states, applications):
#: from the comment block of the reference's rule-generation/templates_used-pruned.tex
#: (jkkummerfeld/1ec-graph-parser).  T0 and T7 have two concrete rules each, and
#: both are here: their sums are the thesis's counts of T0 and T7 (TEMPLATE_COUNTS), which ties
#: the thesis's template numbers to the reference's.
TOP_RULES = ((1, ("F_I___", "F_F___"), 421008), (0, ("F_F___", "J_F___"), 323461), (7, ("J_F___", "J_F___"), 66827),
             (0, ("F_F___", "j_F___"), 32730), (7, ("j_F___", "J_F___"), 20998))
