"""Corrupt model files and unreadable parser input:
every loader of a model, checkpoint or table (``dep parse``, ``dep train --resume``,
``pruners stats``, ``RuleTables.load``) reports a truncated, bit-flipped, empty, garbage,
mis-shaped, mismatched or other-version file as one ModelFileError naming the file --
never EOFError, BadZipFile, KeyError, IndexError, a numba crash -- and a failed
``dep parse`` leaves an existing output byte-identical."""
from __future__ import annotations

import json
import os
import random
import re
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plgraph.cli import main
from plgraph.errors import ModelFileError, PlgraphError
from plgraph.files import modelfile as mf

pytestmark = pytest.mark.timeout(900)  # module fixtures include first-call numba compilation (the dependency
# trainer's parallel kernels: about 5 minutes in a fresh clone on two loaded cores)

POS = ["NOUN", "VERB", "ADJ", "DET", "ADP", "PRON"]
RELS = ["nsubj", "obj", "amod", "det", "case", "obl"]


def conllu(n: int, seed: int = 0, heads: bool = True) -> str:
    """``n`` small random dependency trees (each word attached to an earlier-attached
    word: every sentence is a tree) in CoNLL-U."""
    r = random.Random(seed)
    out = []
    for s in range(n):
        k = r.randint(2, 9)
        order = list(range(1, k + 1))
        r.shuffle(order)
        head = {order[0]: 0}
        for i, w in enumerate(order[1:], 1):
            head[w] = order[r.randrange(i)]
        out.append(f"# sent_id = s{seed}-{s}\n")
        for w in range(1, k + 1):
            p = r.choice(POS)
            h, rel = (head[w], "root" if head[w] == 0 else r.choice(RELS)) if heads else ("_", "_")
            out.append(f"{w}\tw{r.randint(0, 40)}\tl\t{p}\t{p}\t_\t{h}\t{rel}\t_\t_\n")
        out.append("\n")
    return "".join(out)


@pytest.fixture(scope="module")
def dep_folder(tmp_path_factory):
    """A tiny trained dependency model (2 epochs, with dev set and checkpoint)."""
    base = tmp_path_factory.mktemp("dep")
    (base / "train.conllu").write_text(conllu(30, 1))
    (base / "dev.conllu").write_text(conllu(8, 2))
    (base / "in.conllu").write_text(conllu(5, 3, heads=False))
    assert main(["dep", "train", "--train", str(base / "train.conllu"), "--dev", str(base / "dev.conllu"),
                 "--model", str(base / "m"), "--epochs", "2", "--threads", "1", "--no-progress"]) == 0
    return base


def _copy_model(dep_folder, tmp_path):
    m = tmp_path / "m"
    shutil.copytree(dep_folder / "m", m)
    return m


def _run(argv, capsys):
    rc = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err


# -- the shared helpers -------------------------------------------------------------------
def _npz_bytes():
    import io

    buf = io.BytesIO()
    np.savez(buf, a=np.arange(50, dtype=np.int64), w=np.ones((4, 3), np.float32))
    return buf.getvalue()


@pytest.mark.parametrize("kind", ["missing", "empty", "truncated", "bitflip", "garbage", "npy", "directory",
                                  "pickle"])
