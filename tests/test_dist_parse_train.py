"""Dask: ``parse`` / ``parser evaluate`` on Dask give the serial run's output, and
training through :func:`plgraph.learn.loop.train_epochs` with a client gives the serial
run's weights (bitwise for PA; to 1e-12 for AdaGrad, whose lazy catch-up is split at other
points: :mod:`plgraph.learn.replicas`).  A ``LocalCluster`` of 2 worker processes is started
inside the tests (``dask_cluster`` in conftest.py)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed", reason="Dask's distributed is not installed: pip install 'plgraph[dist]'")

from conftest import worker_pids  # noqa: E402

from plgraph.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def quick_model(sample_dir):
    from plgraph.parser.notebook_model import notebook_parser

    return notebook_parser(quick=True, log=None)


@pytest.fixture(scope="module")
def dev_file(sample_dir, tmp_path_factory):
    """wsj_0150 and wsj_0152 of the sample's dev split (16 sentences of 5-32 words),
    concatenated: real PTB input."""
    out = tmp_path_factory.mktemp("input") / "dev2.mrg"
    out.write_text("".join((sample_dir / f"wsj_{k:04d}.mrg").read_text() for k in (150, 152)))
    return out


@pytest.fixture(scope="module")
def serial_parse(quick_model, dev_file, tmp_path_factory):
    """The serial run's output file and stderr, the reference of every Dask run here."""
    import contextlib
    import io

    out = tmp_path_factory.mktemp("serial") / "serial.mrg"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["parse", "--model-dir", str(quick_model), str(dev_file), "--out", str(out)]) == 0
    return out, err.getvalue()


def _run(argv, capsys):
    rc = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _report_lines(err: str) -> list[str]:
    """stderr lines about sentences (not the timing line, which differs run to run)."""
    return [ln for ln in err.splitlines() if "fallback parse for" in ln or "not parsed by pass 3" in ln
            or "skipped unreadable" in ln]


# -- parse --------------------------------------------------------------------------------------
def test_parse_on_dask_is_byte_identical_to_the_serial_run(quick_model, dev_file, serial_parse, sample_dir,
                                                           dask_cluster, tmp_path, capsys):
    cluster, _ = dask_cluster
    (serial, err_s), dist = serial_parse, tmp_path / "dist.mrg"
    rc, _, err_d = _run(["parse", "--model-dir", quick_model, dev_file, "--out", dist, "--chunk-size", "5",
                         f"--dask={cluster.scheduler_address}"], capsys)
    assert rc == 0, err_d
    text = serial.read_text()
    assert len(text.splitlines()) == 16
    assert dist.read_bytes() == serial.read_bytes()
    assert _report_lines(err_d) == _report_lines(err_s)
    assert "4 chunk(s) computed on 2 Dask worker(s)" in err_d
    assert not Path(str(dist) + ".chunks").exists()
    # SHP output and --to/--root travel to the workers too (the last 7 sentences: wsj_0152)
    one = sample_dir / "wsj_0152.mrg"
    rc, out_s, _ = _run(["parse", "--model-dir", quick_model, one, "--to", "shp", "--root", "ROOT"], capsys)
    rc2, out_d, _ = _run(["parse", "--model-dir", quick_model, one, "--to", "shp", "--root", "ROOT",
                          "--chunk-size", "4", f"--dask={cluster.scheduler_address}"], capsys)
    assert rc == rc2 == 0 and out_d == out_s and out_s.count("# Sentence") == 7


def test_parse_on_dask_survives_a_killed_worker(quick_model, dev_file, serial_parse, dask_cluster, tmp_path, capsys):
    """SIGKILL one worker process once the first chunk is on disk: its chunks run again
    elsewhere and the output is still the serial run's."""
    import threading

    cluster, client = dask_cluster
    (serial, _), dist = serial_parse, tmp_path / "dist.mrg"
    before = worker_pids(client)
    killed = []

    def killer():
        state = Path(str(dist) + ".chunks")
        deadline = time.time() + 120
        while time.time() < deadline:
            if state.is_dir() and any(p.name.startswith("chunk-") for p in state.iterdir()):
                pid = sorted(before.values())[0]
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.01)

    t = threading.Thread(target=killer)
    t.start()
    rc, _, err = _run(["parse", "--model-dir", quick_model, dev_file, "--out", dist, "--chunk-size", "1",
                       f"--dask={cluster.scheduler_address}"], capsys)
    t.join()
    assert rc == 0, err
    assert killed, "no chunk was finished before the run ended"
    assert dist.read_bytes() == serial.read_bytes()
    client.wait_for_workers(2, timeout=60)          # the nanny restarts the killed worker
    assert killed[0] not in worker_pids(client).values()


