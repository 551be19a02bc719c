"""Outputs never destroy what was there: FIFOs, devices and symlinks given as outputs stay what they are, a failed
write leaves the old file byte-identical, errors name the user's path, unwritable outputs
are found before the work, and killed runs' temporaries are cleaned."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import zipfile

import numpy as np
import pytest

from plgraph.files.atomic import (atomic_json, atomic_open, atomic_savez, atomic_savez_compressed, atomic_text,
                            atomic_write_with,
                            check_writable, check_writable_dir, clean_stale_temporaries)
from plgraph.errors import OutputError, PlgraphError

pytestmark = pytest.mark.timeout(60)


def _read_fifo_in_background(path, into: list, binary=False):
    def run():
        with open(path, "rb" if binary else "r") as handle:
            into.append(handle.read())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_regular_file_replaced_atomically_keeps_permissions(tmp_path):
    out = tmp_path / "table.txt"
    out.write_text("old\n")
    os.chmod(out, 0o640)
    atomic_text(out, "new\n")
    assert out.read_text() == "new\n"
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["table.txt"]


def test_fifo_stays_a_fifo_and_gets_the_bytes(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list = []
    reader = _read_fifo_in_background(fifo, got)
    atomic_json(fifo, {"a": 1})
    reader.join(10)
    assert got == ['{\n "a": 1\n}\n']
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_npz_through_a_fifo(tmp_path):
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    got: list = []
    reader = _read_fifo_in_background(fifo, got, binary=True)
    atomic_savez(fifo, x=np.arange(5))
    reader.join(10)
    assert got and got[0][:2] == b"PK"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_compressed_npz_at_a_deflate_level_loads_as_numpy_writes_it(tmp_path):
    """A chosen deflate level gives the members numpy's own writer gives (same names,
    equal arrays, deflated), and only levels 1..9 are taken (nothing written otherwise)."""
    arrays = {"w": np.linspace(-1, 1, 5000), "idx": np.arange(4000, dtype=np.int32) % 7,
              "empty": np.zeros((0, 3), np.uint8), "scalar": np.array(3.5)}
    atomic_savez_compressed(tmp_path / "fast.npz", level=1, **arrays)
    atomic_savez_compressed(tmp_path / "default.npz", **arrays)
    with np.load(tmp_path / "fast.npz", allow_pickle=False) as fast, np.load(tmp_path / "default.npz") as ref:
        assert sorted(fast.files) == sorted(ref.files) == sorted(arrays)
        for name, value in arrays.items():
            assert fast[name].dtype == value.dtype and fast[name].shape == value.shape
            np.testing.assert_array_equal(fast[name], ref[name])
    with zipfile.ZipFile(tmp_path / "fast.npz") as zf:
        assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_DEFLATED}
        assert zf.getinfo("idx.npy").compress_size < zf.getinfo("idx.npy").file_size / 4
    for bad in (0, 10):
        with pytest.raises(ValueError, match="deflate level"):
            atomic_savez_compressed(tmp_path / "bad.npz", level=bad, x=np.arange(3))
    assert not (tmp_path / "bad.npz").exists()


def test_write_with_streams_to_a_fifo(tmp_path):
    fifo = tmp_path / "fig.svg"
    os.mkfifo(fifo)
    got: list = []
    reader = _read_fifo_in_background(fifo, got)

    def write(target):
        with open(target, "w") as handle:
            handle.write("<svg/>")

    atomic_write_with(fifo, write)
    reader.join(10)
    assert got == ["<svg/>"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_dev_null_stays_a_device():
    before = os.stat("/dev/null")
    atomic_text("/dev/null", "discarded\n")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_dev_full_is_an_error_naming_the_device_and_stays_a_device():
    with pytest.raises(OutputError, match=r"cannot write /dev/full: No space left on device"):
        atomic_text("/dev/full", "x" * 100_000)
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_symlink_is_followed_and_stays_a_link(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("{}\n")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    atomic_json(link, [1, 2])
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "[\n 1,\n 2\n]\n"


def test_dash_is_standard_output(capfd):
    atomic_text("-", "to stdout\n")
    with atomic_open("-", "wb") as handle:
        handle.write(b"bytes too\n")
    assert capfd.readouterr().out == "to stdout\nbytes too\n"


def test_failed_write_leaves_the_old_file_byte_identical_and_no_temporaries(tmp_path):
    out = tmp_path / "model.npz"
    atomic_savez(out, w=np.ones(3))
    before = out.read_bytes()
    with pytest.raises(RuntimeError):
        with atomic_open(out, "wb") as handle:
            handle.write(b"partial")
            raise RuntimeError("killed mid-write")
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.npz"]


def test_write_error_names_the_users_path_not_the_temporary(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError) as info:
        atomic_text(blocker / "sub" / "out.txt", "x")
    assert str(blocker / "sub" / "out.txt") in str(info.value)
    assert ".tmp-" not in str(info.value)
    with pytest.raises(OutputError, match="it is a directory"):
        atomic_text(tmp_path, "x")


def test_check_writable(tmp_path):
    check_writable(tmp_path / "new" / "deeper" / "out.json")  # creatable
    check_writable("-")
    check_writable("/dev/null")
    assert not (tmp_path / "new").exists()  # checks create nothing
    with pytest.raises(OutputError, match="it is a directory"):
        check_writable(tmp_path)
    (tmp_path / "f").write_text("")
    with pytest.raises(OutputError, match=r"cannot write .*/f/out\.json"):
        check_writable(tmp_path / "f" / "out.json")
    with pytest.raises(OutputError, match="is not a directory"):
        check_writable_dir(tmp_path / "f")
    # a model folder under a file: the message names the user's folder and the file, not a probe name
    with pytest.raises(OutputError) as err:
        check_writable_dir(tmp_path / "f" / "m")
    assert str(err.value) == f"cannot write into {tmp_path / 'f' / 'm'}: {tmp_path / 'f'} is not a directory"
    check_writable_dir(tmp_path / "model")


def test_clean_stale_temporaries_keeps_live_ones(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)
    (tmp_path / f".tmp-{dead_pid}-abcd.npz").write_bytes(b"x" * 1000)
    (tmp_path / f".tmp-{os.getpid()}-live.npz").write_bytes(b"x")
    old_unowned = tmp_path / ".tmp-zz9_q.npz"
    old_unowned.write_bytes(b"x")
    os.utime(old_unowned, (1_000_000, 1_000_000))
    (tmp_path / ".tmp-fresh.npz").write_bytes(b"x")  # unowned but young: maybe a live writer
    (tmp_path / "model.npz").write_bytes(b"keep")
    assert clean_stale_temporaries(tmp_path) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f".tmp-{os.getpid()}-live.npz", ".tmp-fresh.npz", "model.npz"])
    assert clean_stale_temporaries(tmp_path / "missing") == 0


def test_output_error_is_a_plgraph_error():
    assert issubclass(OutputError, PlgraphError)


def test_coverage_json_to_a_fifo_and_unwritable_json_fails_before_work(tmp_path, capsys):
    from plgraph.cli import main

    (tmp_path / "f").write_text("")
    code = main(["coverage", "--split", "dev", "--json", str(tmp_path / "f" / "c.json"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"plgraph coverage: error: cannot write {tmp_path / 'f' / 'c.json'}" in err


def test_coverage_survives_undecodable_bytes_on_an_ascii_terminal(tmp_path):
    """A skip message that quotes non-UTF-8 bytes and a terminal that can't print them:
    the run finishes, prints escapes, and writes its JSON."""
    section = tmp_path / "ptb" / "00"
    section.mkdir(parents=True)
    (section / "wsj_0001.mrg").write_bytes(
        b"( (S (NP-SBJ (NNP Caf\xe9)) (VP (VBZ runs)) (. .)) )\n"
        b"( (S (NP-SBJ (NNP Caf\xc3\xa9)) (VP (VBZ runs)) (. .)) )\n"
        b"( (S (NP-SBJ (NNP John)) (VP (VBZ runs)) (. .)) )\n")
    out = tmp_path / "cov.json"
    env = dict(os.environ, PYTHONIOENCODING="ascii", LC_ALL="C")
    run = subprocess.run([sys.executable, "-m", "plgraph", "coverage", "--ptb", str(tmp_path / "ptb"),
                          "--json", str(out), "--no-progress"],
                         capture_output=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr.decode("ascii", "replace")
    assert b"Traceback" not in run.stderr
    assert b"wsj_0001.0" in run.stdout and b"0xe9" in run.stdout  # the skip names the sentence
    import json

    doc = json.loads(out.read_text())
    assert len(doc["skipped"]) == 1
