"""The data resolver, the fixed splits and the corpus API."""
from __future__ import annotations

import shutil

import pytest

import plgraph
from plgraph import data
from plgraph.errors import CorpusNotFoundError

TINY = "( (S (NP-SBJ (NNP Bob)) (VP (VBD left)) (. .)))\n"


def _fake_sample(root):
    folder = root / "nltk_data" / "corpora" / "treebank" / "combined"
    folder.mkdir(parents=True)
    for i in (1, 139, 140, 170, 199):
        (folder / f"wsj_{i:04d}.mrg").write_text(TINY * (i % 3 + 1))
    return folder


def test_explicit_path_wins(tmp_path, monkeypatch):
    folder = _fake_sample(tmp_path / "a")
    other = _fake_sample(tmp_path / "b")
    monkeypatch.setenv("PLGRAPH_DATA", str(tmp_path / "b"))
    assert data.find_corpus("ptb-sample", folder) == folder
    assert data.find_corpus("ptb-sample") == other


def test_plgraph_data_as_nltk_data_folder(tmp_path, monkeypatch):
    folder = _fake_sample(tmp_path)
    monkeypatch.setenv("PLGRAPH_DATA", str(tmp_path / "nltk_data"))
    assert data.find_corpus("ptb-sample") == folder


def test_nltk_data_path_is_last(tmp_path, monkeypatch):
    folder = _fake_sample(tmp_path)
    monkeypatch.delenv("PLGRAPH_DATA", raising=False)
    monkeypatch.setattr(data, "SHARED_DATA", tmp_path / "nowhere")
    monkeypatch.setattr(data, "_nltk_paths", lambda: [str(tmp_path / "nltk_data")])
    assert data.find_corpus("ptb-sample") == folder


def test_missing_corpus_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PLGRAPH_DATA", str(tmp_path))
    monkeypatch.setattr(data, "SHARED_DATA", tmp_path / "nowhere")
    monkeypatch.setattr(data, "_nltk_paths", lambda: [])
    with pytest.raises(CorpusNotFoundError) as err:
        data.find_corpus("ptb-sample")
    text = str(err.value)
    assert "PLGRAPH_DATA" in text and "nltk.download('treebank')" in text and str(tmp_path) in text
    with pytest.raises(CorpusNotFoundError, match="path argument"):
        data.find_corpus("ptb-sample", tmp_path / "missing")


def test_sample_splits(sample_dir):
    counts = {s: len(data.sample_files(s)) for s in data.SPLITS}
    assert counts == {"all": 199, "train": 139, "dev": 30, "test": 30}
    assert data.sample_files("dev")[0].name == "wsj_0140.mrg"
    assert data.sample_files("test")[-1].name == "wsj_0199.mrg"
    with pytest.raises(ValueError):
        data.sample_files("validation")


def test_ldc_layout_and_splits(tmp_path):
    wsj = tmp_path / "treebank_3" / "parsed" / "mrg" / "wsj"
    for sec in range(25):
        d = wsj / f"{sec:02d}"
        d.mkdir(parents=True)
        (d / f"wsj_{sec:02d}01.mrg").write_text(TINY)
    assert len(data.ldc_files(wsj, "train")) == 20
    assert [p.parent.name for p in data.ldc_files(wsj, "dev")] == ["22"]
    assert [p.parent.name for p in data.ldc_files(tmp_path / "treebank_3", "test")] == ["23"]
    assert len(data.ldc_files(wsj, "all")) == 25
    shutil.rmtree(wsj / "22")
    with pytest.raises(CorpusNotFoundError, match="lacks section folder"):
        data.ldc_files(wsj, "dev")
    corpus = plgraph.corpus("test", ptb=wsj)
    assert [s.id for s in corpus] == ["wsj_2301.0"]


def test_corpus_api_dev_split(sample_dir):
    dev = plgraph.corpus("dev")
    sents = dev.sentences()
    assert sents[0].id == "wsj_0140.0" and not dev.skipped
    s = dev["wsj_0140.0"]
    assert s.graph.words == s.tree.words() and len(s.graph.spines) == len(s.graph.words)
    assert s.graph.child.shape == s.graph.parent.shape == s.graph.kind.shape
    assert {int(k) for k in s.graph.kind} <= {0, 1}
    assert len(dev) == sum(1 for _ in dev)  # re-iterable (cached)


def test_corpus_skips_and_counts_bad_sentences(tmp_path):
    f = tmp_path / "wsj_0001.mrg"
    f.write_text(TINY + "( (S (NP (NN broken))\n")
    g = tmp_path / "wsj_0002.mrg"
    g.write_text("( (S (NP-SBJ (NNP Bob)) (VP (VBD left) (ADVP (-NONE- *T*-9))) (. .)))\n" + TINY)
    c = plgraph.corpus(files=[f, g], strict=True)
    ids = [s.id for s in c]
    assert ids == ["wsj_0001.0", "wsj_0002.1"]
    assert sorted(b.id for b in c.skipped) == ["wsj_0001.1", "wsj_0002.0"]
    lenient = plgraph.corpus(files=[f, g])
    assert [s.id for s in lenient] == ["wsj_0001.0", "wsj_0002.0", "wsj_0002.1"]
    assert "index 9" in lenient["wsj_0002.0"].graph.warnings[0]
