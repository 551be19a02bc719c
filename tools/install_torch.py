"""Install PyTorch's CPU build for the extra ``plgraph[neural]`` (``make install`` runs this).

A plain ``pip install torch`` on Linux fetches the CUDA build with its ``nvidia-*`` wheels
(about 2.8 GB); the neural scorer runs on CPU and needs the 200 MB CPU wheel.  In order:

1. torch already importable: nothing to do;
2. PyTorch's CPU index (``TORCH_INDEX``, default https://download.pytorch.org/whl/cpu)
   resolves: ``pip install torch --index-url TORCH_INDEX`` (its dependencies from PyPI);
3. otherwise (an offline machine with its own registries): the newest ``torch-*+cpu``
   wheel for this interpreter in pip's ``find-links`` folders;
4. otherwise plain ``pip install torch``.

Usage: ``python tools/install_torch.py`` with the interpreter of the environment to fill.
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

INDEX = os.environ.get("TORCH_INDEX", "https://download.pytorch.org/whl/cpu")


def pip(*args: str) -> int:
    return subprocess.call([sys.executable, "-m", "pip", "install", "--quiet", *args])


def resolves(url: str) -> bool:
    try:
        socket.getaddrinfo(urlparse(url).hostname, 443)
        return True
    except OSError:
        return False


def find_links() -> list[Path]:
    out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    dirs = os.environ.get("PIP_FIND_LINKS", "").split()
    for line in out.splitlines():
        if "find-links" in line:
            dirs += line.split("=", 1)[1].strip().strip("'\"").split()
    return [Path(d.removeprefix("file://")) for d in dirs if Path(d.removeprefix("file://")).is_dir()]


def local_cpu_wheel() -> Path | None:
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    pat = re.compile(rf"torch-(\d+)\.(\d+)\.(\d+)\+cpu-{tag}-{tag}-.*\.whl$")
    found = [(tuple(int(x) for x in m.groups()), p) for d in find_links() for p in d.iterdir()
             if (m := pat.match(p.name))]
    return max(found)[1] if found else None


def main() -> int:
    try:
        import torch  # noqa: F401
        return 0
    except ImportError:
        pass
    if resolves(INDEX):
        return pip("torch", "--index-url", INDEX, "--extra-index-url", "https://pypi.org/simple")
    wheel = local_cpu_wheel()
    if wheel is not None:
        return pip(str(wheel))
    return pip("torch")


if __name__ == "__main__":
    sys.exit(main())
