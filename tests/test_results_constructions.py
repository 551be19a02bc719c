"""docs/results.md's table of traces by construction is the JSON the evaluation wrote
(figures/by_construction_dev.json), not retyped figures."""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _name(c: str) -> str:
    return f"`{c}`" if c.startswith("*") else c


def test_the_results_table_is_the_json():
    doc = json.loads((ROOT / "figures" / "by_construction_dev.json").read_text(encoding="utf-8"))
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    gold, pred = doc["gold"]["by_construction"], doc["predicted"]["by_construction"]
    assert f"NLTK tags ({doc['predicted']['tagging_accuracy']:.2f}%)" in text
    for c, g in gold.items():
        p = pred[c]
        row = (f"| {_name(c)} | {g['gold']} | {doc['train_counts'][c]} | {g['precision']:.2f} / {g['recall']:.2f} / "
               f"{g['f1']:.2f} | {p['precision']:.2f} / {p['recall']:.2f} / {p['f1']:.2f} |")
        assert row in text, row
    assert sum(g["gold"] for g in gold.values()) == sum(p["gold"] for p in pred.values())
