"""plgraph.files.cache: one cache folder, one rule, used by the pruner and LM caches."""
from __future__ import annotations

from pathlib import Path

import pytest

from plgraph.files.cache import cache_dir, cache_root


@pytest.fixture
def env(monkeypatch, tmp_path):
    """A clean environment: no PLGRAPH_CACHE / XDG_CACHE_HOME, HOME = tmp_path/home."""
    monkeypatch.delenv("PLGRAPH_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return monkeypatch


def test_default_is_home_dot_cache(env, tmp_path):
    assert cache_root() == tmp_path / "home" / ".cache" / "plgraph"
    assert cache_dir("lm", "brown-protocol") == tmp_path / "home" / ".cache" / "plgraph" / "lm" / "brown-protocol"
    assert not (tmp_path / "home").exists()          # asking for a path creates nothing


def test_xdg_cache_home_then_plgraph_cache(env, tmp_path):
    env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir("x") == tmp_path / "xdg" / "plgraph" / "x"
    env.setenv("PLGRAPH_CACHE", str(tmp_path / "mine"))       # PLGRAPH_CACHE wins, used as is (no /plgraph)
    assert cache_dir("x") == tmp_path / "mine" / "x"
    env.setenv("PLGRAPH_CACHE", "")                             # empty = unset
    assert cache_dir("x") == tmp_path / "xdg" / "plgraph" / "x"


def test_relative_values(env, tmp_path):
    env.setenv("XDG_CACHE_HOME", "relative/xdg")                # XDG rule: a relative value is ignored
    assert cache_root() == tmp_path / "home" / ".cache" / "plgraph"
    env.chdir(tmp_path)
    env.setenv("PLGRAPH_CACHE", "rel")                          # taken relative to the current directory
    assert cache_root() == tmp_path / "rel" and cache_root().is_absolute()
    env.setenv("PLGRAPH_CACHE", "~/c")
    assert cache_root() == tmp_path / "home" / "c"


@pytest.mark.parametrize("part", ["../elsewhere", "/abs", "a/../../b"])
def test_parts_stay_inside(env, part):
    with pytest.raises(ValueError, match="inside the cache"):
        cache_dir(part)


def test_pruner_cache_follows_plgraph_cache(env, tmp_path):
    import plgraph.files.cache
    from plgraph.pruners import notebook as pipeline

    env.setenv("PLGRAPH_CACHE", str(tmp_path / "c"))
    env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))     # the variable the pruner cache used to follow
    seen = []

    class Stop(Exception):
        pass

    def wait(folder, log=None, what=None):
        seen.append(Path(folder))
        raise Stop

    env.setattr(plgraph.files.cache, "wait_for_writer", wait)
    for quick in (True, False):
        with pytest.raises(Stop):
            pipeline.notebook_models(quick=quick)
    assert [p.parent for p in seen] == [tmp_path / "c"] * 2
    assert seen[0].name.startswith("pruners-quick-") and seen[1].name.startswith("pruners-full-")
    assert seen[0].name[len("pruners-quick-"):] == seen[1].name[len("pruners-full-"):]   # same code digest


def test_brown_protocol_cache_follows_xdg_cache_home(env, tmp_path):
    from plgraph.lm import corpora

    env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))     # the variable the LM cache did not follow before
    built = []

    def make(source, out):
        built.append(Path(out))
        return {n: Path(out) / f"{n}.txt" for n in corpora.SPLIT_NAMES}

    env.setattr(corpora, "find_corpus", lambda name, path=None: tmp_path / "brown-source")
    env.setattr(corpora, "make_brown_protocol", make)
    paths = corpora.brown_protocol(check=False)
    assert built == [tmp_path / "xdg" / "plgraph" / "lm" / "brown-protocol"]
    assert paths["train"] == tmp_path / "xdg" / "plgraph" / "lm" / "brown-protocol" / "train.txt"


def test_cached_model_waits_for_a_writer_then_loads_what_it_wrote(env, tmp_path):
    """A folder another process trains into is waited for and then loaded, not trained
    again; one that another process locks between the check and the build is waited
    for and loaded too."""
    import plgraph.files.cache
    from plgraph.files.cache import cached_model
    from plgraph.files.lock import FolderLockedError

    folder = tmp_path / "m"
    built, waits = [], []

    def wait(f, log=None, what=None):
        waits.append(f)

    env.setattr(plgraph.files.cache, "wait_for_writer", wait)

    def build_taken(f):                       # another process took the lock and wrote the model
        built.append(f)
        f.mkdir()
        (f / "done").write_text("theirs")
        raise FolderLockedError(f, 123)

    got = cached_model(folder, ready=lambda f: (f / "done").exists(), load=lambda f: (f / "done").read_text(),
                       build=build_taken, what="test model")
    assert got == "theirs" and len(built) == 1 and len(waits) == 2
    got = cached_model(folder, ready=lambda f: (f / "done").exists(), load=lambda f: "loaded",
                       build=lambda f: "built", what="test model")
    assert got == "loaded"

    def always_taken(f):
        raise FolderLockedError(f, 7)

    with pytest.raises(FolderLockedError, match="test model folder"):
        cached_model(tmp_path / "other", ready=lambda f: False, load=str, build=always_taken, what="test model")


def test_code_digest_follows_every_python_file_below(tmp_path):
    from plgraph.files.cache import code_digest

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "sub").mkdir()
    (tmp_path / "a" / "x.py").write_text("x = 1\n")
    (tmp_path / "a" / "sub" / "y.py").write_text("y = 1\n")
    (tmp_path / "a" / "notes.txt").write_text("not code")
    first = code_digest(tmp_path / "a")
    assert len(first) == 12
    (tmp_path / "a" / "notes.txt").write_text("changed, still not code")
    assert code_digest(tmp_path / "a") == first
    (tmp_path / "a" / "sub" / "y.py").write_text("y = 2\n")
    assert code_digest(tmp_path / "a") != first
