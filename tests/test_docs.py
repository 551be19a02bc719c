"""The documentation site builds with `mkdocs build --strict` (warnings are errors) and holds
the pages a reader navigates by: the home page, the guide, a rendered notebook, the API pages.

The notebooks are not executed here (PLGRAPH_DOCS_EXECUTE=false; `make docs` executes them in
quick mode), so the build takes seconds.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_NEEDED = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python", "mkdocs_jupyter")


def _missing() -> list[str]:
    missing = []
    for name in _NEEDED:
        try:
            if importlib.util.find_spec(name) is None:
                missing.append(name)
        except ModuleNotFoundError:
            missing.append(name)
    return missing


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    missing = _missing()
    if missing:
        pytest.skip(f"the docs extra is not installed (missing: {', '.join(missing)}); "
                    "install it with: pip install -e '.[docs]' (make test and make docs do)")
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, PLGRAPH_DOCS_EXECUTE="false", NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{log[-6000:]}"
    warnings = [line for line in log.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert not warnings, "\n".join(warnings)
    return out


def _page(site: Path, path: str) -> str:
    page = site / path / "index.html" if path else site / "index.html"
    assert page.is_file(), f"{page.relative_to(site)} was not built"
    return page.read_text(encoding="utf-8")


def test_home_page(site):
    html = _page(site, "")
    assert "plgraph" in html
    assert "make demo" in html and "make test" in html
    assert "Map of the documentation" in html
    # the home page links into every part of the site
    for target in ("guide/parser/", "design/", "results/", "notebooks/01_coverage/", "api/"):
        assert target in html, target


def test_parser_guide(site):
    html = _page(site, "guide/parser")
    assert "Training a model" in html
    assert "python -m plgraph parser train" in html
    assert "parser evaluate" in html
    assert "The model folder" in html


def test_rendered_notebook(site):
    html = _page(site, "notebooks/01_coverage")
    assert "Coverage of the graph representation" in html
    assert "compute_coverage" in html          # a code cell, rendered with its source
    assert (site / "notebooks" / "01_coverage" / "01_coverage.ipynb").is_file()   # the download link's target


def test_api_pages(site):
    html = _page(site, "api/plgraph")
    for name in ("plgraph.corpora.corpus", "plgraph.convert.tree_to_graph", "plgraph.structure.classify"):
        assert f'id="{name}"' in html, name
    assert 'id="plgraph.dep.DepModel"' in _page(site, "api/dep")
    assert 'id="plgraph.lm.train.train"' in _page(site, "api/lm")
    assert 'id="plgraph.eval.evalb.evalb"' in _page(site, "api/eval")


def test_results_and_experiments(site):
    html = _page(site, "results")
    assert "Current results" in html
    assert "python -m plgraph parser evaluate" in html
    experiments = sorted(p.name for p in (site / "experiments").iterdir() if p.name[:4].isdigit())
    assert experiments and all(name[:10].count("-") == 2 for name in experiments), experiments


def test_no_paths_into_the_shared_folder():
    # user-facing text never points into the shared folder beside the checkout, nor at issue numbers
    texts = {p: p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]}
    for path, text in texts.items():
        assert "../shared" not in text, path
        assert "shared/design" not in text, path
        assert "issue #" not in text.lower(), path
    assert len(texts[ROOT / "README.md"].splitlines()) <= 200
