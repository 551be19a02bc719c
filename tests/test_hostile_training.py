"""Interrupted and colliding training runs:
a model folder has one writer at a time (a second one fails at once naming the pid, a
dead run's lock is taken over), ``--resume`` refuses other options and prints the
stored ones, a log line lost to a kill comes back from the checkpoint, killed runs'
temporaries are cleaned, bad numbers are argparse errors, an unwritable folder is
reported before training, and Ctrl-C gives "interrupted" (exit 130), never a traceback."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from plgraph.cli import main
from plgraph.errors import InputError
from plgraph.files.lock import LOCK_NAME, FolderLock, FolderLockedError, folder_lock, held_by

from test_hostile_models import conllu

pytestmark = pytest.mark.timeout(900)  # module fixtures include first-call numba compilation (the dependency
# trainer's parallel kernels: about 5 minutes in a fresh clone on two loaded cores)
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    base = tmp_path_factory.mktemp("data")
    (base / "train.conllu").write_text(conllu(30, 11))
    (base / "dev.conllu").write_text(conllu(8, 12))
    return base


def _train_args(data, model, *extra):
    return ["dep", "train", "--train", str(data / "train.conllu"), "--dev", str(data / "dev.conllu"), "--model",
            str(model), "--threads", "1", "--no-progress", *extra]


def _run(argv, capsys):
    rc = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait(timeout=30)
    return p.pid


def _lines(path):
    return [json.loads(x) for x in Path(path).read_text().splitlines()]


# -- the lock ----------------------------------------------------------------------------------
def test_lock_basics(tmp_path):
    folder = tmp_path / "m"
    with folder_lock(folder) as lock:
        assert (folder / LOCK_NAME).read_text().strip() == str(os.getpid())
        assert held_by(folder) == os.getpid()
        with pytest.raises(FolderLockedError, match=rf"model folder {folder} is in use by process {os.getpid()}"):
            FolderLock(folder).acquire()
        with folder_lock(folder, reentrant=True) as again:     # nested use in the same process
            assert again is lock
    assert not (folder / LOCK_NAME).exists() and held_by(folder) is None
    with folder_lock(folder):      # free again
        pass


def test_stale_lock_of_dead_process_is_taken_over(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / LOCK_NAME).write_text(f"{_dead_pid()}\n")
    assert held_by(folder) is None
    with folder_lock(folder):
        assert (folder / LOCK_NAME).read_text().strip() == str(os.getpid())


def test_lock_of_a_killed_process_is_released(tmp_path):
    folder = tmp_path / "m"
    code = ("import sys, time; from plgraph.files.lock import folder_lock\n"
            f"with folder_lock({str(folder)!r}):\n    print('locked', flush=True); time.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert p.stdout.readline().strip() == "locked"
        assert held_by(folder) == p.pid
        with pytest.raises(FolderLockedError, match=f"in use by process {p.pid}"):
            FolderLock(folder).acquire()
    finally:
        p.kill()
        p.wait(timeout=30)
    assert held_by(folder) is None          # the kernel dropped the flock; the file stays, stale
    with folder_lock(folder):
        pass


def test_second_dep_train_into_a_folder_fails_at_once(data, tmp_path, capsys):
    """A concurrent run (another process holds the lock) is refused before any work; the
    first run's files are untouched."""
    model = tmp_path / "m"
    assert _run(_train_args(data, model, "--epochs", "1"), capsys)[0] == 0
    before = {p.name: p.read_bytes() for p in model.iterdir()}
    code = ("import time; from plgraph.files.lock import folder_lock\n"
            f"with folder_lock({str(model)!r}):\n    print('locked', flush=True); time.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert p.stdout.readline().strip() == "locked"
        start = time.perf_counter()
        rc, err = _run(_train_args(data, model, "--epochs", "2"), capsys)
        assert rc == 2 and time.perf_counter() - start < 5
        assert f"plgraph dep: error: model folder {model} is in use by process {p.pid}" in err
        assert "training sentences" not in err
    finally:
        p.kill()
        p.wait(timeout=30)
    assert {p.name: p.read_bytes() for p in model.iterdir() if p.name != LOCK_NAME} == before


def test_pruners_train_is_locked_too(tmp_path, capsys):
    folder = tmp_path / "p"
    with folder_lock(folder):
        rc, err = _run(["pruners", "train", "--model-dir", str(folder)], capsys)
    assert rc == 2 and f"pruner model folder {folder} is in use by process {os.getpid()}" in err
    assert "training on" not in err


# -- resume --------------------------------------------------------------------------------------
@pytest.fixture
def trained(data, tmp_path, capsys):
    model = tmp_path / "m"
    assert _run(_train_args(data, model, "--epochs", "2"), capsys)[0] == 0
    return model


@pytest.mark.parametrize("options, conflict", [
    (["--order", "2"], "--order 2 (checkpoint: 1)"),
    (["--learner", "adagrad"], "--learner adagrad (checkpoint: pa)"),
    (["--C", "0.5"], "--C 0.5 (checkpoint: None)"),
    (["--eta", "0.5"], "--eta 0.5 (the checkpoint's pa learner has no eta)"),
    (["--batch-size", "3"], "--batch-size 3 (checkpoint: 8)"),
    (["--seed", "4"], "--seed 4 (checkpoint: 0)"),
    (["--root", "multi"], "--root multi (checkpoint: auto)"),
])
def test_resume_refuses_other_options(data, trained, capsys, options, conflict):
    before = {p.name: p.read_bytes() for p in trained.iterdir()}
    rc, err = _run(_train_args(data, trained, "--epochs", "3", "--resume", *options), capsys)
    assert rc == 2 and "cannot resume with options other than the checkpoint's" in err and conflict in err
    assert ("was trained with: --order 1 --root auto --pseudo-projective head --label-constraint pos --learner pa "
            "--batch-size 8 --seed 0") in err
    assert {p.name: p.read_bytes() for p in trained.iterdir()} == before


def test_resume_with_the_same_options_and_the_real_epochs(data, trained, capsys):
    rc, err = _run(_train_args(data, trained, "--epochs", "3", "--resume", "--order", "1", "--learner", "pa"),
                   capsys)
    assert rc == 0
    assert "resuming after epoch 2 from" in err and "(options: --order 1 " in err
    assert "epoch=3 " in err and "epoch=1 " not in err and "epoch=2 " not in err
    assert [r["epoch"] for r in _lines(trained / "log.jsonl")] == [1, 2, 3]
    rc, err = _run(_train_args(data, trained, "--epochs", "3", "--resume"), capsys)
    assert rc == 0 and "the checkpoint has 3 epochs already (--epochs 3): nothing to train" in err


def test_library_resume_refuses_other_config(data, trained):
    from plgraph.dep.conll import read_conll
    from plgraph.dep.model import DepConfig
    from plgraph.dep.train import train

    sents = read_conll(data / "train.conllu")
    with pytest.raises(InputError, match=r"--order 2 \(checkpoint: 1\)"):
        train(sents, None, trained, DepConfig(order=2), epochs=3, resume=True, threads=1, progress=False)
    with pytest.raises(InputError, match="epochs must be a positive integer"):
        train(sents, None, None, epochs=0)


def test_log_line_lost_to_a_kill_comes_back_on_resume(data, trained, capsys):
    """SIGKILL between the checkpoint and the log write: the log misses the epoch's line;
    the checkpoint holds the history, and resuming restores the line."""
    full = (trained / "log.jsonl").read_text()
    lines = full.splitlines(keepends=True)
    (trained / "log.jsonl").write_text(lines[0])
    rc, err = _run(_train_args(data, trained, "--epochs", "2", "--resume"), capsys)
    assert rc == 0 and "nothing to train" in err
    assert (trained / "log.jsonl").read_text() == full
    (trained / "log.jsonl").unlink()
    assert _run(_train_args(data, trained, "--epochs", "3", "--resume"), capsys)[0] == 0
    assert (trained / "log.jsonl").read_text().startswith(full)
    assert [r["epoch"] for r in _lines(trained / "log.jsonl")] == [1, 2, 3]


def test_stale_temporaries_are_cleaned_at_start(data, trained, capsys):
    dead = _dead_pid()
    stale = trained / f".tmp-{dead}-abc123.npz"
    stale.write_bytes(b"\0" * 100_000)
    live = trained / f".tmp-{os.getpid()}-mine.npz"      # this process's: not stale
    live.write_bytes(b"x")
    assert _run(_train_args(data, trained, "--epochs", "3", "--resume"), capsys)[0] == 0
    assert not stale.exists() and live.exists()


# -- option values and unwritable outputs -------------------------------------------------------
@pytest.mark.parametrize("options, message", [
    (["--epochs", "-3"], "argument --epochs: expected a positive integer, got -3"),
    (["--epochs", "0"], "argument --epochs: expected a positive integer, got 0"),
    (["--epochs", "two"], "argument --epochs: expected a positive integer, got 'two'"),
    (["--batch-size", "0"], "argument --batch-size: expected a positive integer, got 0"),
    (["--threads", "0"], "argument --threads: expected a positive integer, got 0"),
    (["--holdout", "1.5"], "argument --holdout: expected a fraction between 0 and 1, got 1.5"),
])
def test_bad_numbers_are_argparse_errors(data, tmp_path, capsys, options, message):
    model = tmp_path / "m"
    with pytest.raises(SystemExit) as info:
        main(_train_args(data, model, *options))
    assert info.value.code == 2 and message in capsys.readouterr().err
    assert not model.exists()


def test_pruners_bad_numbers(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["pruners", "train", "--model-dir", str(tmp_path / "p"), "--arc-epochs", "0"])
    assert info.value.code == 2 and "expected a positive integer, got 0" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["parent_is_file", "model_json_is_dir", "model_is_file"])
