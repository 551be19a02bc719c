"""A real browser: Voilà serves the notebooks on 127.0.0.1 and
headless Chromium (Debian's, driven by Playwright; no browser download) drives
the first explorer's controls — next, search, zoom / fit width, the sentence
dropdown, Save — and checks the drawing, the saved file's name and content.  It
then writes ``figures/explorer_screenshot.png`` once every widget has rendered.  A second
test serves notebooks/08_graph_parsing.ipynb (quick mode) and switches its explorer of
predicted graphs from the gold view to predicted-over-gold, checking the arcs' classes.
Run by ``make test-browser`` (which installs Chromium if missing); deselected
from ``make test``.  Save writes into a temporary folder (``PLGRAPH_FIGURES`` is
set for the Voilà kernel), never into the repository.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FIRST_SVG = "document.querySelector('.widget-html svg.plgraph')"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def _voila(notebook: str, save_dir: Path):
    """Serve ``notebooks/<notebook>`` with Voilà on a free port; yields its URL."""
    port = _free_port()
    log = open(ROOT / ".pytest_cache" / f"voila-{notebook}.log", "w") if (ROOT / ".pytest_cache").exists() \
        else subprocess.DEVNULL
    proc = subprocess.Popen(
        [sys.executable, "-m", "voila", str(ROOT / "notebooks" / notebook), "--no-browser",
         f"--port={port}", "--Voila.ip=127.0.0.1", "--Voila.tornado_settings={'autoreload': False}"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        env=dict(os.environ, MPLBACKEND="Agg", PLGRAPH_FIGURES=str(save_dir)), start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "voila/static/", timeout=2)
            break
        except Exception:
            if proc.poll() is not None:
                pytest.fail("voila exited early")
            time.sleep(0.5)
    try:
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # voila and the kernels it started
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def _need_browser() -> None:
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium not installed: `make test-browser` installs Debian's chromium")
    pytest.importorskip("playwright")
    pytest.importorskip("voila")


@pytest.fixture(scope="module")
def voila(sample_dir, tmp_path_factory):
    _need_browser()
    save_dir = tmp_path_factory.mktemp("explorer-saves")
    with _voila("05_arc_explorer.ipynb", save_dir) as url:
        yield url, save_dir


@contextmanager
def _explorer_page(url: str, timeout_ms: int):
    """Headless Chromium on ``url`` once every widget has rendered: ``(page, explorer)``,
    the explorer being the first widget box that draws a graph."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            page.goto(url, timeout=timeout_ms)
            page.wait_for_selector(".widget-html svg.plgraph", timeout=timeout_ms)
            # every widget rendered: no "Loading widget..." placeholder left
            page.wait_for_function("() => !document.body.innerText.includes('Loading widget')", timeout=60_000)
            yield page, page.locator(".widget-vbox").filter(has=page.locator("svg.plgraph")).first
        finally:
            browser.close()


def _shown_id(page) -> str:
    return page.evaluate(f"{FIRST_SVG}.querySelector('title').textContent")


def _wait_for_id(page, sid: str) -> None:
    page.wait_for_function(f"([sid]) => {FIRST_SVG} && {FIRST_SVG}.querySelector('title').textContent === sid",
                           arg=[sid], timeout=30_000)


def _svg_box(page) -> dict:
    return page.evaluate(f"""() => {{ const s = {FIRST_SVG}; const r = s.getBoundingClientRect();
        const c = s.closest('.plgraph-canvas');
        return {{width: r.width, height: r.height, area: c.clientWidth, scroll: c.scrollWidth,
                 attr: s.getAttribute('width')}}; }}""")


