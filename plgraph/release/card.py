"""The released model's card: a Markdown page written from its record.

:func:`render_card` turns a release record (:mod:`plgraph.release.record`) into the card
the documentation shows (``docs/model.md``): what the model is, the data and licence
terms it comes from, the command that makes it, its files and sizes, and its scores on
dev and test beside the thesis's published ones.  Every figure on the card is read from the
record; the page is rewritten by each release.
"""
from __future__ import annotations

from .record import scorer_bytes

_NAMES = {"linear": "linear (the seed's parser: coarse-to-fine passes 1-3, linear scores)",
          "neural": "neural (BiLSTM scores in the same exact 1EC chart, `plgraph[neural]`)"}


def _row(name: str, s: dict) -> str:
    h = s["len40"]
    cells = [name, f"{h['evalb_f1']:.2f}", f"{h['johnson_f']:.2f}", f"{h['trace_p']:.2f} / {h['trace_r']:.2f}",
             f"{s.get('tagging_accuracy', 0):.2f}" if "tagging_accuracy" in s else "gold",
             f"{s['sentences_per_second']:.1f}"]
    return "| " + " | ".join(cells) + " |"


def _code_note(made: dict) -> str:
    if not made.get("commit"):
        return ""
    changed = " with changes not committed yet" if made.get("changed") else ""
    return f", plgraph's code at commit `{made['commit'][:12]}`{changed}"


def _rescore_note(made: dict) -> str:
    r = made.get("rescored")
    if not r:
        return ""
    command = r["command"] or "python -m plgraph release --rescore"
    return (f" Its scores below were measured again, its files unchanged, by `{command}` on {r['date']}"
            + _code_note(r) + " (the packing figures above are the release's).")


def _train_sentences(record: dict) -> str:
    linear = record["scorers"].get("linear", {}).get("trained_with", {})
    n = (linear.get("rules") or {}).get("sentences")
    return f"{n:,} sentences" if n else "its sentences"


def render_card(record: dict) -> str:
    """The card of a release ``record`` (module docstring), as Markdown."""
    from ..parser.analysis.evaluate import THESIS

    made = record["made"]
    cfg = made["config"]
    lines = [
        "# The released parser model",
        "",
        "plgraph ships a trained graph parser, so that `python -m plgraph parse` works the minute it is "
        "installed: without `--model-dir` it uses this model (the neural scorer when PyTorch is installed, "
        "the linear one otherwise; `--scorer` chooses).",
        "",
        "## What it is",
        "",
    ]
    for scorer in record["scorers"]:
        e = record["scorers"][scorer]
        lines.append(f"* **{_NAMES.get(scorer, scorer)}**: {scorer_bytes(record, scorer) / 1e6:.2f} MB, weights in "
                     f"{e['precision']}; packing moved its dev evalb F1 by {e['dev_f1_change']:+.2f} "
                     f"({e['dev_unpacked']['len40']['evalb_f1']:.2f} before, {e['dev']['len40']['evalb_f1']:.2f} "
                     "after).")
    lines += [
        "",
        "Both were trained on the train split of the NLTK Penn Treebank sample (files wsj_0001-0139, sentences "
        "of at most 40 words), tuned on its dev split (wsj_0140-0169) and scored on its test split "
        "(wsj_0170-0199), which plgraph's experiments have read more than once (the dated "
        "[experiment records](experiments/index.md) say when and why). The POS tagger that tags raw text is "
        "NLTK's averaged perceptron, trained on the same train split.",
        "",
        "## How it is made",
        "",
        "```",
        "make release-model",
        "```",
        "",
        "trains both scorers from scratch (`python -m plgraph parser train --model-dir runs/release --overwrite`, "
        "then the same with `--scorer neural`) and packs them with `python -m plgraph release --model-dir "
        "runs/release`: only non-zero weights, in reduced precision, compressed "
        "(guide: [The released model](guide/release.md)). Packing is refused when it moves dev F1 by "
        f"{cfg['max_f1_change']} or more. This release: `{made['command'] or 'python -m plgraph release'}` on "
        f"{made['date']}" + _code_note(made) + "." + _rescore_note(made),
        "",
        "## Scores",
        "",
        "Sentences of at most 40 words; evalb F1 with COLLINS.prm (TOP root deleted), Johnson (2002) F on empty "
        "elements with co-indexation, unlabelled trace edges P / R as the seed counts them; sentences/s with "
        f"{made.get('rescored', cfg)['jobs']} thread(s) while the release scored it.",
        "",
        "| model, split, tags | evalb F1 | Johnson F | trace edges P / R | tagging % | sentences/s |",
        "|---|---|---|---|---|---|",
    ]
    for scorer, e in record["scorers"].items():
        for key, title in (("dev", "dev, gold"), ("dev_predicted", "dev, predicted"), ("test", "test, gold"),
                           ("test_predicted", "test, predicted")):
            lines.append(_row(f"{scorer}, {title}", e[key]))
    thesis = {k: v for k, (v, _) in THESIS.items()}
    lines += [
        f"| seed (thesis), WSJ 22 | {thesis['evalb_f1']:.2f} | "
        f"P {thesis['johnson_p']:.0f} / R {thesis['johnson_r']:.0f} | "
        f"{thesis['trace_p']:.1f} / {thesis['trace_r']:.1f} | predicted | {1 / thesis['seconds_per_sentence']:.2f} |",
        "",
        "The seed's parser was trained on WSJ sections 02-21 (39,832 sentences); these models saw the "
        f"sample's train split ({_train_sentences(record)}; the parsers train on those of at most 40 words). "
        "With a full LDC treebank, `--ptb DIR` trains on 02-21 and scores on 22 / 23.",
        "",
        "## Files",
        "",
        "`plgraph/models/parser/` (package data); `release.json` beside them records each file's size and "
        "SHA-256, how the release was made and every score above. `python -m plgraph release --check` compares "
        "the files with it.",
        "",
        "| file | bytes |",
        "|---|---|",
    ]
    for name, f in record["files"].items():
        lines.append(f"| `{name}` | {f['bytes']:,} |")
    lines += [
        "",
        "## Licence",
        "",
        "plgraph's code is MIT-licensed. The model is derived from the NLTK sample of the Penn Treebank "
        "(© LDC 1995, distributed with NLTK \"under fair use for the purposes of illustrating NLTK tools\", for "
        "non-commercial use only): its weights, label inventories and vocabularies (words of the sample, no "
        "sentences) come from those trees, so the same terms apply to the model: research and teaching, "
        "not commercial use.",
        "",
    ]
    return "\n".join(lines)


__all__ = ["render_card"]
