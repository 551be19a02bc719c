"""pyproject.toml is the single source of dependencies; environment.yml must mirror it."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _split(req: str):
    m = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*(.*)", req)
    return m.group(1).lower().replace("_", "-"), m.group(2).replace(" ", "")


def test_environment_yml_mirrors_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = dict(_split(r) for r in project["dependencies"])
    for extra in ("notebooks", "test", "dist"):
        wanted.update(_split(r) for r in project["optional-dependencies"][extra])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = {}
    pip_lines = []
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip_lines += dep["pip"]
            continue
        name, spec = _split(dep)
        if name not in ("python", "pip"):
            conda[name] = spec
    assert conda == wanted
    assert pip_lines == ["-e .[notebooks,test,dist]"]
    assert any(str(d).startswith("python=3.11") for d in env["dependencies"] if isinstance(d, str))
    assert project["requires-python"] == ">=3.11"


def test_numba_pin_lets_numba_cap_numpy():
    # numba lags numpy releases: never pin numpy above what numba supports; numba's own
    # requirement (numpy<2.6 for numba 0.68) constrains it
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    deps = dict(_split(r) for r in project["dependencies"])
    assert deps["numba"].startswith(">=") and "<" not in deps["numpy"]
