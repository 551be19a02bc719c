"""The synthetic LDC-layout treebank (:mod:`plgraph.ptb.synthetic`): its layout, that
``--ptb DIR`` reads it as a full treebank, and what it refuses."""
from __future__ import annotations

import subprocess
import sys

import pytest

from plgraph.data import LDC_SPLITS, ldc_files, sample_files
from plgraph.errors import InputError, OutputError
from plgraph.ptb.synthetic import layout, write_synthetic_treebank


def test_layout_spreads_the_copies_over_sections_02_to_21_in_order():
    train = [f"t{i}" for i in range(139)]
    plan = layout(14, train, ["d0", "d1"], ["e0"])
    sizes = [len(plan[s]) for s in LDC_SPLITS["train"]]
    assert sum(sizes) == 14 * 139 and max(sizes) <= 100 and min(sizes) >= 97
    flat = [src for s in LDC_SPLITS["train"] for src, _ in plan[s]]
    assert flat == train * 14                                    # every copy, in file order
    assert plan["02"][0] == ("t0", "wsj_0200.mrg") and plan["21"][-1][1] == f"wsj_21{sizes[-1] - 1:02d}.mrg"
    assert plan["22"] == [("d0", "wsj_2200.mrg"), ("d1", "wsj_2201.mrg")] and plan["23"] == [("e0", "wsj_2300.mrg")]
    with pytest.raises(ValueError, match="at most 14 copies"):
        layout(15, train, [], [])
    with pytest.raises(ValueError, match="at least 1"):
        layout(0, train, [], [])


def test_the_treebank_reads_as_ldc_sections_with_twice_the_train_trees(sample_dir, tmp_path):
    out = tmp_path / "syn"
    done = write_synthetic_treebank(out, copies=2, sample=sample_dir)
    train, dev, test = (sample_files(s, sample_dir) for s in ("train", "dev", "test"))
    assert [len(ldc_files(out, s)) for s in ("train", "dev", "test")] == [2 * len(train), len(dev), len(test)]
    assert sorted(p.name for p in out.iterdir()) == [f"{s:02d}" for s in range(2, 24)] + ["SYNTHETIC.txt"]
    assert ldc_files(out, "dev")[0].read_bytes() == dev[0].read_bytes()
    assert ldc_files(out, "train")[len(train)].read_bytes() == train[0].read_bytes()     # the second copy
    assert "means nothing" in (out / "SYNTHETIC.txt").read_text(encoding="utf-8") and "means nothing" in done.summary()
    import plgraph

    ids = [s.id for s in plgraph.corpus("test", ptb=out).sentences()]
    sample_test = plgraph.corpus("test").sentences()
    assert len(ids) == len(sample_test) and len(set(ids)) == len(ids) and ids[0].startswith("wsj_2300")
    assert [len(s.graph) for s in plgraph.corpus("test", ptb=out).sentences()] == [len(s.graph) for s in sample_test]


def test_it_refuses_a_folder_in_use_and_too_many_copies(sample_dir, tmp_path):
    used = tmp_path / "used"
    used.mkdir()
    (used / "keep.txt").write_text("mine")
    with pytest.raises(OutputError, match="not an empty folder"):
        write_synthetic_treebank(used, copies=1, sample=sample_dir)
    assert [p.name for p in used.iterdir()] == ["keep.txt"]
    with pytest.raises(InputError, match="at most 14 copies"):
        write_synthetic_treebank(tmp_path / "big", copies=15, sample=sample_dir)
    assert not (tmp_path / "big").exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".big")]


def test_the_command_says_the_accuracy_means_nothing(sample_dir, tmp_path):
    out = tmp_path / "syn1"
    run = subprocess.run([sys.executable, "-m", "plgraph", "synthetic-treebank", str(out), "--copies", "1"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "accuracy of a model trained on it means nothing" in run.stdout and "train 139 files" in run.stdout
    again = subprocess.run([sys.executable, "-m", "plgraph", "synthetic-treebank", str(out)], capture_output=True,
                           text=True)
    assert again.returncode == 2 and "not an empty folder" in again.stderr
