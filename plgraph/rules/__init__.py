"""The one-endpoint-crossing dynamic program: item states, deduction rules,
gold derivations and rule-usage counting."""
from .bruteforce import BruteForceReport, check_all_graphs
from .derive import Derivation, derive, derive_edges
from .generate import SPAN_CODES, generate_rules, rules_text
from .states import all_states, three_point_states, two_point_states
from .tables import RuleTables, full_tables
from .usage import RuleUsage, count_rules, unseen_in

__all__ = ["BruteForceReport", "check_all_graphs", "Derivation", "derive", "derive_edges", "SPAN_CODES",
           "generate_rules", "rules_text", "all_states", "three_point_states", "two_point_states", "RuleTables",
           "full_tables", "RuleUsage", "count_rules", "unseen_in"]