def test_explorer_in_a_real_browser(voila):
    import plgraph
    from plgraph.viz import compute_layout, display_text, render_svg

    url, save_dir = voila
    dev = plgraph.corpus("dev")
    ids = [s.id for s in dev.sentences()]
    with _explorer_page(url, 180_000) as (page, explorer):
        text = explorer.inner_text()
        assert "<b>" not in text and not any("<" in t for t in explorer.locator(".widget-label").all_inner_texts())
        assert re.search(rf"\b\d+ of {len(ids)} match\b", text)
        assert "structural" in text and "1EC violation" in text and "(gapping)" in text  # the legend
        # the sentence dropdown shows each id with its first words
        options = explorer.locator("select").nth(2).locator("option")
        labels = [t.replace("\xa0", " ") for t in options.all_inner_texts()]  # ipywidgets writes nbsp
        assert len(labels) == len(ids) and labels[0].startswith(ids[0] + " \u2014 Criminal charges")

        # next: the sentence after the one shown (one path per edge, kind classes)
        sid0 = _shown_id(page)
        explorer.get_by_role("button", name="next").click()
        target = ids[ids.index(sid0) + 1]
        _wait_for_id(page, target)
        svg = explorer.locator("svg.plgraph")
        edges = svg.locator("path")
        assert edges.count() == dev[target].graph.n_edges
        classes = [edges.nth(k).get_attribute("class") for k in range(edges.count())]
        assert all(c.split()[0] == "edge" and c.split()[1] in ("structural", "trace") for c in classes)
        assert svg.locator("path.structural").count() == int((dev[target].graph.kind == 0).sum())
        assert svg.locator("polygon.arrow").count() == edges.count()

        # search: a phrase of the longest sentence finds it alone
        longest = max(dev.sentences(), key=lambda s: len(s.graph.words))
        phrase = " ".join(display_text(longest.graph.words).split()[3:9])
        explorer.locator("input[type=text]").fill(phrase)
        _wait_for_id(page, longest.id)
        assert f"1 of {len(ids)} match" in explorer.inner_text()

        # zoom: 100% is full size and scrolls sideways; fit width shrinks it into the area
        lay = compute_layout(longest.graph)
        explorer.locator("select").nth(3).select_option(label="100%")
        page.wait_for_function(f"() => {FIRST_SVG}.getAttribute('width') === '{lay.width:.1f}'", timeout=30_000)
        full = _svg_box(page)
        assert abs(full["width"] - lay.width) < 1.5 and full["scroll"] > full["area"]
        explorer.locator("select").nth(3).select_option(label="fit width")
        page.wait_for_function(f"() => {FIRST_SVG}.getAttribute('width') === '100%'", timeout=30_000)
        fit = _svg_box(page)
        assert fit["width"] <= fit["area"] + 1 and fit["scroll"] <= fit["area"] + 1
        assert abs(fit["height"] / fit["width"] - lay.height / lay.width) < 0.01  # aspect kept

        # Save: the full id in the file name, the drawing at full size in the file
        explorer.get_by_role("button", name="Save").click()
        svg_file = save_dir / f"graph_{longest.id}.svg"
        page.wait_for_function("() => document.body.innerText.includes('saved ')", timeout=60_000)
        assert svg_file.exists() and (save_dir / f"graph_{longest.id}.png").stat().st_size > 10_000
        saved = svg_file.read_text()
        assert saved == render_svg(longest.graph)
        assert f"<title>{longest.id}</title>" in saved
        assert saved.count("<path ") == longest.graph.n_edges == svg.locator("path").count()

        # the screenshot: gapping edges that violate 1EC (cyan over orange), found by search, fitted
        explorer.locator("input[type=text]").fill("will be liquidated and shares")
        _wait_for_id(page, "wsj_0163.3")
        explorer.scroll_into_view_if_needed()
        page.evaluate("() => document.querySelector('.widget-vbox').scrollIntoView({block: 'start'})")
        page.wait_for_timeout(300)
        assert "Loading widget" not in page.inner_text("body")
        out = ROOT / "figures" / "explorer_screenshot.png"
        page.screenshot(path=str(out), full_page=False)
        assert out.stat().st_size > 10_000


def test_predicted_graphs_over_gold_in_a_real_browser(sample_dir, tmp_path):
    """Notebook 08 (quick mode: plgraph's released model, the first 40 test sentences): the
    explorer of predicted over gold graphs, switched from the gold view to the comparison
    with its "compare with overlay" box, draws every arc with the right / wrong / missing
    class the layout gives that sentence's gold and predicted graphs."""
    import plgraph
    from plgraph.parser.parsing.parser import Parser
    from plgraph.release import default_model_dir
    from plgraph.viz import compute_layout

    _need_browser()
    assert os.environ.get("PLGRAPH_QUICK") == "1", "the notebook's quick mode parses with the released model"
    parser = Parser.load(default_model_dir(), scorer="linear")
    test = {s.id: s for s in plgraph.corpus("test").sentences()[:40]}
    with _voila("08_graph_parsing.ipynb", tmp_path) as url, _explorer_page(url, 300_000) as (page, explorer):
        assert "errors" in explorer.inner_text()
        box = explorer.get_by_role("checkbox", name="compare with overlay")
        sid = _shown_id(page)
        s = test[sid]
        pred = parser.parse(s.graph.words, s.graph.tags, sid=sid)
        svg = explorer.locator("svg.plgraph")

        def classes():
            paths = svg.locator("path")
            return sorted(paths.nth(k).get_attribute("class") for k in range(paths.count()))

        box.uncheck()                      # the gold graph alone
        page.wait_for_function(f"() => !{FIRST_SVG}.querySelector('path.right, path.wrong, path.missing')",
                               timeout=30_000)
        assert classes() == sorted(" ".join(["edge", a.kind] + a.classes) for a in compute_layout(s.graph).arcs)
        box.check()                        # predicted over gold
        page.wait_for_function(f"() => !!{FIRST_SVG}.querySelector('path.right, path.wrong, path.missing')",
                               timeout=30_000)
        want = sorted(" ".join(["edge", a.kind] + a.classes) for a in compute_layout(s.graph, pred).arcs)
        assert classes() == want
        assert any("missing" in c or "wrong" in c for c in want)   # the filter: a sentence with a missed trace