def test_killed_driver_resumes_and_redoes_only_unfinished_chunks(quick_model, dev_file, serial_parse, dask_cluster,
                                                                  tmp_path, capsys):
    cluster, _ = dask_cluster
    (serial, _), dist = serial_parse, tmp_path / "dist.mrg"
    state = Path(str(dist) + ".chunks")
    cmd = [sys.executable, "-m", "plgraph", "parse", "--model-dir", str(quick_model), str(dev_file), "--out",
           str(dist), "--chunk-size", "1", f"--dask={cluster.scheduler_address}"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 180
    while time.time() < deadline and proc.poll() is None:
        if state.is_dir() and sum(p.name.startswith("chunk-") for p in state.iterdir()) >= 3:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be killed: " + proc.stderr.read().decode()
    proc.kill()
    proc.wait()
    assert not dist.exists()
    done = sum(p.name.startswith("chunk-") for p in state.iterdir())
    n_chunks = json.loads((state / "job.json").read_text())["chunks"]
    assert 3 <= done < n_chunks
    # without --resume the finished chunks are not thrown away: a clear error
    rc, _, err = _run(cmd[3:], capsys)
    assert rc == 2 and "--resume" in err and "unfinished run" in err
    rc, _, err = _run(cmd[3:] + ["--resume"], capsys)
    assert rc == 0, err
    line = next(ln for ln in err.splitlines() if "resuming:" in ln)
    k = int(line.split("resuming: ")[1].split(" of ")[0])
    assert k >= done
    assert f"{n_chunks - k} chunk(s) computed on 2 Dask worker(s), {k} reused from an earlier run" in err
    assert dist.read_bytes() == serial.read_bytes()
    assert not state.exists()


@pytest.mark.slow        # ~75 s on 2 cores; make check-full (the byte-identical parse on Dask stays in make test)
def test_evaluate_on_dask_gives_the_serial_scores(quick_model, dask_cluster, tmp_path, capsys):
    cluster, _ = dask_cluster
    out = {}
    for name, extra in (("serial", []), ("dask", ["--chunk-size", "4", f"--dask={cluster.scheduler_address}"])):
        rc, text, err = _run(["parser", "evaluate", "--model-dir", quick_model, "--split", "dev", "--limit", "30",
                              "--no-ceiling", "--json", tmp_path / f"{name}.json", "--trees",
                              tmp_path / f"{name}.mrg", *extra], capsys)
        assert rc == 0, err
        out[name] = json.loads((tmp_path / f"{name}.json").read_text())
    assert (tmp_path / "dask.mrg").read_bytes() == (tmp_path / "serial.mrg").read_bytes()
    s, d = out["serial"], out["dask"]
    assert d["dask_workers"] == 2
    for key in ("scores", "statuses", "failed", "not_pass3", "baseline", "oracle"):
        assert d[key] == s[key], key
    assert s["scores"]["all"]["evalb_top"]["all"]["f1"] > 30


def test_dask_options_are_checked(quick_model, dev_file, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:       # a file name is not taken for a scheduler address
        main(["parse", "--model-dir", str(quick_model), "--dask", str(dev_file)])
    assert exc.value.code == 2 and "not a scheduler address" in capsys.readouterr().err
    rc, _, err = _run(["parse", "--model-dir", quick_model, dev_file, "--resume"], capsys)
    assert rc == 2 and "--dask" in err


# -- training -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ewt_slice(ewt_dir):
    from plgraph.dep.conll import read_conll

    return read_conll(ewt_dir / "en_ewt-ud-train.conllu")[:160]


def _checkpoint_arrays(folder: Path) -> dict:
    doc = json.loads((folder / "checkpoint.json").read_text())
    with np.load(folder / doc["npz"]) as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize("learner", ["pa", "adagrad"])
def test_dep_train_on_two_workers_equals_one_process(ewt_slice, dask_cluster, tmp_path, learner):
    """One epoch of ``dep train`` on a slice, 1 process vs 2 workers: the learner's whole
    state (float64 weights, averages / AdaGrad's q and time stamps) after the epoch."""
    from plgraph.dep.train import train

    _, client = dask_cluster
    runs = {}
    for name, cl in (("one", None), ("two", client)):
        folder = tmp_path / name
        res = train(ewt_slice, None, folder, learner=learner, epochs=1, batch_size=8, threads=1,
                    prune_tolerance=None, client=cl)
        runs[name] = (_checkpoint_arrays(folder), res.history[-1])
    (a, ra), (b, rb) = runs["one"], runs["two"]
    assert set(a) == set(b) and "learner_w" in a
    assert np.count_nonzero(a["learner_w"]) > 10_000
    if learner == "pa":
        for key in a:
            assert np.array_equal(a[key], b[key]), key          # bitwise
    else:
        for key in a:
            np.testing.assert_allclose(b[key], a[key], rtol=0, atol=1e-12, err_msg=key)
        # the same summed gradients: AdaGrad's squared sums and time stamps are bitwise equal
        assert np.array_equal(a["learner_u"], b["learner_u"]) and np.array_equal(a["learner_q"], b["learner_q"])
    assert ra["loss"] == rb["loss"] and ra["train_errors_pct"] == rb["train_errors_pct"]
    assert ra["updates"] == rb["updates"] == 20


def test_replicas_hold_the_drivers_weights(ewt_slice, dask_cluster, monkeypatch):
    """After an epoch every worker's replica equals the driver's learner: only sparse
    gradients went out, and each replica applied every one of them.  The driver checks on
    its workers every 1 ms here (5 s normally), so every batch outlasts a check: a long
    batch is waited for, not an error."""
    import plgraph.learn.replicas as T

    monkeypatch.setattr(T, "_POLL", 0.001)
    from plgraph.dep.model import DepConfig, DepModel
    from plgraph.dep.train import _BatchDecoder
    from plgraph.learn.replicas import ReplicatedDecoder
    from plgraph.learn.learners import make_learner
    from plgraph.learn.online import run_epoch

    import functools

    _, client = dask_cluster
    model, enc, _ = DepModel.build(ewt_slice, DepConfig())
    lrn = make_learner("adagrad", model.n_weights, eta=0.1, C=1e-6, reg="l1")
    with ReplicatedDecoder(client, functools.partial(_BatchDecoder, model, enc, loss="hamming"), lrn) as rep:
        run_epoch(lrn, len(enc), rep.batch_gradient, batch_size=8, rng=np.random.default_rng(3))
        counters = rep.take_counters()
        weights = rep.replica_weights()
    assert counters["words"] == int(enc.n.sum())
    mine = lrn.final_weights(np.float64)
    assert len(weights) == 2 and np.count_nonzero(mine) > 10_000
    for w in weights:
        np.testing.assert_allclose(w, mine, rtol=0, atol=1e-12)


def test_pruners_train_on_dask_equals_one_process(sample_dir, dask_cluster, tmp_path):
    """``train_pruners(client=...)`` (what ``pruners train --dask`` runs): the three coarse
    models of a small slice, their checkpoints against one process's (AdaGrad: to 1e-12)."""
    import plgraph
    from plgraph.pruners.model import PrunerConfig
    from plgraph.pruners.training import train_pruners

    _, client = dask_cluster
    train = [s.graph for s in plgraph.corpus("train").sentences()[:80]]
    dev = [s.graph for s in plgraph.corpus("dev").sentences()[:20]]
    cfg = PrunerConfig(threads=1, spine_epochs=1, trace_epochs=1, arc_epochs=1)
    for name, cl in (("one", None), ("two", client)):
        train_pruners(train, dev, tmp_path / name, cfg, client=cl)
    for rel in ("checkpoint-spine.json", "checkpoint-trace.json", "arc/checkpoint.json"):
        docs = [json.loads((tmp_path / n / rel).read_text()) for n in ("one", "two")]
        arrays = []
        for n, doc in zip(("one", "two"), docs):
            with np.load(tmp_path / n / Path(rel).parent / doc["npz"]) as z:
                arrays.append({k: z[k] for k in z.files})
        assert set(arrays[0]) == set(arrays[1])
        w = "learner_w" if "learner_w" in arrays[0] else "w"
        assert np.count_nonzero(arrays[0][w]) > 100, rel
        for key in arrays[0]:
            np.testing.assert_allclose(arrays[1][key], arrays[0][key], rtol=0, atol=1e-12, err_msg=f"{rel} {key}")


def _peak_rss_bytes() -> int:
    """This process's peak resident set size (on a worker: through ``client.run``)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@pytest.mark.slow        # ~85 s on 2 cores; make check-full (the replicas' training on Dask stays in make test)
def test_parser_train_cli_on_dask_equals_one_process(sample_dir, dask_cluster, tmp_path, capsys):
    """``parser train --dask`` (passes 2 and 3 of the quick configuration, on the quick
    coarse models): both passes' learner checkpoints against one process's (AdaGrad: to
    1e-12), and the counters the replicas report (search errors, mismatches, ...) equal;
    the workers read the prepared sentences from the model folder's shards (removed at
    the end) and stay within 4 GB."""
    from plgraph.parser.notebook_model import QUICK_LIMIT, QUICK_MAX_WORDS
    from plgraph.pruners.notebook import notebook_models, notebook_models_folder

    cluster, client = dask_cluster
    notebook_models(quick=True, log=None)
    base = ["parser", "train", "--pruners", notebook_models_folder(True), "--no-progress", "--threads", "1",
            "--limit", QUICK_LIMIT, "--max-words", QUICK_MAX_WORDS, "--bits2", "18", "--bits3", "18", "--epochs2", "1",
            "--epochs3", "1", "--trace-bias3", "0"]        # no tuning on dev: it runs in the driver either way
    for name, extra in (("one", []), ("two", [f"--dask={cluster.scheduler_address}"])):
        rc, _, err = _run(base + ["--model-dir", tmp_path / name, *extra], capsys)
        assert rc == 0, err
        assert not (tmp_path / name / "prepared").exists()        # the shards the workers read, removed
    peaks = client.run(_peak_rss_bytes)
    assert len(peaks) == 2 and all(0 < v < 4e9 for v in peaks.values()), peaks
    for stem in ("checkpoint-pass2", "checkpoint-pass3"):
        docs = [json.loads((tmp_path / n / f"{stem}.json").read_text()) for n in ("one", "two")]
        arrays = []
        for n, doc in zip(("one", "two"), docs):
            with np.load(tmp_path / n / doc["npz"]) as z:
                arrays.append({k: z[k] for k in z.files})
        assert np.count_nonzero(arrays[0]["w"]) > 1000, stem
        for key in arrays[0]:
            np.testing.assert_allclose(arrays[1][key], arrays[0][key], rtol=0, atol=1e-12, err_msg=f"{stem} {key}")
        (r1,), (r2,) = docs[0]["curves"], docs[1]["curves"]
        for key in ("sentences", "search_errors", "mismatches", "failed", "not_derivable", "updates"):
            assert r1[key] == r2[key], (stem, key)
        assert r1["sentences"] == QUICK_LIMIT and r1["mismatches"] == 0


def test_a_worker_lost_during_training_stops_the_run_with_a_clear_error(ewt_slice, dask_cluster):
    """SIGKILL a worker holding a replica: the next batch raises ReplicaLostError naming
    it (the replica and its weights are gone; the run must not hang or go on without it)."""
    import functools

    from plgraph.dep.model import DepConfig, DepModel
    from plgraph.dep.train import _BatchDecoder
    from plgraph.learn.replicas import ReplicaLostError, ReplicatedDecoder
    from plgraph.learn.learners import make_learner

    _, client = dask_cluster
    client.wait_for_workers(2, timeout=60)
    model, enc, _ = DepModel.build(ewt_slice[:40], DepConfig())
    lrn = make_learner("pa", model.n_weights)
    rep = ReplicatedDecoder(client, functools.partial(_BatchDecoder, model, enc, loss="hamming"), lrn)
    try:
        lrn.step(rep.batch_gradient(np.arange(8)))
        pids = worker_pids(client)
        victim = rep.workers[0]
        os.kill(pids[victim], signal.SIGKILL)
        start = time.time()
        with pytest.raises(ReplicaLostError, match="left the cluster during training") as exc:
            for _ in range(100):
                lrn.step(rep.batch_gradient(np.arange(8, 16)))
        assert victim in str(exc.value) and "--resume" in str(exc.value)
        assert time.time() - start < 60
    finally:
        rep.close()
        client.wait_for_workers(2, timeout=60)
