"""Peer benchmark: SuPar's CRF constituency parser beside plgraph's parsers, scored together.

SuPar 1.1.4 (Zhang, Zhou and Li 2020: a BiLSTM with a character LSTM, no pretrained vectors,
no POS tags, a tree CRF) is installed into its own virtual environment (``--venv``; it
needs torch, transformers and stanza, which plgraph does not), trained on the sample's
train split (dev for model selection) with the trees' null elements, co-indices and
function tags removed -- SuPar builds trace-free trees -- on one CPU thread for
``--minutes`` minutes (then stopped: SuPar keeps its best model on dev as it goes),
and asked for the test split.  plgraph's parsers of ``--model-dir M`` parse the same
sentences (gold tags, and the folder's tagger's with ``--predicted-tags``), and every
output is scored by the C EVALB (COLLINS.prm without the MAX_ERROR stop) on the test
sentences of at most 40 words, in one table.

    python bench/peer_supar.py --model-dir runs/parser [--minutes 60] [--venv bench/.supar-venv]

Peak RSS and seconds of each step are printed beside its score (SuPar's training: its
process tree's peak from ``/usr/bin/time -v`` when there is one).
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench._util import build_c_evalb  # noqa: E402

SUPAR = "supar==1.1.4"
ROOT = Path(__file__).resolve().parent.parent
#: SuPar's published settings of its CRF constituency parser (its config.ini; the network's
#: sizes are the model's defaults): Adam 2e-3 (0.9, 0.9), decay 0.75 every 5,000 steps,
#: words seen once unknown, evalb's deleted labels and ADVP = PRT
SUPAR_CONFIG = """[Data]
delete = {'TOP', 'S1', '-NONE-', ',', ':', '``', "''", '.', '?', '!', ''}
equal = {'ADVP': 'PRT'}

[Optimizer]
lr = 2e-3
mu = .9
nu = .9
eps = 1e-12
weight_decay = 0
clip = 5.0
decay = .75
decay_steps = 5000

[Run]
min_freq = 2
fix_len = 20
"""


def trace_free(tree) -> str:
    """A PTB tree as SuPar learns it: no null elements (and no constituents left empty),
    no co-indices or function tags (``NP-SBJ-1`` -> ``NP``), root ``TOP``, one line."""
    from plgraph.tree import Tree

    def clean(t):
        if t.word is not None:                      # a pre-terminal
            return None if t.is_null_leaf() else Tree(t.label, word=t.word)
        kids = [k for k in (clean(c) for c in t.children) if k is not None]
        if not kids:
            return None
        label = t.label
        if label not in ("-LRB-", "-RRB-"):
            label = re.split(r"[-=]", label)[0] or label
        return Tree(label, kids)

    out = clean(tree)
    out.label = "TOP"
    return out.to_string()


def top(tree) -> str:
    """``tree`` (nulls and co-indices kept: the gold file) with root ``TOP``, one line."""
    t = tree.copy()
    t.label = "TOP"
    return t.to_string()


def write_split(sentences, path: Path) -> int:
    path.write_text("".join(trace_free(s.tree) + "\n" for s in sentences), encoding="utf-8")
    return len(sentences)


def ensure_venv(venv: Path) -> Path:
    """The venv's python with SuPar installed (created on first use)."""
    py = venv / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if subprocess.run([str(py), "-c", "import supar"], capture_output=True).returncode != 0:
        subprocess.run([str(py), str(ROOT / "tools" / "install_torch.py")], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "--quiet", SUPAR], check=True)
    return py


def timed(cmd, seconds: float | None = None, env=None) -> tuple[float, float | None, int]:
    """Run ``cmd`` under ``/usr/bin/time -v`` (when there is one), stopped (SIGINT, then
    SIGKILL) after ``seconds``: (wall seconds, peak RSS in GB or None, return code)."""
    tv = Path("/usr/bin/time")
    with tempfile.NamedTemporaryFile("r", suffix=".time") as rep:
        full = ([str(tv), "-v", "-o", rep.name] if tv.exists() else []) + [str(c) for c in cmd]
        start = time.perf_counter()
        proc = subprocess.Popen(full, env=env, start_new_session=True)
        try:
            rc = proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                rc = proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                rc = proc.wait()
        wall = time.perf_counter() - start
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", Path(rep.name).read_text())
    return wall, (int(m.group(1)) / 1e6 if m else None), rc


