"""``--dask [ADDRESS]`` on the corpus commands ``dep parse``, ``convert`` and ``coverage``:
the distributed run's output (and its report of skipped sentences and
warnings) is byte-identical to the serial run's; a worker killed mid-run changes nothing;
a driver killed mid-run continues with ``--resume`` from the chunks kept in
``OUT.chunks/``; without Dask installed ``--dask`` is a clear error and everything else
works.

Small slices only (a few sample files, a dependency model with random weights built from
150 EWT sentences), on the session's 2-worker cluster (``dask_cluster``)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from plgraph.cli import main

REPO = Path(__file__).resolve().parent.parent

#: a PTB file with two unreadable trees among three good ones (the reader skips them)
BAD_MRG = ("((S (NP (NN a)) (VP (VB b))))\n((S (NP (NN x)) (VP (VB y)))))\n((S (NP (NN ok)) (VP (VB go))))\n"
           "((S (NN)))\n((S (NP (NN c)) (VP (VB d))))\n")
#: trees of ``mrg_dir`` that can be read: 3 + 185 + 2 + 58 + 4 (bad.mrg) + 1
N_TREES = 253
#: the sample sentences that carry conversion warnings (skipped with --strict)
WARNED = ["wsj_0005.0", "wsj_0118.55", "wsj_0118.69", "wsj_0137.50"]


def report(err: str) -> list[str]:
    """The lines of a run's stderr that report on the input: skipped sentences (with
    the lines listing them) and warnings -- not timings or the Dask summary."""
    keep = ("plgraph convert: warning:", "plgraph convert: skipped", "plgraph dep: skipped", "  ")
    return [line for line in err.splitlines() if line.startswith(keep)]


def chunk_files(state: Path) -> list[str]:
    try:
        return sorted(n for n in os.listdir(state) if re.fullmatch(r"chunk-\d+\.json", n))
    except FileNotFoundError:
        return []


@pytest.fixture(scope="module")
def mrg_dir(tmp_path_factory, sample_dir) -> Path:
    """A folder of .mrg files in subfolders (and a .txt file that is not read): three
    sample files with conversion warnings, two without, and one with unreadable trees."""
    root = tmp_path_factory.mktemp("mrg")
    layout = {"a": ["wsj_0005", "wsj_0118"], "b": ["wsj_0137"], "b/c": ["wsj_0001"], ".": ["wsj_0002"]}
    for sub, names in layout.items():
        (root / sub).mkdir(parents=True, exist_ok=True)
        for name in names:
            (root / sub / f"{name}.mrg").symlink_to(sample_dir / f"{name}.mrg")
    (root / "bad.mrg").write_text(BAD_MRG)
    (root / "notes.txt").write_text("not a treebank file\n")
    return root


@pytest.fixture(scope="module")
def many_mrg(tmp_path_factory, sample_dir) -> Path:
    """120 sample files in one folder (for runs of many one-file tasks)."""
    root = tmp_path_factory.mktemp("many")
    for f in sorted(sample_dir.glob("wsj_*.mrg"))[:120]:
        (root / f.name).symlink_to(f)
    return root


@pytest.fixture(scope="module")
def dep_setup(tmp_path_factory, ewt_dir):
    """``(model folder, input file)``: a dependency model built from 150 EWT training
    sentences with random weights (deterministic parses, no training), and 60 EWT dev
    sentences followed by one bad sentence."""
    from plgraph.dep.conll import format_conll, read_conll
    from plgraph.dep.model import DepConfig, DepModel

    root = tmp_path_factory.mktemp("dep")
    model, _, _ = DepModel.build(read_conll(ewt_dir / "en_ewt-ud-train.conllu")[:150], DepConfig(order=1))
    model.weights[:] = np.random.default_rng(0).normal(size=model.n_weights)
    model.save(root / "model")
    inp = root / "in.conllu"
    inp.write_text(format_conll(read_conll(ewt_dir / "en_ewt-ud-dev.conllu")[:60])
                   + "1\tA\ta\tX\tX\t_\t_\t_\t_\t_\n\n1\tB\n\n", encoding="utf-8")
    return root / "model", inp


def run(argv, capsys) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


# -- serial == --dask ------------------------------------------------------------------------
def test_convert_folder_serial_is_the_files_in_path_order(mrg_dir, capsys):
    """A folder converts as its .mrg files one by one, in relative-path order, into one
    output; the report names file and sentence."""
    rc, folder_out, err = run(["convert", mrg_dir, "--to", "shp"], capsys)
    assert rc == 0
    order = ["a/wsj_0005.mrg", "a/wsj_0118.mrg", "b/c/wsj_0001.mrg", "b/wsj_0137.mrg", "bad.mrg", "wsj_0002.mrg"]
    parts = []
    for rel in order:
        rc, out, _ = run(["convert", mrg_dir / rel, "--to", "shp"], capsys)
        assert rc == 0
        parts.append(out)
    assert folder_out == "".join(parts)
    ids = re.findall(r"^# SentID (\S+)", folder_out, re.M)
    assert ids[:2] == ["wsj_0005.0", "wsj_0005.1"] and ids[-1].startswith("wsj_0002.")
    assert [i for i in ids if i.startswith("bad.")] == ["bad.0", "bad.1", "bad.2", "bad.4"]
    assert len(ids) == N_TREES
    lines = report(err)
    assert [re.search(r"sentence (\S+):", x).group(1) for x in lines if "warning" in x] == WARNED
    assert f"plgraph convert: warning: {mrg_dir / 'a/wsj_0118.mrg'}, sentence wsj_0118.55:" in err
    assert f"plgraph convert: skipped 2 sentence(s) of {mrg_dir}:" in lines
    assert f"  bad.3 ({mrg_dir / 'bad.mrg'}:4): empty constituent (NN)" in lines


@pytest.mark.parametrize("extra", [[], ["--strict"]])
def test_convert_dask_equals_serial(dask_cluster, mrg_dir, tmp_path, capsys, monkeypatch, extra):
    """Output bytes and the skipped/warning report are the serial run's -- with a
    relative input folder (workers read absolute paths, reports use the given name)."""
    cluster, _ = dask_cluster
    monkeypatch.chdir(mrg_dir.parent)
    rel = mrg_dir.name
    rc, serial_out, serial_err = run(["convert", rel, "--to", "shp", *extra], capsys)
    assert rc == 0
    rc, dask_out, dask_err = run(["convert", rel, "--to", "shp", *extra, "--dask", cluster.scheduler_address,
                                  "--chunk-size", "2"], capsys)
    assert rc == 0
    assert dask_out == serial_out
    assert len(re.findall(r"^# SentID ", dask_out, re.M)) == N_TREES - (len(WARNED) if extra else 0)
    assert report(dask_err) == report(serial_err)
    n_skipped = 2 + (len(WARNED) if extra else 0)
    assert f"plgraph convert: skipped {n_skipped} sentence(s) of {rel}:" in report(dask_err)
    assert f"  bad:2 ({rel}/bad.mrg:2): unbalanced ')' outside any tree" in report(dask_err)
    assert sum("warning" in x for x in report(dask_err)) == (0 if extra else len(WARNED))
    assert "plgraph convert: 3 chunk(s) computed on 2 Dask worker(s)" in dask_err   # 6 .mrg files, 2 a chunk
    # to a file: the same bytes, the state folder gone afterwards
    out = tmp_path / "out.shp"
    rc, _, err = run(["convert", rel, "--to", "shp", *extra, "--out", out, "--dask", cluster.scheduler_address],
                     capsys)
    assert rc == 0 and out.read_text(encoding="utf-8") == serial_out
    assert not Path(f"{out}.chunks").exists()


def test_coverage_dask_equals_serial(dask_cluster, sample_dir, tmp_path, capsys):
    """``coverage --ptb DIR --dask``: the same JSON bytes and the same printed tables
    (skipped list included: unreadable trees first, then unconvertible ones)."""
    cluster, _ = dask_cluster
    ptb = tmp_path / "wsj"
    for section, names in {"00": ["wsj_0001", "wsj_0005", "wsj_0118"], "01": ["wsj_0002", "wsj_0137"]}.items():
        (ptb / section).mkdir(parents=True)
        for name in names:
            (ptb / section / f"{name}.mrg").symlink_to(sample_dir / f"{name}.mrg")
    (ptb / "01" / "bad.mrg").write_text(BAD_MRG)
    common = ["coverage", "--ptb", ptb, "--strict", "--no-progress"]
    rc, serial_out, _ = run(common + ["--json", tmp_path / "serial.json"], capsys)
    assert rc == 0
    rc, dask_out, dask_err = run(common + ["--json", tmp_path / "dask.json", "--dask", cluster.scheduler_address,
                                           "--chunk-size", "2"], capsys)
    assert rc == 0
    serial_json = (tmp_path / "serial.json").read_bytes()
    assert (tmp_path / "dask.json").read_bytes() == serial_json
    doc = json.loads(serial_json)
    skipped = doc["skipped"]
    assert len(skipped) == 2 + len(WARNED)
    assert skipped[0].startswith("bad:2 (") and skipped[1].startswith("bad.3 (")
    assert [s.split()[0] for s in skipped[2:]] == WARNED
    assert doc["n_sentences"] == N_TREES - len(WARNED)
    assert sum(r["acyclic_n"] + r["cyclic_n"] for r in doc["structure_table"]) == doc["n_sentences"]

    def tables(out):   # the header line carries the seconds, the last one the JSON's name
        lines = out.splitlines()
        assert lines[0].startswith(f"# {ptb}, split all: {doc['n_sentences']} sentences from 6 files (")
        return lines[1:-1]

    assert tables(dask_out) == tables(serial_out) and "Skipped 6 sentence(s):" in dask_out
    assert "plgraph coverage: 3 chunk(s) computed on 2 Dask worker(s)" in dask_err
    assert not (tmp_path / "dask.json.chunks").exists()


def test_dep_parse_dask_equals_serial(dask_cluster, dep_setup, tmp_path, capsys):
    """``dep parse --dask``: the same CoNLL bytes (stdout and --out), the bad input
    sentence skipped and listed the same way."""
    cluster, _ = dask_cluster
    model, inp = dep_setup
    rc, serial_out, serial_err = run(["dep", "parse", inp, "--model", model], capsys)
    assert rc == 0
    rc, dask_out, dask_err = run(["dep", "parse", inp, "--model", model, "--dask", cluster.scheduler_address,
                                  "--chunk-size", "7"], capsys)
    assert rc == 0
    assert dask_out == serial_out and serial_out.count("\n\n") == 61   # the "A" sentence without heads parses
    assert report(dask_err) == report(serial_err) == [
        f"plgraph dep: skipped 1 bad sentence(s) of input file {inp}:",
        f"  in.61 ({inp}:{serial_out.count(chr(10)) + 1}): expected 10 tab-separated fields, found 2"]
    assert "plgraph dep parse: 9 chunk(s) computed on 2 Dask worker(s)" in dask_err
    out = tmp_path / "out.conllu"
    rc, _, _ = run(["dep", "parse", inp, "--model", model, "--out", out, "--dask", cluster.scheduler_address], capsys)
    assert rc == 0 and out.read_text(encoding="utf-8") == serial_out
    assert not Path(f"{out}.chunks").exists()


def test_local_cluster_without_address(mrg_dir, capsys):
    """A bare ``--dask`` starts (and stops) a LocalCluster on this machine."""
    pytest.importorskip("distributed")
    src = mrg_dir / "a" / "wsj_0005.mrg"
    rc, serial_out, _ = run(["convert", src, "--to", "ptb"], capsys)
    assert rc == 0
    rc, dask_out, dask_err = run(["convert", src, "--to", "ptb", "--dask", "--workers", "1"], capsys)
    assert rc == 0 and dask_out == serial_out and serial_out.count("\n") == 3 and serial_out.startswith("(")
    assert "plgraph convert: 1 chunk(s) computed on 1 Dask worker(s)" in dask_err


# -- faults ----------------------------------------------------------------------------------
def _driver(argv) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "plgraph", *map(str, argv)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_chunk(state: Path, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not chunk_files(state):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no chunk finished in time"
        time.sleep(0.005)


def _convert_job(dask_cluster, many_mrg, tmp_path, capsys):
    """``(serial stdout, serial stderr, OUT, OUT.chunks, argv)``: the serial conversion of
    ``many_mrg`` to SHP, and the ``--dask`` run writing ``OUT`` in one-file chunks."""
    cluster, client = dask_cluster
    client.wait_for_workers(2, timeout=60)
    rc, serial_out, serial_err = run(["convert", many_mrg, "--to", "shp"], capsys)
    assert rc == 0
    out = tmp_path / "out.shp"
    argv = ["convert", many_mrg, "--to", "shp", "--out", out, "--dask", cluster.scheduler_address,
            "--chunk-size", "1", "--no-progress"]
    return serial_out, serial_err, out, Path(f"{out}.chunks"), argv


def test_worker_killed_mid_run_changes_nothing(dask_cluster, many_mrg, tmp_path, capsys):
    """SIGKILL one worker once the first of 120 one-file chunks is done: its chunks run
    again elsewhere and the output is still the serial run's."""
    cluster, client = dask_cluster
    serial_out, serial_err, out, state, argv = _convert_job(dask_cluster, many_mrg, tmp_path, capsys)
    proc = _driver(argv)
    try:
        _wait_for_chunk(state, proc)
        pids = client.run(os.getpid)
        victim = sorted(pids.values())[0]
        os.kill(victim, signal.SIGKILL)
        done_at_kill = len(chunk_files(state))
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert done_at_kill < 120                     # killed mid-run
    assert proc.returncode == 0, err
    assert out.read_text(encoding="utf-8") == serial_out
    assert report(err) == report(serial_err)
    assert sum("warning" in x for x in report(err)) == 3     # of WARNED, wsj_0137 is not among the 120 files
    assert not state.exists()
    client.wait_for_workers(2, timeout=60)       # the nanny restarts the killed worker
    assert victim not in client.run(os.getpid).values()


