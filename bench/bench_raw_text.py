"""Benchmark: raw text in -- accuracy on dev against gold tokens, and a 10,000-sentence stream.

Part 1 (``--dev``): the dev split's sentences detokenised (NLTK's
``TreebankWordDetokenizer`` over the gold words, one a line) parsed by ``python -m plgraph
parse --in raw``, against the same gold words, one tokenised sentence a line, parsed with
``--in text`` (the model's own tags, no gold ones): both scored by the C EVALB
(COLLINS.prm without the MAX_ERROR stop; plgraph's port of it when gcc or the sources
are missing) on sentences of at most 40 words, and by the Johnson trace metric (on the
same sentences).  A raw
sentence tokenised otherwise than the treebank is an EVALB length error: counted and
reported, not hidden.  Also the tokenisation and splitting figures of ``python -m plgraph
text evaluate``.  Each part's figures, with its date and command, replace that part in
``--json`` (default ``figures/raw_text_dev.json``).

Part 2 (``--stream N``): N sentences of the Brown corpus (its first N with 3 to 60
tokens, detokenised, one a line) parsed by ``python -m plgraph parse --in raw --out``, a
process of its own pinned to one core: seconds, sentences/s and the peak RSS of that
process.

    python bench/bench_raw_text.py [--model-dir M] [--dev] [--stream 10000] [--json PATH]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _util import build_c_evalb

ROOT = Path(__file__).resolve().parents[1]


def _run(cmd: list, cores: str | None = None) -> dict:
    """Run ``python -m plgraph ...`` as a child process: seconds, its own peak RSS (MiB,
    from ``wait4``) and its summary line."""
    prefix = ["taskset", "-c", cores] if cores else []
    with tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(prefix + [sys.executable, "-m", "plgraph", *cmd], stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{text[-3000:]}")
    summary = next((line for line in text.splitlines() if " sentences in " in line), "")
    return {"seconds": round(seconds, 2), "peak_rss_mib": round(usage.ru_maxrss / 1024, 1), "summary": summary}


def _evalb(exe, gold: Path, test: Path) -> dict:
    """EVALB's ≤ 40 summary (F1, error and skip counts) of ``test`` against ``gold``."""
    from plgraph.eval.evalb import evalb_files

    if exe is not None:
        report = subprocess.run([str(exe), "-p", str(Path(exe).parent / "collins-nostop.prm"), str(gold), str(test)],
                                capture_output=True, text=True, check=True).stdout
        tail = report[report.index("-- len<=40 --"):]
        fields = {}
        for line in tail.splitlines():
            if "=" in line:
                key, value = line.split("=", 1)
                fields[" ".join(key.split())] = value.strip()
        return {"scorer": "C EVALB", "f1": float(fields["Bracketing FMeasure"]),
                "sentences": int(fields["Number of sentence"]), "errors": int(fields["Number of Error sentence"]),
                "skipped": int(fields["Number of Skip sentence"])}
    summary = evalb_files(gold, test).summary["len40"]          # COLLINS.prm, no MAX_ERROR stop
    return {"scorer": "plgraph's EVALB port", "f1": round(summary["f1"], 2), "sentences": summary["sentences"],
            "errors": summary["errors"], "skipped": summary["skipped"]}


