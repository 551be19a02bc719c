"""``python -m plgraph eval {trees,traces,graphs,ceiling,compare}``: score test parses against gold ones.

Each sub-command lives in its scorer's module as ``cli_main(args) -> int`` (exit code:
0 scored, 2 bad input); this module only declares the arguments.
"""
from __future__ import annotations

import importlib


def _run(module: str):
    def run(args) -> int:
        return importlib.import_module(f"plgraph.eval.{module}").cli_main(args)

    return run


def register(sub) -> None:
    ev = sub.add_parser("eval", help="score parses: trees (EVALB), traces (Johnson 2002), graphs (SHP)")
    es = ev.add_subparsers(dest="eval_command", required=True)

    t = es.add_parser("trees", help="bracket scores exactly as the C EVALB; prints EVALB's report",
                      description="Bracket precision/recall as EVALB (Sekine & Collins) computes them. "
                                  "GOLD and TEST hold one bracketed tree per line, in the same order.")
    t.add_argument("gold", metavar="GOLD")
    t.add_argument("test", metavar="TEST")
    t.add_argument("--prm", metavar="PATH",
                   help="EVALB parameter file (default: COLLINS.prm with no MAX_ERROR stop)")
    t.add_argument("--json", metavar="PATH", help="also write the summaries as JSON")
    t.set_defaults(func=_run("evalb"))

    r = es.add_parser("traces", help="empty nodes and co-indexation, Johnson (2002) as ptb-trace-eval.py",
                      description="The Johnson (2002) empty-node metric as the reference's "
                                  "evaluation/ptb-trace-eval.py computes it. GOLD and TEST are PTB files "
                                  "(one or more trees per line or spread over lines), same sentence order.")
    r.add_argument("gold", metavar="GOLD")
    r.add_argument("test", metavar="TEST")
    r.add_argument("--null-only", action="store_true", help="score every null element as an unlinked item")
    r.add_argument("--json", metavar="PATH", help="also write the scores as JSON")
    r.set_defaults(func=_run("traces"))

    g = es.add_parser("graphs", help="spines, structural and trace edges of SHP files, as shp-eval.py",
                      description="Labelled and unlabelled spines, structural edges and trace edges "
                                  "(the reference's evaluation/shp-eval.py), plus unlabelled trace edges "
                                  "as the seed counts them.")
    g.add_argument("gold", metavar="GOLD.shp")
    g.add_argument("test", metavar="TEST.shp")
    g.add_argument("--json", metavar="PATH", help="also write the scores as JSON")
    g.set_defaults(func=_run("graphs"))

    c = es.add_parser("ceiling", help="the representation's ceiling: gold tree -> graph -> tree, all three scorers",
                      description="Convert each gold tree to a graph and back (the reference's null placement, "
                                  "as the parser outputs it) and score the result against the gold tree with "
                                  "evalb, the Johnson metric and the graph scores.")
    c.add_argument("--split", default="dev", choices=["all", "train", "dev", "test"])
    c.add_argument("--ptb", metavar="DIR", help="full LDC treebank (WSJ section folders 00-24)")
    c.add_argument("--null-positions", action="store_true",
                   help="place nulls where the gold tree had them (default: the reference's heuristic)")
    c.add_argument("--json", metavar="PATH", help="also write the scores as JSON")
    c.set_defaults(func=_run("ceiling"))

    p = es.add_parser("compare", help="paired bootstrap: is parse A better than parse B (evalb F1 and Johnson F)?",
                      description="Score two parses of the same gold trees sentence by sentence (EVALB brackets, "
                                  "the Johnson empty-node metric), resample the sentences with replacement (the same "
                                  "resample for both) and report each F1, the difference A - B, its 95%% interval "
                                  "and the share of resamples where A is not better. GOLD, A and B hold one tree "
                                  "per line, in the same order.")
    p.add_argument("gold", metavar="GOLD")
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--samples", type=int, default=10000, metavar="N", help="resamples (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="resampling seed (default 0)")
    p.add_argument("--max-words", dest="max_words", type=int, default=40, metavar="N",
                   help="compare sentences of at most N words, EVALB's length (default 40; 0: every sentence)")
    p.add_argument("--json", metavar="PATH", help="also write the comparison as JSON")
    p.set_defaults(func=_run("compare"))