def test_load_npz_damaged(tmp_path, kind):
    path = tmp_path / "x.npz"
    data = _npz_bytes()
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif kind == "bitflip":
        k = data.index(b"\x01\x00\x00\x00\x00\x00\x00\x00")  # inside the array data of 'a'
        path.write_bytes(data[:k] + bytes([data[k] ^ 0x10]) + data[k + 1:])
    elif kind == "garbage":
        path.write_bytes(b"hello, this is not a zip archive\n" * 10)
    elif kind == "npy":
        np.save(tmp_path / "y.npy", np.arange(3))
        os.replace(tmp_path / "y.npy", path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "pickle":
        import io
        import zipfile

        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            with z.open("a.npy", "w") as h:
                np.save(h, np.array([{"x": 1}], dtype=object), allow_pickle=True)
        path.write_bytes(buf.getvalue())
    with pytest.raises(ModelFileError) as info:
        mf.load_npz(path, {"a": (1, "i")})
    assert str(info.value).startswith(f"{path}: ")


def test_load_npz_required_arrays(tmp_path):
    path = tmp_path / "x.npz"
    path.write_bytes(_npz_bytes())
    assert mf.load_npz(path, {"a": (1, "i"), "w": (2, "f")})["a"].tolist() == list(range(50))
    for required, message in (({"b": (1, None)}, "array 'b' is missing"),
                              ({"w": (1, None)}, "array 'w' has 2 dimension(s), expected 1"),
                              ({"a": (1, "f")}, "array 'a' has dtype int64, expected kind f")):
        with pytest.raises(ModelFileError, match=re.escape(f"{path}: {message}")):
            mf.load_npz(path, required)


@pytest.mark.parametrize("text, message", [
    ("", "is empty"),
    ('{"a": [1, 2', "is not valid JSON"),
    ("[1, 2, 3]", "JSON is a list, expected an object"),
    ('{"b": 1}', "key 'a' is missing"),
    ('{"a": "x"}', "key 'a' is a str, expected int"),
    ('{"a": true}', "key 'a' is a bool, expected int"),
])
def test_load_json_damaged(tmp_path, text, message):
    path = tmp_path / "x.json"
    path.write_text(text)
    with pytest.raises(ModelFileError, match=message) as info:
        mf.load_json(path, {"a": int})
    assert str(info.value).startswith(str(path))


def test_load_json_not_utf8_and_line_of_syntax_error(tmp_path):
    path = tmp_path / "x.json"
    path.write_bytes(b'{"a": "\xff\xfe"}')
    with pytest.raises(ModelFileError, match="not UTF-8"):
        mf.load_json(path)
    path.write_text('{\n"a": 1,\n"b": }\n')
    with pytest.raises(ModelFileError, match=rf"^{path}:3: "):
        mf.load_json(path)


def test_check_version():
    assert mf.check_version({}, "m.json", 1, "dependency model") == 1      # no field: version 1
    assert mf.check_version({"format_version": 2}, "m.json", 2, "x") == 2
    with pytest.raises(ModelFileError, match=r"^m.json: dependency model format version 3, but this plgraph reads "
                                             r"version 1"):
        mf.check_version({"format_version": 3}, "m.json", 1, "dependency model")
    with pytest.raises(ModelFileError, match="format version None"):
        mf.check_version({"format_version": None}, "m.json", 1, "x")


# -- dep parse with damaged model files -------------------------------------------------------
def _damage(path, kind):
    data = path.read_bytes()
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncated":
        path.write_bytes(data[: len(data) * 2 // 3])
    elif kind == "bitflip":      # JSON: inside the labels (the history may take harmless flips)
        k = data.index(b'"labels"') + 12 if path.suffix == ".json" else len(data) // 2
        path.write_bytes(data[:k] + bytes([data[k] ^ 0x04]) + data[k + 1:])
    elif kind == "garbage":
        path.write_bytes(b"\x89garbage" + bytes(range(200)))
    elif kind == "deleted":
        path.unlink()


@pytest.mark.parametrize("name", ["model.npz", "model.json"])
@pytest.mark.parametrize("kind", ["empty", "truncated", "bitflip", "garbage", "deleted"])
def test_dep_parse_damaged_model_file(dep_folder, tmp_path, capsys, name, kind):
    m = _copy_model(dep_folder, tmp_path)
    _damage(m / name, kind)
    out = tmp_path / "out.conllu"
    out.write_text("precious\n")
    rc, err = _run(["dep", "parse", "--model", str(m), str(dep_folder / "in.conllu"), "--out", str(out)], capsys)
    assert rc == 2
    assert err.startswith("plgraph dep: error: ") and str(m / name) in err
    assert out.read_text() == "precious\n"


def _edit_json(path, edit):
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.pop("labels"), "key 'labels' is missing"),
    (lambda d: d.update(labels="nsubj"), "key 'labels' is a str, expected list"),
    (lambda d: d.update(labels=d["labels"][:-1]), "labels differ from the taxonomy"),
    (lambda d: d["taxonomy"].update(paths=[]), "inconsistent contents"),
    (lambda d: d["config"].update(order=3), "inconsistent contents"),
    (lambda d: d["config"].update(order=2), "weights, expected"),
    (lambda d: d.update(format="something-else"), "not a plgraph-dep-model file"),
    (lambda d: d.update(format_version=2), "dependency model format version 2, but this plgraph reads version 1"),
    (lambda d: d.update(n_features=5), "model.json says 5"),
])
def test_dep_parse_mis_shaped_model_json(dep_folder, tmp_path, capsys, edit, message):
    """Hand-edited files (no CRC, as written before CRCs existed): the parts are checked."""
    m = _copy_model(dep_folder, tmp_path)
    _edit_json(m / "model.json", lambda d: (d.pop("crc32"), edit(d)))
    out = tmp_path / "out.conllu"
    out.write_bytes(b"old output\n")
    rc, err = _run(["dep", "parse", "--model", str(m), str(dep_folder / "in.conllu"), "--out", str(out)], capsys)
    assert rc == 2 and message in err and str(m) in err
    assert out.read_bytes() == b"old output\n"


