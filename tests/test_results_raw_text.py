"""docs/results.md's raw-text figures are the JSON the bench and ``text evaluate`` wrote
(figures/raw_text_dev.json), not retyped figures."""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_raw_text_section_is_the_json():
    doc = json.loads((ROOT / "figures" / "raw_text_dev.json").read_text(encoding="utf-8"))
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    dev, stream = doc["dev"], doc["stream"]
    tok, split = dev["tokenisation"], dev["splitting"]
    assert (f"| dev sentences tokenised exactly as the treebank | {tok['exact']} / {tok['sentences']} "
            f"({tok['percent']:.2f}%) | – |") in text
    assert (f"| dev sentences found with exactly their tokens in running text (30 files) | {split['found']} / "
            f"{split['sentences']} ({split['percent']:.2f}%) | – |") in text
    raw, gold = dev["raw"], dev["gold_tokens"]
    assert (f"| evalb F1, dev ≤ 40 (EVALB length errors) | {raw['evalb_len40']['f1']:.2f} "
            f"({raw['evalb_len40']['errors']} of {raw['evalb_len40']['sentences']}) | "
            f"{gold['evalb_len40']['f1']:.2f} ({gold['evalb_len40']['errors']} of "
            f"{gold['evalb_len40']['sentences']}) |") in text
    assert f"| Johnson F, dev ≤ 40 | {raw['johnson_f_len40']:.2f} | {gold['johnson_f_len40']:.2f} |" in text
    assert raw["evalb_len40"]["scorer"] == gold["evalb_len40"]["scorer"] == "C EVALB"
    assert (f"took {stream['seconds']:.1f} s ({stream['sentences_per_second']:.2f} sentences/s) at a peak RSS of "
            f"{stream['peak_rss_mib']:.1f} MiB, with {stream['output_lines']:,} output") in text
    assert stream["sentences"] == stream["output_lines"] == 10000 and stream["cores"] == 1
    for part in (dev, stream):
        assert f"python {part['command'].split('python ', 1)[1]}" in text
