"""Language models against KenLM: perplexity, wall time, peak memory, side by side.

    make bench-lm        # = .venv/bin/python bench/bench_lm.py --build-kenlm

KenLM (``lmplz``/``query``/``build_binary``) is a benchmark peer only, never a dependency
and never part of this repository: with ``--build-kenlm`` this script downloads the PyPI
``kenlm`` source distribution with pip (``pip download --no-deps --no-binary :all:
kenlm==0.3.0``), builds it with CMake against Debian's Boost under
``$PLGRAPH_CACHE/kenlm`` (default ``~/.cache/plgraph/kenlm``; or ``--kenlm-cache``), and
reuses that build afterwards.  The
Debian packages it needs are ``libboost-program-options-dev libboost-system-dev
libboost-thread-dev libboost-test-dev`` (plus ``cmake g++ zlib1g-dev libbz2-dev
liblzma-dev``); ``--install-deps`` runs ``apt-get install`` for the missing ones.
``--kenlm DIR`` uses binaries you already have.

Both toolkits see the same text: the corpus files with the literal unknown word renamed
to ``UNKTOK`` (lmplz refuses ``<unk>`` in its input; notes §2.1).  Every step runs as
its own process; wall time and peak RSS come from ``wait4``.  For each order: ``plgraph
lm train`` vs ``lmplz -o N -S 20%``; ``plgraph lm eval`` vs ``query`` (on the binary
built by ``build_binary``); and our ARPA export scored by KenLM's ``query`` as a cross-check.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from plgraph.files.cache import cache_dir  # noqa: E402

KENLM_VERSION = "0.3.0"
APT_PACKAGES = ["libboost-program-options-dev", "libboost-system-dev", "libboost-thread-dev",
                "libboost-test-dev", "cmake", "g++", "zlib1g-dev", "libbz2-dev", "liblzma-dev"]


GNU_TIME = Path("/usr/bin/time").exists()


def run_measured(cmd, stdin=None, stdout=None) -> dict:
    """Run a command: wall seconds, peak RSS (MB), stdout and stderr.

    Peak RSS comes from GNU ``time`` (``%M``) when it is installed: ``wait4``'s
    ``ru_maxrss`` would also count the pages of this (forking) Python process.
    """
    fin = open(stdin, "rb") if stdin else subprocess.DEVNULL
    fout = open(stdout, "wb") if stdout else subprocess.PIPE
    ferr = tempfile.TemporaryFile()
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tfile:
        full = ["/usr/bin/time", "-f", "%M", "-o", tfile.name, *map(str, cmd)] if GNU_TIME else list(map(str, cmd))
        t = time.perf_counter()
        proc = subprocess.Popen(full, stdin=fin, stdout=fout, stderr=ferr)
        chunks = []
        if not stdout:
            for chunk in iter(lambda: proc.stdout.read(65536), b""):
                chunks.append(chunk)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        rss_kb = usage.ru_maxrss
        if GNU_TIME:
            text = tfile.read().strip().splitlines()
            if text and text[-1].isdigit():
                rss_kb = int(text[-1])
    proc.returncode = os.waitstatus_to_exitcode(status)
    for f in (fin, fout):
        if hasattr(f, "close"):
            f.close()
    ferr.seek(0)
    err = ferr.read().decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{err[-3000:]}")
    return {"wall": wall, "rss_mb": rss_kb / 1024, "stdout": b"".join(chunks).decode(errors="replace"),
            "stderr": err}


# ----------------------------------------------------------------------------------------------
# KenLM build

def missing_apt_packages() -> list[str]:
    missing = []
    for pkg in APT_PACKAGES:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True)
        if "install ok installed" not in r.stdout:
            missing.append(pkg)
    return missing


def build_kenlm(cache: Path, install_deps: bool) -> tuple[Path, dict]:
    """lmplz/query/build_binary from the PyPI sdist, built under ``cache``; returns (bin dir, timings)."""
    bindir = cache / f"kenlm-{KENLM_VERSION}" / "build" / "bin"
    timings = {}
    if all((bindir / b).exists() for b in ("lmplz", "query", "build_binary")):
        return bindir, {"reused": True}
    missing = missing_apt_packages()
    if missing:
        if not install_deps:
            raise SystemExit("KenLM needs Debian packages: apt-get install -y " + " ".join(missing) +
                             "\n(or rerun with --install-deps)")
        t = time.perf_counter()
        subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", *missing], check=True)
        timings["apt_s"] = time.perf_counter() - t
    cache.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    sdist = cache / f"kenlm-{KENLM_VERSION}.tar.gz"
    if not sdist.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                        f"kenlm=={KENLM_VERSION}", "-d", str(cache)], check=True)
    timings["download_s"] = time.perf_counter() - t
    src = cache / f"kenlm-{KENLM_VERSION}"
    if not src.exists():
        shutil.unpack_archive(str(sdist), str(cache))
    build = src / "build"
    build.mkdir(exist_ok=True)
    t = time.perf_counter()
    log = build / "build.log"
    with open(log, "w") as fh:
        for step in (["cmake", "..", "-DCMAKE_BUILD_TYPE=Release"],
                     ["make", f"-j{os.cpu_count() or 2}", "lmplz", "query", "build_binary"]):
            if subprocess.run(step, cwd=build, stdout=fh, stderr=subprocess.STDOUT).returncode != 0:
                raise SystemExit(f"KenLM build failed ({' '.join(step)}); see {log}")
    timings["build_s"] = time.perf_counter() - t
    return bindir, timings


# ----------------------------------------------------------------------------------------------
# runs

def renamed_copy(src: Path, dst: Path) -> None:
    text = src.read_text(encoding="utf-8")
    dst.write_text(re.sub(r"(?<!\S)<unk>(?!\S)", "UNKTOK", text), encoding="utf-8")


def kenlm_ppl(stdout: str) -> float:
    m = re.search(r"Perplexity including OOVs:\s*([0-9.]+)", stdout)
    if not m:
        raise RuntimeError("no perplexity in KenLM query output:\n" + stdout[-2000:])
    return float(m.group(1))


def plgraph(*args) -> list[str]:
    return [sys.executable, "-m", "plgraph", "lm", *map(str, args)]


def bench_corpus(name: str, work: Path, kenlm: Path | None, orders, plre_order: int) -> list[dict]:
    from plgraph.lm.corpora import lm_corpus

    c = lm_corpus(name)
    d = work / name
    d.mkdir(parents=True, exist_ok=True)
    files = {}
    for split in ("train", "valid", "test"):
        files[split] = d / f"{split}.txt"
        renamed_copy(c.split(split), files[split])
    rows = []
    for order in orders:
        row = {"corpus": name, "order": order}
        model = d / f"mkn{order}.npz"
        r = run_measured(plgraph("train", "--order", order, "--method", "int-mkn", files["train"], "--model", model,
                                 "--no-progress"))
        row.update(ours_train_s=r["wall"], ours_train_rss_mb=r["rss_mb"])
        from plgraph.lm import load_model

        row["ours_estimate_s"] = load_model(model).header["train_seconds"]["total"]
        for split in ("valid", "test"):
            r = run_measured(plgraph("eval", "--model", model, files[split], "--json"))
            ev = json.loads(r["stdout"])
            row[f"ours_{split}"] = ev["perplexity"]
            if split == "test":
                row.update(ours_tokens=ev["tokens"], ours_tokens_per_s=ev["tokens_per_s"],
                           ours_eval_s=r["wall"], ours_eval_rss_mb=r["rss_mb"])
        if kenlm is not None:
            arpa = d / f"kenlm{order}.arpa"
            r = run_measured([str(kenlm / "lmplz"), "-o", str(order), "-S", "20%", "-T", str(d)],
                             stdin=files["train"], stdout=arpa)
            row.update(kenlm_train_s=r["wall"], kenlm_train_rss_mb=r["rss_mb"])
            binary = d / f"kenlm{order}.binary"
            r = run_measured([str(kenlm / "build_binary"), str(arpa), str(binary)])
            row["kenlm_build_binary_s"] = r["wall"]
            for split in ("valid", "test"):
                r = run_measured([str(kenlm / "query"), "-v", "summary", str(binary)], stdin=files[split])
                row[f"kenlm_{split}"] = kenlm_ppl(r["stdout"])
                if split == "test":
                    row.update(kenlm_query_s=r["wall"], kenlm_query_rss_mb=r["rss_mb"])
            ours_arpa = d / f"ours{order}.arpa"
            run_measured(plgraph("export-arpa", "--model", model, ours_arpa, "--no-progress"))
            r = run_measured([str(kenlm / "query"), "-v", "summary", str(ours_arpa)], stdin=files["test"])
            row["kenlm_query_of_our_arpa_test"] = kenlm_ppl(r["stdout"])
            for f in (arpa, binary, ours_arpa):
                f.unlink()
        rows.append(row)
        print(json.dumps(row), flush=True)
    # PLRE with its defaults
    model = d / f"plre{plre_order}.npz"
    r = run_measured(plgraph("train", "--order", plre_order, "--method", "plre", files["train"], "--model", model,
                             "--no-progress"))
    row = {"corpus": name, "order": plre_order, "method": "plre", "ours_train_s": r["wall"],
           "ours_train_rss_mb": r["rss_mb"]}
    from plgraph.lm import load_model

    header = load_model(model).header
    row["ours_estimate_s"] = header["train_seconds"]["total"]
    row["nmf_s"] = header["train_seconds"].get("nmf")
    for split in ("valid", "test"):
        r = run_measured(plgraph("eval", "--model", model, files[split], "--json"))
        ev = json.loads(r["stdout"])
        row[f"ours_{split}"] = ev["perplexity"]
        if split == "test":
            row.update(ours_tokens_per_s=ev["tokens_per_s"], ours_eval_s=r["wall"], ours_eval_rss_mb=r["rss_mb"])
    rows.append(row)
    print(json.dumps(row), flush=True)
    return rows


def markdown(rows, build: dict, kenlm: bool) -> str:
    out = []
    if build:
        out.append("KenLM build: " + ", ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                                               for k, v in build.items()) + "\n")
    head = ["corpus", "order", "plgraph int-MKN valid", "KenLM valid", "plgraph test", "KenLM test", "rel. diff test",
            "KenLM query of our ARPA"] if kenlm else ["corpus", "order", "plgraph int-MKN valid", "plgraph test"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for r in rows:
        if r.get("method") == "plre":
            continue
        if kenlm:
            out.append(f"| {r['corpus']} | {r['order']} | {r['ours_valid']:.4f} | {r['kenlm_valid']:.4f} | "
                       f"{r['ours_test']:.4f} | {r['kenlm_test']:.4f} | "
                       f"{(r['ours_test'] / r['kenlm_test'] - 1):+.1e} | {r['kenlm_query_of_our_arpa_test']:.4f} |")
        else:
            out.append(f"| {r['corpus']} | {r['order']} | {r['ours_valid']:.4f} | {r['ours_test']:.4f} |")
    out.append("")
    head = ["corpus", "model", "plgraph train wall s (in-process)", "plgraph peak RSS MB"]
    if kenlm:
        head += ["lmplz wall s", "lmplz peak RSS MB", "ratio"]
    head += ["plgraph eval wall s", "plgraph tokens/s (scoring)"]
    if kenlm:
        head += ["KenLM build_binary + query wall s"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for r in rows:
        label = f"PLRE {r['order']}-gram" if r.get("method") == "plre" else f"int-MKN {r['order']}-gram"
        cells = [r["corpus"], label, f"{r['ours_train_s']:.2f} ({r['ours_estimate_s']:.2f})", f"{r['ours_train_rss_mb']:.0f}"]
        if kenlm:
            if "kenlm_train_s" in r:
                cells += [f"{r['kenlm_train_s']:.2f}", f"{r['kenlm_train_rss_mb']:.0f}",
                          f"{r['ours_train_s'] / r['kenlm_train_s']:.2f}"]
            else:
                cells += ["", "", ""]
        cells += [f"{r['ours_eval_s']:.2f}", f"{r['ours_tokens_per_s']:,.0f}"]
        if kenlm:
            cells += [f"{r['kenlm_build_binary_s'] + r['kenlm_query_s']:.2f}" if "kenlm_query_s" in r else ""]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-kenlm", action="store_true", help="build KenLM from the PyPI sdist if not cached")
    ap.add_argument("--install-deps", action="store_true", help="apt-get install missing Debian packages")
    ap.add_argument("--kenlm", type=Path, help="folder with lmplz, query, build_binary")
    ap.add_argument("--kenlm-cache", type=Path, default=cache_dir("kenlm"))
    ap.add_argument("--corpora", nargs="+", default=["ptb", "brown"])
    ap.add_argument("--orders", nargs="+", type=int, default=[2, 3, 4, 5])
    ap.add_argument("--plre-order", type=int, default=3)
    ap.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    ap.add_argument("--json", type=Path, help="also write the raw rows as JSON")
    args = ap.parse_args(argv)

    kenlm = args.kenlm
    build = {}
    if kenlm is None and args.build_kenlm:
        kenlm, build = build_kenlm(args.kenlm_cache, args.install_deps)
    if kenlm is None:
        print("no KenLM (pass --build-kenlm or --kenlm DIR): plgraph only", file=sys.stderr)
    # compile (or load) the numba kernels once, outside the timed runs
    run_measured([sys.executable, "-c", "import plgraph.lm as lm; lm.warmup()"])
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-lm-") as tmp:
        work = args.work or Path(tmp)
        for name in args.corpora:
            rows += bench_corpus(name, work, kenlm, args.orders, args.plre_order)
    if args.json:
        args.json.write_text(json.dumps({"build": build, "rows": rows}, indent=1))
    print()
    print(markdown(rows, build, kenlm is not None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