def c_evalb(exe: Path, gold: Path, test: Path) -> tuple[float, float, float]:
    """(P, R, F1) of the C EVALB's summary (all sentences of the files)."""
    out = subprocess.run([str(exe), "-p", str(exe.parent / "collins-nostop.prm"), str(gold), str(test)],
                         capture_output=True, text=True, check=True).stdout
    val = lambda name: float(re.search(rf"^{name}\s*=\s*([\d.]+)", out, re.M).group(1))  # noqa: E731
    return val("Bracketing Recall"), val("Bracketing Precision"), val("Bracketing FMeasure")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model-dir", default="runs/parser", help="plgraph's model folder (linear, and M/neural)")
    ap.add_argument("--minutes", type=float, default=60.0, help="SuPar's training time (default 60)")
    ap.add_argument("--venv", default=str(ROOT / "bench" / ".supar-venv"))
    ap.add_argument("--work", default=None, help="keep SuPar's data and model here (default: a temporary folder)")
    ap.add_argument("--predicted-tags", action="store_true", help="plgraph also with its tagger's tags")
    args = ap.parse_args(argv)
    from plgraph.corpora import Corpus
    from plgraph.parser.scoring.neural.folder import is_neural_folder, neural_dir

    work = Path(args.work or tempfile.mkdtemp(prefix="peer-supar-"))
    work.mkdir(parents=True, exist_ok=True)
    exe = build_c_evalb(work)
    if exe is None:
        return 1
    splits = {name: Corpus(name, None).sentences() for name in ("train", "dev", "test")}
    test40 = [s for s in splits["test"] if len(s.graph.words) <= 40]
    files = {name: work / f"{name}.pid" for name in splits}
    for name, sents in splits.items():
        write_split(sents, files[name])
    gold = work / "test40.gld"
    gold.write_text("".join(top(s.tree) + "\n" for s in test40), encoding="utf-8")
    rows = []
    # -- SuPar ---------------------------------------------------------------------------------
    py = ensure_venv(Path(args.venv))
    model = work / "supar.model"
    conf = work / "supar.ini"
    conf.write_text(SUPAR_CONFIG, encoding="utf-8")
    # SuPar 1.1.4 saves its models with (dill) pickles, which torch >= 2.6 loads only when told to
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD="1")
    wall, rss, _ = timed([py, "-m", "supar.cmds.crf_con", "train", "-b", "-d", "-1", "-t", "1", "-p", model, "-c", conf,
                          "--encoder", "lstm", "--feat", "char", "--embed", "", "--train", files["train"],
                          "--dev", files["dev"], "--test", files["test"]], args.minutes * 60, env)
    print(f"SuPar trained {wall / 60:.1f} min, peak RSS {rss} GB")
    test40_in = work / "test40.pid"
    write_split(test40, test40_in)
    pred = work / "supar.pred"
    if not model.exists():
        print(f"SuPar saved no model (see {model}.train.log)")
        return 1
    pwall, prss, rc = timed([py, "-m", "supar.cmds.crf_con", "predict", "-d", "-1", "-t", "1", "-p", model, "-c", conf,
                             "--data", test40_in, "--pred", pred], None, env)
    if rc == 0:
        rows.append(("SuPar 1.1.4 CRF (char LSTM, no tags)", *c_evalb(exe, gold, pred), pwall, prss))
    # -- plgraph ---------------------------------------------------------------------------------
    scorers = []
    if (Path(args.model_dir) / "parser.json").exists():
        scorers.append("linear")
    if is_neural_folder(neural_dir(args.model_dir)):
        scorers.append("neural")
    for scorer in scorers:
        for tags in (["--gold-tags"] + (["--predicted-tags"] if args.predicted_tags else [])):
            trees = work / f"plgraph-{scorer}{tags}.tst"
            cmd = [sys.executable, "-m", "plgraph", "parse", "--model-dir", args.model_dir, "--scorer", scorer,
                   tags, "--out", trees, "--in", "ptb", str(gold)]
            wall, rss, rc = timed(cmd)
            if rc == 0:
                rows.append((f"plgraph {scorer} ({tags[2:]})", *c_evalb(exe, gold, trees), wall, rss))
    print(f"\nsample test split, {len(test40)} sentences of <= 40 words, C EVALB (COLLINS.prm)")
    print(f"{'parser':42s} {'R':>6s} {'P':>6s} {'F1':>6s} {'parse s':>8s} {'peak GB':>8s}")
    for name, r, p, f, s, g in rows:
        print(f"{name:42s} {r:6.2f} {p:6.2f} {f:6.2f} {s:8.1f} {g if g is not None else float('nan'):8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
