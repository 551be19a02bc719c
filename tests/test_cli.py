"""The command line: coverage JSON and PTB <-> SHP conversion through files."""
from __future__ import annotations

import json


from plgraph.cli import main
from plgraph.convert import canonical_indices
from plgraph.paper import COVERAGE_TABLE, STRUCTURE_TABLE
from plgraph.ptb import read_ptb


def test_coverage_json_schema(tmp_path, sample_dir, capsys):
    out = tmp_path / "cov.json"
    assert main(["coverage", "--split", "dev", "--json", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "One-Endpoint Crossing" in printed and "+ Gapping shift" in printed
    doc = json.loads(out.read_text())
    assert isinstance(doc["n_sentences"], int) and doc["n_sentences"] > 0
    assert [r["type"] for r in doc["structure_table"]] == [row[0] for row in STRUCTURE_TABLE]
    assert [r["step"] for r in doc["coverage_table"]] == [row[0] for row in COVERAGE_TABLE]
    for r in doc["structure_table"]:
        assert set(r) == {"type", "acyclic_pct", "cyclic_pct", "acyclic_n", "cyclic_n"}
        assert isinstance(r["acyclic_n"], int) and isinstance(r["acyclic_pct"], float)
    for r in doc["coverage_table"]:
        assert set(r) == {"step", "sentences_pct", "edges_pct"}
    total = sum(r["acyclic_n"] + r["cyclic_n"] for r in doc["structure_table"])
    assert total == doc["n_sentences"]


def test_convert_round_trip_through_files(tmp_path, sample_dir, capsys):
    # the sample's first 20 files in one file: PTB -> SHP -> PTB reproduces the cleaned input
    # (the whole sample's round trips, in memory and through SHP text: test_convert.py)
    big = tmp_path / "sample.mrg"
    big.write_text("".join(f.read_text() for f in sorted(sample_dir.glob("wsj_*.mrg"))[:20]))
    shp = tmp_path / "sample.shp"
    back = tmp_path / "back.mrg"
    assert main(["convert", str(big), "--to", "shp", "--out", str(shp)]) == 0
    assert main(["convert", str(shp), "--to", "ptb", "--out", str(back)]) == 0
    original = read_ptb(big)
    rebuilt = read_ptb(back)
    assert len(original) == len(rebuilt) == 233
    failures = [a.id for a, b in zip(original, rebuilt)
                if canonical_indices(a.tree) != canonical_indices(b.tree)]
    assert len(failures) <= 2, failures


def test_convert_to_stdout_and_flags(tmp_path, capsys):
    f = tmp_path / "one.mrg"
    f.write_text("(ROOT (S (NP-SBJ-1 (NNP Bob)) (VP (VBD tried) (S (NP-SBJ (-NONE- *-1)) "
                 "(VP (TO to) (VP (VB leave))))) (. .)))\n")
    assert main(["convert", str(f), "--to", "shp", "--no-comments"]) == 0
    out = capsys.readouterr().out
    assert "4 NP-SBJ_0 T NP-SBJ_0 F *" in out and "# Parse" not in out
    assert "# plgraph-options heads=jkk1 null_reversal=1 gapping_shift=0" in out
    assert main(["convert", str(f), "--to", "shp", "--heads", "collins", "--no-null-reversal"]) == 0
    out = capsys.readouterr().out
    assert "heads=collins null_reversal=0" in out and "# Parse (ROOT" in out


def test_convert_reports_bad_sentences(tmp_path, capsys):
    f = tmp_path / "mixed.mrg"
    f.write_text("(ROOT (S (NN a)))\n(ROOT (S (NN b))\n")
    assert main(["convert", str(f), "--to", "shp"]) == 0
    err = capsys.readouterr().err
    assert "skipped 1 sentence(s)" in err and "mixed.1" in err and "unbalanced" in err
    assert main(["convert", str(tmp_path / "missing.mrg"), "--to", "shp"]) == 2
    assert "No such file" in capsys.readouterr().err


def test_python_dash_m_entry_point():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "plgraph", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "coverage" in out.stdout and "convert" in out.stdout


def test_ctrl_c_while_the_streams_are_reconfigured_waits_for_them():
    """A SIGINT arriving inside the stream reconfiguration at start-up is held back until
    both streams are reconfigured, then reported as "interrupted" (exit 130): a
    KeyboardInterrupt inside ``TextIOWrapper.reconfigure`` can leave stderr unusable."""
    import subprocess
    import sys

    runner = """
import io, os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)

class Stream(io.TextIOWrapper):
    def reconfigure(self, **kw):
        os.kill(os.getpid(), signal.SIGINT)       # Ctrl-C lands mid-way
        super().reconfigure(**kw)

sys.stderr = Stream(sys.stderr.buffer, encoding="utf-8", line_buffering=True)
import plgraph.cli
rc = plgraph.cli.main(["rules", "--help"])
print(rc, sys.stderr.errors, flush=True)
"""
    p = subprocess.run([sys.executable, "-c", runner], capture_output=True, text=True, timeout=120,
                       cwd=str(__import__("pathlib").Path(__file__).resolve().parents[1]))
    assert p.stdout.split() == ["130", "backslashreplace"], (p.stdout, p.stderr)
    assert p.stderr.strip() == "plgraph: interrupted"
