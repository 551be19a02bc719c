"""Published numbers the project reproduces, with their sources.

Coverage tables: Kummerfeld (2016), PhD thesis "Algorithms for Identifying
Syntactic Errors and Parsing with Graph Structured Output", UC Berkeley,
§"Results / Algorithm Coverage" (= seed 000), computed on WSJ sections 2-21
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