def test_driver_killed_then_resume(dask_cluster, many_mrg, tmp_path, capsys):
    """SIGKILL the driver once a chunk is kept on disk: rerun without --resume is refused
    (exit 2), with --resume only the missing chunks are computed, the output is the
    serial run's and the state folder is removed."""
    serial_out, serial_err, out, state, argv = _convert_job(dask_cluster, many_mrg, tmp_path, capsys)
    proc = _driver(argv)
    try:
        _wait_for_chunk(state, proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert not out.exists() and (state / "job.json").is_file()
    kept = len(chunk_files(state))
    assert 1 <= kept < 120

    rc, _, err = run(argv, capsys)                # no --resume: refused, nothing touched
    assert rc == 2 and "add --resume to continue it" in err and str(state) in err
    assert not out.exists() and len(chunk_files(state)) == kept

    rc, _, err = run(argv + ["--resume"], capsys)
    assert rc == 0, err
    m = re.search(r"plgraph convert: resuming: (\d+) of (\d+) chunks are done already", err)
    assert m and int(m.group(1)) == kept and int(m.group(2)) == 120
    assert f"plgraph convert: {120 - int(m.group(1))} chunk(s) computed on 2 Dask worker(s), {m.group(1)} reused" in err
    assert out.read_text(encoding="utf-8") == serial_out
    assert report(err) == report(serial_err)
    assert not state.exists()


def test_resume_needs_dask_and_an_output_file(mrg_dir, tmp_path, capsys):
    rc, _, err = run(["convert", mrg_dir, "--to", "shp", "--resume", "--out", tmp_path / "o.shp"], capsys)
    assert rc == 2 and "--resume continues an interrupted --dask run" in err
    rc, _, err = run(["convert", mrg_dir, "--to", "shp", "--resume", "--dask", "tcp://127.0.0.1:1"], capsys)
    assert rc == 2 and "--resume needs --out" in err
    rc, _, err = run(["coverage", "--resume", "--dask=tcp://127.0.0.1:1"], capsys)
    assert rc == 2 and "--resume needs --json" in err
    assert not (tmp_path / "o.shp").exists()


def test_dask_missing_is_a_clear_error(mrg_dir, dep_setup, tmp_path, capsys, monkeypatch):
    """Without ``distributed`` importable, ``--dask`` fails with how to install it
    (exit 2, no output written); the serial runs work as before."""
    monkeypatch.setitem(sys.modules, "distributed", None)
    model, inp = dep_setup
    out = tmp_path / "o.txt"
    for argv in (["convert", mrg_dir, "--to", "shp", "--out", out, "--dask"],
                 ["dep", "parse", inp, "--model", model, "--out", out, "--dask"],
                 ["coverage", "--split", "dev", "--dask"]):
        rc, _, err = run(argv, capsys)
        assert rc == 2, argv
        assert "--dask needs Dask's distributed scheduler, which is not installed: pip install 'plgraph[dist]'" in err
        assert not out.exists()
    rc, _, _ = run(["convert", mrg_dir, "--to", "ptb", "--out", out], capsys)
    assert rc == 0 and out.read_text().count("\n") == N_TREES