@pytest.mark.parametrize("edit", [
    lambda d: d["labels"].reverse(),
    lambda d: d["config"].update(cost_label=2.0),
    lambda d: d.update(multi_root=not d["multi_root"]),
    lambda d: d.update(crc32=12345),
])
def test_model_json_checksum(dep_folder, tmp_path, edit):
    """A changed model-defining field of model.json (a bit flip JSON cannot detect)
    breaks its CRC; the training record in ``info`` is free to change."""
    from plgraph.dep.model import DepModel

    m = _copy_model(dep_folder, tmp_path)
    _edit_json(m / "model.json", edit)
    with pytest.raises(ModelFileError, match=re.escape(f"{m / 'model.json'}: checksum mismatch")):
        DepModel.load(m)
    _edit_json(m / "model.json", lambda d: d.update(crc32=json.loads((dep_folder / "m" / "model.json").read_text())
                                                    ["crc32"]))
    m2 = _copy_model(dep_folder, tmp_path / "b")
    _edit_json(m2 / "model.json", lambda d: d["info"].update(note="edited"))
    assert DepModel.load(m2).info["note"] == "edited"


def test_model_written_before_format_version_loads(dep_folder, tmp_path):
    from plgraph.dep.model import DepModel

    m = _copy_model(dep_folder, tmp_path)
    _edit_json(m / "model.json", lambda d: (d.pop("format_version"), d.pop("crc32")))
    assert DepModel.load(m).n_features > 0
    _edit_json(m / "model.json", lambda d: d.pop("version"))
    assert DepModel.load(m).n_features > 0


def test_npz_of_another_model_is_refused(dep_folder, tmp_path, capsys):
    """A save killed between model.npz and model.json leaves a pair that does not belong
    together: refused, not parsed with the wrong weights."""
    from plgraph.dep.model import DepModel

    m = _copy_model(dep_folder, tmp_path)
    model = DepModel.load(m)
    model.weights = model.weights * 2
    other = tmp_path / "other"
    model.save(other)
    shutil.copy(other / "model.npz", m / "model.npz")
    with pytest.raises(ModelFileError, match="checksum mismatch: .* does not belong to the model.npz beside it"):
        DepModel.load(m)


