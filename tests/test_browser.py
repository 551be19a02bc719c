"""A real browser: Voilà serves notebooks/05_arc_explorer.ipynb on 127.0.0.1 and
headless Chromium (Debian's, driven by Playwright; no browser download) changes
the selected sentence and checks the drawing.  Run by ``make test-browser``
(which installs Chromium if missing); deselected from ``make test``.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def voila_url(sample_dir):
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium not installed: `make test-browser` installs Debian's chromium")
    pytest.importorskip("playwright")
    pytest.importorskip("voila")
    port = _free_port()
    log = open(ROOT / ".pytest_cache" / "voila.log", "w") if (ROOT / ".pytest_cache").exists() else subprocess.DEVNULL
    proc = subprocess.Popen(
        [sys.executable, "-m", "voila", str(ROOT / "notebooks" / "05_arc_explorer.ipynb"), "--no-browser",
         f"--port={port}", "--Voila.ip=127.0.0.1", "--Voila.tornado_settings={'autoreload': False}"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, MPLBACKEND="Agg"),
        start_new_session=True)
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
    yield url
    os.killpg(proc.pid, signal.SIGTERM)  # voila and the kernels it started
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def test_explorer_in_a_real_browser(voila_url, tmp_path):
    from playwright.sync_api import sync_playwright

    import plgraph

    dev = plgraph.corpus("dev")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            page.goto(voila_url, timeout=120_000)
            page.wait_for_selector(".widget-html svg.plgraph", timeout=180_000)
            first = page.locator(".widget-html svg.plgraph").first
            before = first.inner_html()
            sid0 = page.locator("select").nth(2).input_value()
            assert first.locator("path").count() == dev[sid0].graph.n_edges
            # choose another sentence in the first explorer's "sentence" dropdown
            target = dev.sentences()[5].id
            page.locator("select").nth(2).select_option(target)
            page.wait_for_function(
                "([old]) => document.querySelector('.widget-html svg.plgraph').innerHTML !== old",
                arg=[before], timeout=30_000)
            svg = page.locator(".widget-html svg.plgraph").first
            edges = svg.locator("path")
            assert edges.count() == dev[target].graph.n_edges  # one path per edge
            classes = [edges.nth(k).get_attribute("class") for k in range(edges.count())]
            assert all(c.split()[0] == "edge" and c.split()[1] in ("structural", "trace") for c in classes)
            assert svg.locator("path.structural").count() == int((dev[target].graph.kind == 0).sum())
            out = ROOT / "figures" / "explorer_screenshot.png"
            page.screenshot(path=str(out), full_page=False)
            assert out.stat().st_size > 10_000
        finally:
            browser.close()
