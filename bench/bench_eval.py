"""Scoring speed: ``eval trees`` and ``eval traces`` on the whole PTB sample, C EVALB beside it.

    .venv/bin/python bench/bench_eval.py          # part of `make bench`

Target: each command <= 2 s warm on the 3,914-tree sample, on one core.

The gold side is the sample's cleaned trees (root written ``TOP``); the test side is the
same trees with one phrasal bracket flattened per sentence and every third sentence's
first co-index renamed (seeded), so brackets, nulls and traces all mismatch somewhere.
Each command runs as its own process (interpreter start and imports included, as a user
sees it), best of ``--repeat``; the in-process scoring time is shown too.  The peer is the
C EVALB of ``../shared/design/reference-evalb`` compiled into a temporary folder (skipped
with a message without gcc or the folder); its report must equal ours (checked here too).
"""
from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench._util import best_of, build_c_evalb, pin_one_core  # noqa: E402


def _perturb(tree, rng: random.Random, k: int):
    t = tree.copy()
    t.label = "TOP"
    phrasal = [n for n in t.subtrees() if n.word is None and n.parent is not None and n.parent.parent is not None]
    if phrasal:
        node = rng.choice(phrasal)
        parent = node.parent
        at = parent.children.index(node)
        for child in node.children:
            child.parent = parent
        parent.children[at:at + 1] = node.children
    if k % 3 == 0:
        for n in t.subtrees():
            if n.word is not None and re.search(r"-\d+$", n.word):
                n.word = re.sub(r"-\d+$", "-9", n.word)
                break
    return t


def write_inputs(folder: Path) -> tuple[Path, Path, int]:
    import plgraph

    rng = random.Random(0)
    sents = plgraph.corpus("all").sentences()
    gold, test = [], []
    for k, s in enumerate(sents):
        g = s.tree.copy()
        g.label = "TOP"
        gold.append(g.to_string())
        test.append(_perturb(s.tree, rng, k).to_string())
    gp, tp = folder / "sample.gld", folder / "sample.tst"
    gp.write_text("\n".join(gold) + "\n")
    tp.write_text("\n".join(test) + "\n")
    return gp, tp, len(sents)


def run(cmd, repeat: int) -> tuple[float, str]:
    def once():
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout

    return best_of(once, repeat)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    pin_one_core()
    from plgraph.eval import evalb, traces
    from plgraph.eval.evalb import read_evalb_file
    from plgraph.eval.traces import read_trace_file

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        gold, test, n = write_inputs(tmp)
        py = [sys.executable, "-m", "plgraph", "eval"]
        rows = []
        t_trees, ours = run(py + ["trees", str(gold), str(test)], args.repeat)
        g_lines, t_lines = read_evalb_file(gold), read_evalb_file(test)
        t_trees_api, res = best_of(lambda: evalb(g_lines, t_lines), args.repeat)
        rows.append(("plgraph eval trees (process)", t_trees))
        rows.append(("plgraph evalb() on lines read (in process)", t_trees_api))
        exe = build_c_evalb(tmp)
        if exe is not None:
            t_c, theirs = run([str(exe), "-p", str(tmp / "collins-nostop.prm"), str(gold), str(test)], args.repeat)
            rows.append(("peer: C EVALB (COLLINS.prm, no MAX_ERROR stop)", t_c))
            same = "identical" if theirs == ours else "DIFFERENT"
        t_traces, _ = run(py + ["traces", str(gold), str(test)], args.repeat)
        gt = [t for _, t in read_trace_file(gold, "gold")]
        tt = [t for _, t in read_trace_file(test, "test")]
        t_traces_api, tr = best_of(lambda: traces(gt, tt), args.repeat)
        rows.append(("plgraph eval traces (process)", t_traces))
        rows.append(("plgraph traces() on trees read (in process)", t_traces_api))
        t_start, _ = run([sys.executable, "-c", "import plgraph.cli"], args.repeat)
        rows.append(("(python start + import plgraph.cli)", t_start))

    print(f"{n} sentences; evalb all F1 {res.summary['all']['f1']:.2f}, Johnson F {tr.all['f1']:.2f}")
    if exe is not None:
        print(f"report of plgraph vs C EVALB: {same}")
    print(f"| {'stage (best of ' + str(args.repeat) + ', one core)':50s} | seconds |")
    print(f"|{'-' * 52}|--------:|")
    for name, sec in rows:
        print(f"| {name:50s} | {sec:7.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