def _arrays_of(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize("change, message", [
    (lambda a: a.pop("fnode"), "array 'fnode' is missing"),
    (lambda a: a.update(fnode=a["fnode"][:-1]), "taxonomy nodes for"),
    (lambda a: a.update(keys=a["keys"][:-1]), "feature keys but"),
    (lambda a: a.update(lab_list=a["lab_list"] + 1000), "label ids out of range"),
    (lambda a: a.update(lab_off=a["lab_off"][:-1]), "label class offsets"),
    (lambda a: a.update(arc_weights=a["arc_weights"].reshape(1, -1)), "has 2 dimension(s)"),
    (lambda a: a.update(keys=a["keys"].astype(np.float64)), "expected kind u"),
])
def test_consistent_npz_with_wrong_parts(dep_folder, tmp_path, change, message):
    """Arrays a CRC cannot catch (written like that) are checked before the kernels use them."""
    from plgraph.dep.model import DepModel

    m = _copy_model(dep_folder, tmp_path)
    arrays = _arrays_of(m / "model.npz")
    change(arrays)
    np.savez(m / "model.npz", **arrays)
    _edit_json(m / "model.json", lambda d: d.pop("crc32"))
    with pytest.raises(ModelFileError, match=re.escape(message)) as info:
        DepModel.load(m)
    assert str(m) in str(info.value)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_damaged_model_files(dep_folder, tmp_path_factory, data):
    """Random truncations, byte flips and insertions of either file: load raises
    ModelFileError, or loads a model that parses (a harmless byte, e.g. in JSON spacing)."""
    from plgraph.dep.conll import read_conll
    from plgraph.dep.model import DepModel

    m = tmp_path_factory.mktemp("fz") / "m"
    shutil.copytree(dep_folder / "m", m)
    name = data.draw(st.sampled_from(["model.npz", "model.json"]))
    raw = bytearray((m / name).read_bytes())
    op = data.draw(st.sampled_from(["truncate", "flip", "insert"]))
    k = data.draw(st.integers(0, len(raw) - 1))
    if op == "truncate":
        raw = raw[:k]
    elif op == "flip":
        raw[k] ^= data.draw(st.integers(1, 255))
    else:
        raw[k:k] = data.draw(st.binary(min_size=1, max_size=8))
    (m / name).write_bytes(bytes(raw))
    try:
        model = DepModel.load(m)
    except ModelFileError as err:
        assert str(m) in str(err)
        return
    parsed = model.parse(read_conll(dep_folder / "in.conllu", require_heads=False))
    assert len(parsed) == 5


# -- dep parse with unreadable input ----------------------------------------------------------
@pytest.mark.parametrize("kind, message", [
    ("empty", "no readable sentence in the input file (empty)"),
    ("garbage", "no readable sentence in the input file"),
    ("binary", "no readable sentence in the input file"),
    ("missing", "cannot read the input file"),
    ("directory", "cannot read the input file"),
])
def test_dep_parse_unreadable_input_keeps_output(dep_folder, tmp_path, capsys, kind, message):
    src = tmp_path / "in.conllu"
    if kind == "empty":
        src.write_text("")
    elif kind == "garbage":
        src.write_text("this is\nnot CoNLL at all\n\nreally\n")
    elif kind == "binary":
        src.write_bytes(bytes(range(256)) * 4)
    elif kind == "directory":
        src.mkdir()
    out = tmp_path / "out.conllu"
    out.write_text("the earlier parse\n")
    rc, err = _run(["dep", "parse", "--model", str(dep_folder / "m"), str(src), "--out", str(out)], capsys)
    assert rc == 2 and message in err and str(src) in err
    assert out.read_text() == "the earlier parse\n"


def test_dep_parse_partly_readable_input_parses_the_rest(dep_folder, tmp_path, capsys):
    src = tmp_path / "in.conllu"
    src.write_text(conllu(3, 5, heads=False) + "1\tbroken line\n\n")
    out = tmp_path / "out.conllu"
    rc, err = _run(["dep", "parse", "--model", str(dep_folder / "m"), str(src), "--out", str(out)], capsys)
    assert rc == 0 and "skipped 1 bad sentence" in err and f"{src}:" in err
    assert out.read_text().count("# sent_id") == 3


# -- dep train --resume with a damaged checkpoint ---------------------------------------------
@pytest.mark.parametrize("target, kind, message", [
    ("checkpoint.json", "garbage", "checkpoint.json:1: training checkpoint is not valid JSON"),
    ("checkpoint.json", "truncated", "checkpoint.json"),
    ("checkpoint.json", "empty", "checkpoint.json: training checkpoint is empty"),
    ("checkpoint-2.npz", "truncated", "checkpoint-2.npz: training checkpoint is not"),
    ("checkpoint-2.npz", "bitflip", "checkpoint-2.npz"),
    ("checkpoint-2.npz", "deleted", "checkpoint-2.npz: training checkpoint is missing"),
    ("checkpoint.json", "npz=../../etc/passwd", "not an .npz file of the folder"),
    ("checkpoint.json", "version", "dependency training checkpoint format version 7, but this plgraph reads "
                                   "version 1"),
    ("checkpoint.json", "history", "has a history of epochs"),
    ("checkpoint.json", "scalars", "inconsistent contents"),
    ("checkpoint-2.npz", "learner", "inconsistent contents"),
    ("checkpoint.json", "crc", "checkpoint.json: checksum mismatch"),
])
def test_resume_damaged_checkpoint(dep_folder, tmp_path, capsys, target, kind, message):
    m = _copy_model(dep_folder, tmp_path)
    path = m / target
    if kind == "garbage":
        path.write_text("{not json")
    elif kind == "npz=../../etc/passwd":
        _edit_json(path, lambda d: d.update(npz="../../etc/passwd"))
    elif kind == "version":
        _edit_json(path, lambda d: d.update(format_version=7))
    elif kind == "history":      # no CRC (as before CRCs existed): the history is checked
        _edit_json(path, lambda d: (d.pop("crc32"), d.update(history=d["history"][:1])))
    elif kind == "scalars":
        _edit_json(path, lambda d: (d.pop("crc32"), d["learner_scalars"].pop("c")))
    elif kind == "learner":
        arrays = _arrays_of(path)
        arrays["learner_w"] = arrays["learner_w"][:10]
        np.savez(path, **arrays)
        _edit_json(m / "checkpoint.json", lambda d: d.pop("crc32"))
    elif kind == "crc":
        _edit_json(path, lambda d: d["learner_scalars"].update(c=d["learner_scalars"]["c"] + 1))
    else:
        _damage(path, kind)
    before = (m / "model.npz").read_bytes()
    rc, err = _run(["dep", "train", "--train", str(dep_folder / "train.conllu"), "--model", str(m), "--epochs", "3",
                    "--resume", "--threads", "1", "--no-progress"], capsys)
    assert rc == 2 and err.count("plgraph dep: error: ") == 1 and message in err and str(m) in err
    assert (m / "model.npz").read_bytes() == before


def test_learner_state_is_never_broadcast():
    from plgraph.learn import learner_from_state, make_learner

    lrn = make_learner("adagrad", 10)
    arrays, scalars = lrn.state()
    for name, bad in (("w", np.zeros(1)), ("q", np.zeros((10, 1))), ("u", np.zeros(10, np.complex64))):
        with pytest.raises(ValueError, match=f"learner array '{name}'"):
            learner_from_state(lrn.config(), 10, {**arrays, name: bad}, scalars)
    with pytest.raises(TypeError, match="learner scalar 'n'"):
        learner_from_state(lrn.config(), 10, arrays, {**scalars, "n": "7"})
    with pytest.raises(ValueError, match="time stamps"):
        learner_from_state(lrn.config(), 10, {**arrays, "u": np.full(10, 5, np.int32)}, scalars)


# -- rule tables --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tables_file(tmp_path_factory):
    from plgraph.rules.tables import full_tables

    t = full_tables()
    path = tmp_path_factory.mktemp("rules") / "g.npz"
    t.subset(np.arange(t.n_comb) < 300, np.arange(t.n_arc) < 50).save(path)
    return path


@pytest.mark.parametrize("target, kind, message", [
    ("npz", "truncated", "rule tables is not"),
    ("npz", "empty", "rule tables is empty"),
    ("npz", "deleted", "rule tables is missing"),
    ("json", "garbage", "rule tables header is not valid JSON"),
    ("json", "deleted", "rule tables header is missing"),
    ("json", "short", "300 combination and 50 arc rules, but"),
    ("json", "crc", "checksum mismatch"),
    ("json", "version", "rule tables format version 4"),
    ("npz", "keys", "item keys out of range"),
    ("npz", "refs", "'comb_refs' has values outside"),
])
def test_rule_tables_damaged(tables_file, tmp_path, target, kind, message):
    from plgraph.rules.tables import RuleTables

    path = tmp_path / "g.npz"
    shutil.copy(tables_file, path)
    shutil.copy(str(tables_file) + ".json", str(path) + ".json")
    victim = path if target == "npz" else tmp_path / "g.npz.json"
    if kind == "garbage":
        victim.write_text("]]")
    elif kind == "short":        # no CRC (as before CRCs existed): the counts are checked
        _edit_json(victim, lambda d: (d.pop("crc32"), d.update(comb_text=d["comb_text"][:-1])))
    elif kind == "crc":
        _edit_json(victim, lambda d: d["comb_text"].reverse())
    elif kind == "version":
        _edit_json(victim, lambda d: d.update(format_version=4))
    elif kind in ("keys", "refs"):
        arrays = _arrays_of(path)
        if kind == "keys":
            arrays["comb_keys"][0, 0] = 99999
        else:
            arrays["comb_refs"][0, 0] = 40
        np.savez_compressed(path, **arrays)
        _edit_json(tmp_path / "g.npz.json", lambda d: d.pop("crc32"))
    else:
        _damage(victim, kind)
    with pytest.raises(ModelFileError, match=re.escape(message)) as info:
        RuleTables.load(path)
    assert str(victim) in str(info.value)
    assert RuleTables.load(tables_file).n_comb == 300


# -- pruners ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pruner_folder(tmp_path_factory, sample_dir):
    """A copy of the quick-mode coarse models the whole suite shares (trained once per
    code version into plgraph's cache; training another set here would compile the
    dependency trainer's parallel kernel a second time, minutes on a loaded machine)."""
    from plgraph.pruners.notebook import notebook_models, notebook_models_folder

    notebook_models(quick=True, progress=False)
    folder = tmp_path_factory.mktemp("pruners") / "p"
    shutil.copytree(notebook_models_folder(quick=True), folder,
                    ignore=shutil.ignore_patterns("checkpoint-*", "*.lock", ".*"))
    return folder


@pytest.mark.parametrize("target, kind, message", [
    ("pruners.json", "garbage", "pruners.json:1: pruner models header is not valid JSON"),
    ("pruners.json", "crc", "pruners.json: checksum mismatch"),
    ("pruners.json", "deleted", "not a plgraph pruner model folder"),
    ("pruners.json", "tags", "'allowed' has shape"),
    ("pruners.json", "bits", "'w' has shape"),
    ("pruners.json", "version", "pruner models format version 9"),
    ("pruners.json", "thresholds", "key 'arc_ratio' in thresholds is missing"),
    ("trace.npz", "truncated", "trace.npz: trace classifier is not"),
    ("spine.npz", "bitflip", "spine.npz"),
    ("spine.npz", "deleted", "spine.npz: spine classifier is missing"),
    ("arc/model.npz", "empty", "arc/model.npz: dependency model weights is empty"),
    ("arc/model.json", "garbage", "arc/model.json"),
])
def test_pruners_stats_damaged(pruner_folder, tmp_path, capsys, target, kind, message):
    folder = tmp_path / "p"
    shutil.copytree(pruner_folder, folder)
    path = folder / target
    if kind == "garbage":
        path.write_text("{{{")
    elif kind == "tags":         # no CRC (as before CRCs existed): the parts are checked
        _edit_json(path, lambda d: (d.pop("crc32"), d.update(tags=d["tags"][:-1])))
    elif kind == "bits":
        _edit_json(path, lambda d: (d.pop("crc32"), d.update(trace_bits=13)))
    elif kind == "version":
        _edit_json(path, lambda d: d.update(format_version=9))
    elif kind == "thresholds":
        _edit_json(path, lambda d: (d.pop("crc32"), d["thresholds"].pop("arc_ratio")))
    elif kind == "crc":
        _edit_json(path, lambda d: d["thresholds"].update(arc_ratio=0.9))
    else:
        _damage(path, kind)
    out = tmp_path / "stats.json"
    out.write_text("{}\n")
    rc, err = _run(["pruners", "stats", "--model-dir", str(folder), "--json", str(out)], capsys)
    assert rc == 2 and err.startswith("plgraph pruners: error: ") and message in err
    assert out.read_text() == "{}\n"


def test_pruners_load_round_trip_and_old_files(pruner_folder):
    from plgraph.pruners import Pruners

    assert Pruners.load(pruner_folder).thresholds is not None
    doc = json.loads((pruner_folder / "pruners.json").read_text())
    assert doc["format_version"] == 1


def test_errors_are_plgraph_errors():
    assert issubclass(ModelFileError, PlgraphError)
