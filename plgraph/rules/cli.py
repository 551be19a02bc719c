"""``python -m plgraph rules generate|count|check``."""
from __future__ import annotations

import json
import sys
import time

from ..cliargs import non_negative_int, positive_int


def _generate(args) -> int:
    from ..files.atomic import atomic_text
    from .tables import full_tables

    if args.out:
        from ..files.atomic import check_writable

        check_writable(args.out)
    start = time.perf_counter()
    t = full_tables()
    lines = t.lines()
    text = "\n".join(lines) + "\n"
    if args.out:
        atomic_text(args.out, text)
        print(f"wrote {len(lines)} rules ({t.n_arc} arc + {t.n_comb} combination) to {args.out} "
              f"in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _count(args) -> int:
    from .. import paper
    from ..corpora import Corpus
    from ..files.atomic import atomic_text
    from .tables import full_tables
    from .usage import count_rules, unseen_in

    from ..files.atomic import check_writable

    for out in (args.json, args.export):
        if out:
            check_writable(out)
    if args.export:
        check_writable(args.export + ".json")
    t = full_tables()
    start = time.perf_counter()
    corpus = Corpus(args.split, args.ptb, progress=args.progress)
    usage = count_rules(corpus, t, progress=args.progress)
    doc = {
        "n_arc_rules": t.n_arc, "n_combination_rules": t.n_comb, "n_sentences": usage.n_sentences,
        "n_derived": usage.n_derived, "distinct_combination_rules_used": len(usage.combination),
        "distinct_arc_rules_used": len(usage.arc), "applications": usage.applications,
        "top_rule_share": round(usage.top_shares((1,))[1], 2),
        "top_k_share": {str(k): round(v, 2) for k, v in usage.top_shares().items()},
        "templates_used": sorted(int(k) for k in usage.per_template(t)),
        "per_template": {f"T{k}": v for k, v in sorted(usage.per_template(t).items())},
        "failures": [{"id": sid, "reason": why} for sid, why in usage.failures],
        "skipped": [str(b) for b in corpus.skipped],
        "rules": [{"rule": row.text, "template": row.template, "count": int(row.count)}
                  for row in usage.table(t).itertuples()],
    }
    if args.split == "train":
        dev = Corpus("dev", args.ptb, progress=args.progress)
        dev_usage = count_rules(dev, t, progress=args.progress)
        need = unseen_in(usage, dev_usage)
        doc["dev_sentences"] = dev_usage.n_derived
        doc["dev_sentences_needing_unseen_rule"] = len(need)
        doc["dev_unseen"] = [{"id": sid, **v} for sid, v in need.items()]
    doc["seconds"] = round(time.perf_counter() - start, 2)
    doc["published"] = {"rules_used": paper.RULES_USED, "applications": paper.RULE_APPLICATIONS,
                        "top_rule_share": paper.TOP_RULE_SHARE, "top_k_share": paper.TOP_K_SHARE,
                        "dev": paper.DEV_UNSEEN, "treebank": paper.TREEBANK}
    source = args.ptb or "NLTK PTB sample"
    print(f"# {source}, split {args.split}: {usage.n_derived} of {usage.n_sentences} sentences derived "
          f"({doc['seconds']} s)")
    print(f"rules: {t.n_arc} arc + {t.n_comb} combination = {t.n_arc + t.n_comb}")
    print(f"distinct combination rules used: {len(usage.combination)} (thesis, {paper.TREEBANK}: "
          f"{paper.RULES_USED}); applications {usage.applications} (thesis {paper.RULE_APPLICATIONS})")
    shares = usage.top_shares()
    print("cumulative share of the top k rules: " + ", ".join(f"top {k} {v:.2f}%" for k, v in shares.items())
          + f"  (thesis: top 1 {paper.TOP_RULE_SHARE}%, " + ", ".join(
              f"top {k} {v}%" for k, v in paper.TOP_K_SHARE.items()) + ")")
    print(f"templates used: {', '.join('T%d' % k for k in doc['templates_used'])}")
    if "dev_sentences_needing_unseen_rule" in doc:
        print(f"dev sentences needing a rule unseen in train: {doc['dev_sentences_needing_unseen_rule']} of "
              f"{doc['dev_sentences']} (thesis: {paper.DEV_UNSEEN})")
    if usage.failures:
        print(f"sentences without a derivation: {len(usage.failures)}")
        for sid, why in usage.failures[:20]:
            print(f"  {sid}: {why}")
    print("\nmost frequent combination rules:")
    print(usage.table(t, top=args.top).to_string(index=False, columns=["template", "count", "share %",
                                                                        "cumulative %", "text"]))
    if args.json:
        atomic_text(args.json, json.dumps(doc, indent=2) + "\n")
        print(f"\nwrote {args.json}")
    if args.export:
        pruned = usage.pruned(args.min_count, t)
        pruned.save(args.export, meta={"source": str(source), "split": args.split, "min_count": args.min_count})
        print(f"wrote the pruned grammar ({pruned.n_comb} combination + {pruned.n_arc} arc rules seen "
              f">= {args.min_count} times) to {args.export}")
    return 0


def _check(args) -> int:
    from .bruteforce import check_all_graphs

    ok = True
    for n in range(1, args.max_words + 1):
        start = time.perf_counter()
        report = check_all_graphs(n, strict=not args.no_parser_conditions)
        print(report.summary() + f" ({time.perf_counter() - start:.1f} s)")
        odd = [e for e, c, locked in report.exceptions if not (locked and c == 0)]
        for edges in odd[: args.show]:
            print("   ", edges)
        ok = ok and report.ok
    return 0 if ok or args.allow_exceptions else 1


def register(sub) -> None:
    p = sub.add_parser("rules", help="the 1EC deduction rules: generate, count usage, brute-force check")
    rs = p.add_subparsers(dest="rules_command", required=True)
    g = rs.add_parser("generate", help="write all 49,292 rules in the reference's text format")
    g.add_argument("--out", metavar="PATH", help="output file (default: standard output)")
    g.set_defaults(func=_generate)
    c = rs.add_parser("count", help="derive every gold graph and count rule usage")
    c.add_argument("--ptb", metavar="DIR", help="full LDC treebank (WSJ section folders 00-24)")
    c.add_argument("--split", default="train", choices=["all", "train", "dev", "test"])
    c.add_argument("--json", metavar="PATH", help="write the statistics as JSON")
    c.add_argument("--top", type=non_negative_int, default=20, help="rows of the frequency table to print")
    c.add_argument("--export", metavar="PATH.npz", help="write the pruned grammar for the parser")
    c.add_argument("--min-count", type=non_negative_int, default=1, help="keep rules seen at least this often (with --export)")
    c.add_argument("--progress", action="store_true", default=None, help="show progress bars")
    c.set_defaults(func=_count)
    k = rs.add_parser("check", help="brute force: derivations of every small acyclic 1EC graph")
    k.add_argument("--max-words", type=positive_int, default=5)
    k.add_argument("--show", type=non_negative_int, default=5, help="print this many exceptional graphs per length")
    k.add_argument("--no-parser-conditions", action="store_true",
                   help="without the parser's Exterval/width conditions")
    k.add_argument("--allow-exceptions", action="store_true", help="exit 0 even if some graph is not derived once")
    k.set_defaults(func=_check)
