"""Screenshots of notebooks as a researcher meets them: "Run All" in JupyterLab 4, in a
real (headless) Chromium, then page-by-page PNGs of the whole executed notebook.

    .venv/bin/python tools/screenshots/capture.py --out /tmp/screens/after 01 04 05 07

Contract
--------
* ``--repo DIR`` (default: the checkout this file lives in) is the JupyterLab server
  root; the kernel imports *that* checkout's ``plgraph`` (``DIR`` is put first on
  ``PYTHONPATH``) and runs with ``PLGRAPH_QUICK=1`` (``--full`` leaves it unset).  Before
  "Run All" the script asks the kernel for ``plgraph.__file__`` and stops if it is not
  under ``DIR``.  If ``PLGRAPH_DATA`` is unset and ``DIR/../shared/data`` does not exist
  (a clone in /tmp), ``PLGRAPH_DATA`` is set to the ``shared/data`` beside this script's
  checkout, so a clone finds the same corpora.
* Notebooks are named by prefix (``01``), by stem or by path; they are looked up in
  ``DIR/notebooks``.  Each is opened in a fresh browser page, run with the command
  ``notebook:run-all-cells`` and considered finished when that command has returned, the
  kernel is idle, no cell shows ``[*]`` and no "Loading widget..." text is left (the last
  two for 3 s in a row).  ``--timeout`` seconds per notebook (default 1200); on timeout
  the screenshots are still taken and the notebook is reported as timed out.
* The notebook is never saved: autosave is off (user settings in a temporary
  ``JUPYTERLAB_SETTINGS_DIR``) and no save command is issued, so the files other people
  are editing are not touched.  Windowing is off (``windowingMode: "none"``) so every
  cell is rendered.
* Output, in ``--out``: ``<stem>-pNN.png`` — browser-window screenshots (JupyterLab's
  chrome included, left side bar collapsed) scrolling the notebook from top to bottom
  with a 60 px overlap; with ``--tall`` also ``<stem>-full.png``, one PNG of the whole
  notebook (the window made as tall as the notebook, capped at 30,000 px); with
  ``--snap-every S`` also ``<stem>-run-NNNNNs.png`` while cells run (the running cell's
  bottom edge in view, every S seconds: progress bars as they are seen);
  ``--then NB=CODE`` runs CODE in that notebook's kernel after Run All and before the
  screenshots (e.g. to put the explorer on a long sentence; the notebook is not changed);
  ``<stem>.executed.ipynb`` (the executed notebook, for reading its outputs as text);
  ``summary.json`` (per notebook: seconds from "Run All" to finished, error outputs,
  cells left unexecuted, timed out, the kernel's plgraph path, files) and
  ``jupyterlab.log`` (the server's log).  Every file written is printed.
* The JupyterLab server (its own process group, token off, ``--allow-root`` when root,
  a free port on 127.0.0.1), its kernels and the browser are stopped on normal exit, on
  an error and on Ctrl-C / SIGTERM.
* Needs the ``notebooks`` and ``ui`` extras (JupyterLab 4, Playwright) and Debian's
  Chromium at ``/usr/bin/chromium`` (``make test-browser`` installs both).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_REPO = HERE.parent.parent
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
OVERLAP = 60          # px shared by consecutive page screenshots
TALL_CAP = 30_000     # px, the tallest window the --tall screenshot asks Chromium for
SETTLE = 3.0          # s the finished state must hold before the screenshots

#: JupyterLab user settings (plugin id -> values) for a reproducible, read-only session.
SETTINGS = {
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False},
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/lsp-extension:plugin": {"activate": "off"},
}

# Looked up at call time: the notebook widget whose document is `path`.
INIT_JS = """
window.__capNb = (path) => {
  const app = window.jupyterapp;
  if (!app || !app.shell) return null;
  return Array.from(app.shell.widgets('main')).find(w => w.context && w.context.path === path) || null;
};
"""
READY_JS = """async (path) => {
  const nb = window.__capNb(path);
  if (!nb || !nb.sessionContext) return 'no notebook';
  await nb.context.ready; await nb.sessionContext.ready;
  const k = nb.sessionContext.session && nb.sessionContext.session.kernel;
  return k ? k.status : 'no kernel';
}"""
KERNEL_EXEC_JS = """async ([path, code]) => {
  const k = window.__capNb(path).sessionContext.session.kernel;
  const fut = k.requestExecute({code, silent: false, store_history: false});
  let out = '';
  fut.onIOPub = (msg) => {
    const t = msg.header.msg_type;
    if (t === 'stream') out += msg.content.text;
    if (t === 'error') out += msg.content.ename + ': ' + msg.content.evalue + '\\n';
  };
  await fut.done;
  return out;
}"""
RUN_ALL_JS = """(path) => {
  const app = window.jupyterapp, nb = window.__capNb(path);
  app.shell.activateById(nb.id);
  if (!app.shell.leftCollapsed) app.shell.collapseLeft();
  window.__capRun = {done: false, error: null};
  app.commands.execute('notebook:run-all-cells').then(
    (r) => { window.__capRun.done = true; },
    (e) => { window.__capRun.done = true; window.__capRun.error = String(e); });
  return true;
}"""
STATE_JS = """(path) => {
  const nb = window.__capNb(path);
  const k = nb.sessionContext.session && nb.sessionContext.session.kernel;
  const prompts = Array.from(nb.content.node.querySelectorAll('.jp-Cell.jp-CodeCell .jp-InputPrompt'));
  const running = prompts.findIndex(e => e.textContent.includes('*'));
  const text = nb.content.node.textContent;
  const loading = (text.match(/Loading widget\\.\\.\\./g) || []).length;
  const images = Array.from(nb.content.node.querySelectorAll('img')).every(i => i.complete);
  return {run: window.__capRun, status: k ? k.status : 'none', running,
          busy: prompts.filter(e => e.textContent.includes('*')).length, loading, images,
          cells: prompts.length};
}"""
# Marks the notebook's scrolling element and returns its geometry.
SCROLLER_JS = """(path) => {
  const nb = window.__capNb(path);
  const cands = [nb.content.node, ...nb.content.node.querySelectorAll('*'), nb.node];
  let best = nb.content.node, gain = -1;
  for (const el of cands) {
    const oy = getComputedStyle(el).overflowY;
    if ((oy === 'auto' || oy === 'scroll') && el.scrollHeight - el.clientHeight > gain) {
      best = el; gain = el.scrollHeight - el.clientHeight;
    }
  }
  best.setAttribute('data-cap-scroller', '1');
  // JupyterLab pads the end of a notebook; stop at the last cell's bottom edge instead.
  const cells = nb.content.node.querySelectorAll('.jp-Cell');
  const last = cells.length ? cells[cells.length - 1].getBoundingClientRect().bottom : 0;
  const content = Math.ceil(last - best.getBoundingClientRect().top + best.scrollTop) + 24;
  return {scrollHeight: best.scrollHeight, clientHeight: best.clientHeight,
          contentHeight: Math.min(best.scrollHeight, content)};
}"""
SCROLL_JS = """(y) => { const s = document.querySelector('[data-cap-scroller]'); s.scrollTop = y; return s.scrollTop; }"""
# Scrolls the running code cell's bottom edge into view (for --snap-every).
SHOW_RUNNING_JS = """(path) => {
  const nb = window.__capNb(path);
  const p = Array.from(nb.content.node.querySelectorAll('.jp-Cell.jp-CodeCell .jp-InputPrompt'))
    .find(e => e.textContent.includes('*'));
  if (p) p.closest('.jp-Cell').scrollIntoView({block: 'end'});
  return !!p;
}"""
MODEL_JS = """(path) => window.__capNb(path).model.toJSON()"""
SHUTDOWN_JS = """async (path) => { const nb = window.__capNb(path); if (nb) await nb.sessionContext.shutdown(); return true; }"""
CHECK_CODE = ("import os, plgraph\n"
              "print(os.path.realpath(plgraph.__file__))\n"
              "print(os.environ.get('PLGRAPH_QUICK', ''))\n")


def say(msg: str) -> None:
    print(msg, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def resolve_notebooks(repo: Path, names: list[str]) -> list[Path]:
    folder = repo / "notebooks"
    out = []
    for name in names:
        p = Path(name)
        if p.suffix == ".ipynb" and (repo / p).is_file():
            out.append((repo / p).resolve())
            continue
        if p.suffix == ".ipynb" and p.is_file():
            out.append(p.resolve())
            continue
        hits = sorted(q for q in folder.glob("*.ipynb") if q.stem == name or q.stem.startswith(name))
        if len(hits) != 1:
            raise SystemExit(f"capture.py: notebook {name!r}: {len(hits)} matches in {folder} "
                             f"({', '.join(q.name for q in hits) or 'none'})")
        out.append(hits[0].resolve())
    for nb in out:
        try:
            nb.relative_to(repo)
        except ValueError:
            raise SystemExit(f"capture.py: {nb} is not inside the server root {repo}") from None
    return out


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (from /proc), deepest last."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


class Server:
    """A JupyterLab 4 server in its own process group with throw-away settings."""

    def __init__(self, repo: Path, env_extra: dict[str, str], quick: bool, log_path: Path):
        self.tmp = Path(tempfile.mkdtemp(prefix="plgraph-screens-"))
        for plugin, values in SETTINGS.items():
            pkg, name = plugin.split(":")
            f = self.tmp / "settings" / pkg / f"{name}.jupyterlab-settings"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(json.dumps(values, indent=2))
        (self.tmp / "workspaces").mkdir()
        (self.tmp / "runtime").mkdir()
        (self.tmp / "checkpoints").mkdir()
        env = dict(os.environ)
        env.pop("MPLBACKEND", None)           # the kernel's inline backend, as in a real session
        env.pop("JUPYTER_TOKEN", None)
        env["PYTHONPATH"] = os.pathsep.join([str(repo), *filter(None, [os.environ.get("PYTHONPATH")])])
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env["JUPYTERLAB_SETTINGS_DIR"] = str(self.tmp / "settings")
        env["JUPYTERLAB_WORKSPACES_DIR"] = str(self.tmp / "workspaces")
        env["JUPYTER_RUNTIME_DIR"] = str(self.tmp / "runtime")
        if quick:
            env["PLGRAPH_QUICK"] = "1"
        else:
            env.pop("PLGRAPH_QUICK", None)
        if "PLGRAPH_DATA" not in env and not (repo.parent / "shared" / "data").is_dir():
            own = DEFAULT_REPO.parent / "shared" / "data"
            if own.is_dir():
                env["PLGRAPH_DATA"] = str(own)
                say(f"PLGRAPH_DATA={own} (no shared/data beside {repo})")
        env.update(env_extra)
        self.env = env
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
               "--port-retries=0", f"--ServerApp.root_dir={repo}", "--IdentityProvider.token=",
               "--ServerApp.password=", "--LabApp.expose_app_in_browser=True",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
               "--ServerApp.terminals_enabled=False",
               f"--FileCheckpoints.root_dir={self.tmp / 'checkpoints'}"]  # no .ipynb_checkpoints/ in the repo
        if os.geteuid() == 0:
            cmd.append("--allow-root")
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(cmd, cwd=repo, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.log_path = log_path

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"capture.py: JupyterLab exited (code {self.proc.returncode}); see {self.log_path}")
            try:
                urllib.request.urlopen(self.url + "/api", timeout=2).read()
                return
            except Exception:
                time.sleep(0.5)
        raise SystemExit(f"capture.py: JupyterLab did not answer on {self.url} in {timeout:.0f} s; see {self.log_path}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            procs = descendants(self.proc.pid)    # kernels run in their own sessions
            self.proc.send_signal(signal.SIGTERM)  # the server shuts its kernels down
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait()
            for pid in procs:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def capture_one(browser, server: Server, repo: Path, nb_path: Path, out: Path, args) -> dict:
    rel = nb_path.relative_to(repo).as_posix()
    stem = nb_path.stem
    info: dict = {"notebook": rel, "files": []}
    context = browser.new_context(viewport={"width": args.width, "height": args.height})
    context.add_init_script(INIT_JS)
    page = context.new_page()
    try:
        page.goto(f"{server.url}/lab/tree/{rel}?reset", timeout=120_000)
        page.wait_for_function(f"() => window.__capNb({json.dumps(rel)}) !== null", timeout=120_000)
        status = page.evaluate(READY_JS, rel)
        deadline = time.time() + 120
        while status not in ("idle",) and time.time() < deadline:
            time.sleep(0.5)
            status = page.evaluate(READY_JS, rel)
        if status != "idle":
            raise SystemExit(f"capture.py: {rel}: kernel not idle after 120 s (status {status!r})")
        where, quick = (page.evaluate(KERNEL_EXEC_JS, [rel, CHECK_CODE]).splitlines() + ["", ""])[:2]
        info["plgraph"], info["PLGRAPH_QUICK"] = where, quick
        if not Path(where).is_relative_to(repo.resolve()):
            raise SystemExit(f"capture.py: {rel}: the kernel imports plgraph from {where!r}, not from {repo}")
        say(f"{rel}: kernel imports {where} (PLGRAPH_QUICK={quick or 'unset'}); Run All")
        page.evaluate(RUN_ALL_JS, rel)
        t0 = time.time()
        stable_since, last_note, settled_at, last_snap = None, t0, None, t0
        timed_out = False
        while True:
            st = page.evaluate(STATE_JS, rel)
            now = time.time()
            executed = st["run"]["done"] and st["status"] == "idle" and st["busy"] == 0
            if executed and settled_at is None:
                settled_at = now
            finished = executed and st["loading"] == 0 and st["images"]
            if finished:
                stable_since = stable_since or now
                if now - stable_since >= SETTLE:
                    break
            else:
                stable_since = None
            if now - t0 > args.timeout:
                timed_out = True
                say(f"{rel}: TIMEOUT after {args.timeout:.0f} s ({st})")
                break
            if args.snap_every and now - last_snap >= args.snap_every and st["running"] >= 0:
                page.evaluate(SHOW_RUNNING_JS, rel)
                f = out / f"{stem}-run-{now - t0:05.0f}s.png"
                page.screenshot(path=str(f))
                info["files"].append(str(f))
                last_snap = now
            if now - last_note >= 30:
                where_now = (f"code cell {st['running'] + 1} of {st['cells']} running" if st["running"] >= 0
                             else f"kernel {st['status']}, {st['loading']} widget(s) loading")
                say(f"{rel}: {now - t0:.0f} s, {where_now}")
                last_note = now
            time.sleep(0.5)
        info["seconds"] = round((settled_at or time.time()) - t0, 1)
        info["timed_out"] = timed_out
        info["widgets_loading"] = st["loading"]
        if st["run"].get("error"):
            info["run_all_error"] = st["run"]["error"]
        for code_then in args.then.get(stem, []):
            said = page.evaluate(KERNEL_EXEC_JS, [rel, code_then]).strip()
            info.setdefault("then", []).append({"code": code_then, "output": said})
            say(f"{rel}: ran {code_then!r} in the kernel" + (f": {said}" if said else ""))
            page.wait_for_timeout(1000)
            deadline = time.time() + 60
            while time.time() < deadline:
                st = page.evaluate(STATE_JS, rel)
                if st["status"] == "idle" and st["loading"] == 0 and st["images"]:
                    break
                time.sleep(0.5)
            page.wait_for_timeout(1000)
        model = page.evaluate(MODEL_JS, rel)
        code = [c for c in model["cells"] if c["cell_type"] == "code" and c["source"].strip()]
        info["code_cells"] = len(code)
        info["unexecuted_cells"] = sum(1 for c in code if c.get("execution_count") is None)
        info["errors"] = [f"cell {model['cells'].index(c) + 1}: {o.get('ename')}: {o.get('evalue')}"
                          for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
        executed_path = out / f"{stem}.executed.ipynb"
        executed_path.write_text(json.dumps(model, indent=1))
        info["files"].append(str(executed_path))
        # Page-by-page screenshots, top to bottom.
        geo = page.evaluate(SCROLLER_JS, rel)
        step = max(100, geo["clientHeight"] - OVERLAP)
        bottom = max(0, geo["contentHeight"] - geo["clientHeight"])
        ys = list(range(0, bottom, step)) + [bottom]
        if len(ys) > args.max_pages:
            say(f"{rel}: {len(ys)} pages; keeping the first {args.max_pages} (--max-pages)")
            ys = ys[:args.max_pages]
        for k, y in enumerate(ys, 1):
            page.evaluate(SCROLL_JS, y)
            page.wait_for_timeout(400)
            f = out / f"{stem}-p{k:02d}.png"
            page.screenshot(path=str(f))
            info["files"].append(str(f))
        if args.tall:
            page.evaluate(SCROLL_JS, 0)
            extra = max(0, geo["contentHeight"] - geo["clientHeight"])
            h = min(TALL_CAP, args.height + extra)
            if h == TALL_CAP:
                say(f"{rel}: notebook is {geo['contentHeight']} px tall; the full PNG is cut at {TALL_CAP} px")
            page.set_viewport_size({"width": args.width, "height": h})
            page.wait_for_timeout(1500)
            f = out / f"{stem}-full.png"
            page.screenshot(path=str(f))
            info["files"].append(str(f))
        info["notebook_px"] = geo["contentHeight"]
        try:
            page.evaluate(SHUTDOWN_JS, rel)  # free the kernel before the next notebook
        except Exception:
            pass
        return info
    finally:
        context.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("notebooks", nargs="+", help="notebook prefixes, stems or paths (e.g. 01 04 05 07)")
    ap.add_argument("--repo", type=Path, default=DEFAULT_REPO,
                    help="checkout to serve and import plgraph from (default: %(default)s)")
    ap.add_argument("--out", type=Path, required=True, help="folder for the PNGs (created)")
    ap.add_argument("--timeout", type=float, default=1200, help="seconds per notebook (default %(default)s)")
    ap.add_argument("--width", type=int, default=1500)
    ap.add_argument("--height", type=int, default=1100)
    ap.add_argument("--max-pages", type=int, default=40)
    ap.add_argument("--tall", action="store_true", help="also one tall PNG of the whole notebook")
    ap.add_argument("--snap-every", type=float, default=0, metavar="S",
                    help="while cells run, also a screenshot of the running cell every S seconds "
                         "(<notebook>-run-NNNNNs.png; default: off)")
    ap.add_argument("--full", action="store_true", help="full mode: do not set PLGRAPH_QUICK=1")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                    help="extra environment for the server and kernels (repeatable), "
                         "e.g. --env XDG_CACHE_HOME=/tmp/fresh-cache")
    ap.add_argument("--then", action="append", default=[], metavar="NB=CODE",
                    help="after Run All, run CODE in notebook NB's kernel before the screenshots "
                         "(not added to the notebook; repeatable), e.g. "
                         "--then '05=explorer.sentence.value = \"wsj_0141.22\"'")
    args = ap.parse_args(argv)

    repo = args.repo.resolve()
    if not (repo / "plgraph" / "__init__.py").is_file():
        ap.error(f"--repo {repo} holds no plgraph/ package")
    if not os.path.exists(CHROMIUM):
        ap.error(f"{CHROMIUM} not found: `apt-get install chromium` (as `make test-browser` does)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        ap.error("playwright is not installed: `.venv/bin/python -m pip install -e '.[notebooks,test,ui]'`")
    env_extra = {}
    for kv in args.env:
        k, sep, v = kv.partition("=")
        if not sep:
            ap.error(f"--env {kv!r}: expected KEY=VALUE")
        env_extra[k] = v
    notebooks = resolve_notebooks(repo, args.notebooks)
    then: dict[str, list[str]] = {}
    for item in args.then:
        name, sep, code = item.partition("=")
        if not sep or not code.strip():
            ap.error(f"--then {item!r}: expected NB=CODE")
        then.setdefault(resolve_notebooks(repo, [name])[0].stem, []).append(code)
    args.then = then
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)

    def on_signal(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, on_signal)

    server = None
    results = []
    t_all = time.time()
    try:
        server = Server(repo, env_extra, quick=not args.full, log_path=out / "jupyterlab.log")
        say(f"JupyterLab on {server.url} (root {repo}); log {server.log_path}")
        server.wait_ready()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            try:
                for nb in notebooks:
                    info = capture_one(browser, server, repo, nb, out, args)
                    results.append(info)
                    flag = " TIMED OUT" if info["timed_out"] else ""
                    say(f"{info['notebook']}: {info['seconds']} s{flag}, {len(info['errors'])} error output(s), "
                        f"{info['unexecuted_cells']} cell(s) not run, {info['widgets_loading']} widget(s) not rendered")
                    for e in info["errors"]:
                        say(f"  error: {e}")
                    for f in info["files"]:
                        say(f"  wrote {f}")
            finally:
                browser.close()
    except KeyboardInterrupt:
        say("capture.py: interrupted; stopping JupyterLab and the browser")
        return 130
    finally:
        if server is not None:
            server.stop()
        if results:
            summary = out / "summary.json"
            summary.write_text(json.dumps({"repo": str(repo), "quick": not args.full, "notebooks": results,
                                           "total_seconds": round(time.time() - t_all, 1)}, indent=2))
            say(f"wrote {summary}")
        if server is not None:
            say(f"wrote {server.log_path}")
    bad = [r for r in results if r["timed_out"] or r["errors"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