def test_unwritable_model_folder_is_reported_before_training(data, tmp_path, capsys, where):
    if where == "parent_is_file":
        (tmp_path / "f").write_text("x")
        model = tmp_path / "f" / "m"
    elif where == "model_json_is_dir":
        model = tmp_path / "m"
        (model / "model.json").mkdir(parents=True)
    else:
        model = tmp_path / "m"
        model.write_text("a file")
    start = time.perf_counter()
    rc, err = _run(_train_args(data, model, "--epochs", "1"), capsys)
    assert rc == 2 and "plgraph dep: error: cannot write" in err and str(model) in err
    assert "training sentences" not in err and time.perf_counter() - start < 5


def test_no_usable_training_sentence(tmp_path, capsys):
    bad = tmp_path / "t.conllu"
    bad.write_text("nonsense\n\n")
    rc, err = _run(["dep", "train", "--train", str(bad), "--model", str(tmp_path / "m")], capsys)
    assert rc == 2 and f"{bad}: no readable sentence in the training file" in err


# -- signals ---------------------------------------------------------------------------------------
_RUNNER = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
import plgraph.cli
print("ready", flush=True)
sys.exit(plgraph.cli.main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """Enough training data for an epoch of a few seconds."""
    base = tmp_path_factory.mktemp("big")
    (base / "train.conllu").write_text(conllu(2500, 21))
    return base


def _start(args, cwd):
    return subprocess.Popen([sys.executable, "-c", _RUNNER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.timeout(120)
@pytest.mark.parametrize("delay", [0.0, 0.8, 1.5, 3.0])
def test_sigint_during_dep_train_says_interrupted(big, tmp_path, delay):
    """SIGINT at several points (loading the kernels, building the features, inside an
    epoch): exit 130 with "interrupted", no traceback, no lock or temporary left, and
    whatever checkpoint there is resumes."""
    model = tmp_path / "m"
    p = _start(["dep", "train", "--train", str(big / "train.conllu"), "--model", str(model), "--epochs", "3",
                "--threads", "2", "--no-progress"], tmp_path)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(delay)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=90)
    assert p.returncode == 130, err
    # very early (before the dep command is dispatched) the top-level handler says it
    assert re.search(r"plgraph( dep)?: interrupted$", err.rstrip()) and "Traceback" not in err and "SystemError" not in err
    left = sorted(q.name for q in model.iterdir()) if model.exists() else []
    assert LOCK_NAME not in left and not [n for n in left if n.startswith(".tmp-")]
    if "checkpoint.json" in left:
        from plgraph.dep.train import _read_checkpoint

        doc, _, _ = _read_checkpoint(model)
        assert [r["epoch"] for r in _lines(model / "log.jsonl")] == list(range(1, doc["epoch"] + 1))


@pytest.mark.timeout(120)
def test_sigkill_then_resume(big, tmp_path):
    """SIGKILL mid-run leaves a stale lock and maybe temporaries; the next run takes the
    lock over, cleans the temporaries and resumes from the last checkpoint."""
    model = tmp_path / "m"
    args = ["dep", "train", "--train", str(big / "train.conllu"), "--model", str(model), "--epochs", "2",
            "--threads", "2", "--no-progress"]
    p = _start(args, tmp_path)
    assert p.stdout.readline().strip() == "ready"
    deadline = time.time() + 60
    while not (model / "checkpoint.json").exists() and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    p.kill()
    p.communicate(timeout=30)
    (model / f".tmp-{p.pid}-killed.npz").write_bytes(b"\0" * 1000)    # as a kill mid-write leaves
    q = _start(args + ["--resume"], tmp_path)
    out, err = q.communicate(timeout=90)
    assert q.returncode == 0, err
    assert "resuming after epoch" in err
    assert [r["epoch"] for r in _lines(model / "log.jsonl")] == [1, 2]
    assert not [n.name for n in model.iterdir() if n.name.startswith(".tmp-") or n.name == LOCK_NAME]