def dev_figures(model_dir, folder: Path) -> dict:
    import plgraph
    from plgraph.eval.ceiling import with_root
    from plgraph.eval.traces import traces
    from plgraph.text.accuracy import splitting_accuracy, tokenisation_accuracy
    from plgraph.text.sentences import detokenize

    dev = plgraph.corpus("dev").sentences()
    raw, text, gold = folder / "dev.txt", folder / "dev.tok", folder / "dev.gold"
    raw.write_text("".join(detokenize(s.words) + "\n" for s in dev), encoding="utf-8")
    text.write_text("".join(" ".join(s.words) + "\n" for s in dev), encoding="utf-8")
    gold.write_text("".join(with_root(s.tree, "TOP").to_string() + "\n" for s in dev), encoding="utf-8")
    exe = build_c_evalb(folder)
    model = ["--model-dir", str(model_dir)] if model_dir else []
    out = {}
    for name, fmt, src in (("raw", "raw", raw), ("gold_tokens", "text", text)):
        trees = folder / f"{name}.trees"
        run = _run(["parse", *model, "--in", fmt, str(src), "--out", str(trees), "--no-progress"])
        tests = trees.read_text(encoding="utf-8").splitlines()
        short = [k for k, s in enumerate(dev) if len(s.words) <= 40]
        johnson = traces([with_root(dev[k].tree, "TOP").to_string() for k in short], [tests[k] for k in short])
        out[name] = {"evalb_len40": _evalb(exe, gold, trees), "johnson_f_len40": round(johnson.all["f1"], 2),
                     "sentences": len(tests), **run}
    out["difference_f1"] = round(out["raw"]["evalb_len40"]["f1"] - out["gold_tokens"]["evalb_len40"]["f1"], 2)
    tok, split = tokenisation_accuracy(dev), splitting_accuracy(dev)
    out["tokenisation"] = {k: tok[k] for k in ("sentences", "exact", "percent")}
    out["splitting"] = {k: split[k] for k in ("sentences", "found", "percent")}
    return out


def brown_lines(n: int) -> list[str]:
    from plgraph.data import find_corpus
    from plgraph.lm.corpora import brown_sentences
    from plgraph.text.sentences import detokenize

    out = []
    for words in brown_sentences(find_corpus("brown")):
        if 3 <= len(words) <= 60:
            out.append(" ".join(detokenize(words).split()))
            if len(out) == n:
                break
    return out


def stream_figures(model_dir, n: int, folder: Path) -> dict:
    lines = brown_lines(n)
    src, out = folder / "brown.txt", folder / "brown.trees"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = ["--model-dir", str(model_dir)] if model_dir else []
    run = _run(["parse", *model, "--in", "raw", str(src), "--out", str(out), "--no-progress"], cores="0")
    written = out.read_text(encoding="utf-8").splitlines()
    return {"sentences": len(lines), "output_lines": len(written), "cores": 1,
            "sentences_per_second": round(len(lines) / run["seconds"], 2), **run}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model-dir", default=None, help="default: the released model")
    p.add_argument("--dev", action="store_true", help="part 1: dev from raw text against gold tokens")
    p.add_argument("--stream", type=int, default=0, metavar="N", help="part 2: N Brown sentences as a stream")
    p.add_argument("--json", default=str(ROOT / "figures" / "raw_text_dev.json"))
    args = p.parse_args()
    doc = {}
    stamp = {"date": time.strftime("%Y-%m-%d"), "model_dir": args.model_dir or "released",
             "command": "python bench/bench_raw_text.py " + " ".join(sys.argv[1:])}
    with tempfile.TemporaryDirectory() as tmp:
        if args.dev:
            doc["dev"] = {**stamp, **dev_figures(args.model_dir, Path(tmp))}
            d = doc["dev"]
            print(f"dev from raw text: EVALB F1 (<=40) {d['raw']['evalb_len40']['f1']:.2f} "
                  f"({d['raw']['evalb_len40']['errors']} length errors), Johnson F {d['raw']['johnson_f_len40']:.2f}; "
                  f"gold tokens, own tags: {d['gold_tokens']['evalb_len40']['f1']:.2f}, Johnson F "
                  f"{d['gold_tokens']['johnson_f_len40']:.2f}; difference {d['difference_f1']:+.2f}")
        if args.stream:
            doc["stream"] = {**stamp, **stream_figures(args.model_dir, args.stream, Path(tmp))}
            s = doc["stream"]
            print(f"{s['sentences']} Brown sentences, raw, one core: {s['seconds']:.1f} s "
                  f"({s['sentences_per_second']:.1f} sentences/s), peak RSS {s['peak_rss_mib']} MiB, "
                  f"{s['output_lines']} output lines")
    if args.dev or args.stream:
        old = json.loads(Path(args.json).read_text(encoding="utf-8")) if os.path.exists(args.json) else {}
        old.update(doc)
        from plgraph.files.atomic import atomic_json

        atomic_json(args.json, old)
        print(f"written {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
