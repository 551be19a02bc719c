"""plgraph's module graph: no import cycles, no library module importing a command-line one.

The graph is read from the source with :mod:`ast` (nothing is imported): every ``import``
and ``from ... import`` statement of a module counts -- at the top level and inside
functions and classes alike, since a lazy import closes a circle as surely as an eager
one the moment it runs.  Relative imports are resolved against the module's package;
``from X import name`` is an import of the module ``X.name`` when there is one, else of
``X``; an import of a package is an import of its ``__init__``.  Imports under
``if TYPE_CHECKING:`` never run and do not count, nor do ``importlib.import_module``
strings (only import statements do).  Importing ``a.b.c`` also runs the ``__init__`` of
``a`` and ``a.b``; those implicit edges are left out, as Python resolves them through the
partly initialised parent package.

Command-line modules: ``__main__``, ``cli`` and ``cliargs`` of the top package, every
module named ``cli`` (``plgraph.dep.cli``) and everything under a ``cli`` package
(``plgraph.parser.cli.train``).  They may import library modules and one another; a
library module importing one of them is an error.

Layers: every top-level module or package of plgraph (a *unit*: ``plgraph.parser``,
``plgraph.graph``) belongs to one layer of :data:`LAYERS`, from infrastructure and core
types up through file formats, algorithms, models and the parser to analysis and
presentation; a library module may import its own layer and those below, never one
above (imports inside functions count, as for cycles).  A new unit must be given a layer.
The command line sits above all of them.

The graph functions are tested on small synthetic packages written into ``tmp_path``
first, so the checks on plgraph itself cannot pass vacuously.
"""
from __future__ import annotations

import ast
import textwrap
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "plgraph"


@dataclass(frozen=True)
class Edge:
    """``src`` imports ``dst`` at ``path:line``."""

    src: str
    dst: str
    path: Path
    line: int

    def where(self, base: Path | None = None) -> str:
        path = self.path
        if base is not None:
            try:
                path = path.relative_to(base)
            except ValueError:
                pass
        return f"{path}:{self.line}"


def module_files(package_dir: Path, package: str) -> dict[str, Path]:
    """``{dotted module name: file}`` of every ``.py`` file under ``package_dir`` (a
    package's ``__init__.py`` under the package's own name)."""
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir).with_suffix("").parts
        if any(not p.isidentifier() for p in parts):
            continue  # not importable (a stray folder or file name)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join((package, *parts))] = path
    return modules


class _Imports(ast.NodeVisitor):
    """Every import statement of a module (anywhere in it), except under ``if TYPE_CHECKING:``."""

    def __init__(self):
        self.found: list[ast.Import | ast.ImportFrom] = []

    def visit_Import(self, node):
        self.found.append(node)

    def visit_ImportFrom(self, node):
        self.found.append(node)

    def visit_If(self, node):
        test = node.test
        if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
                isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)


def _known_prefix(name: str, modules) -> str | None:
    """The longest prefix of the dotted ``name`` that is one of ``modules``."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in modules:
            return candidate
    return None


def import_edges(package_dir: Path, package: str) -> list[Edge]:
    """The import statements between the modules of ``package`` (source in
    ``package_dir``), resolved to the modules they load, in file and line order."""
    package_dir = Path(package_dir)
    modules = module_files(package_dir, package)
    edges = []
    for name, path in modules.items():
        is_init = path.name == "__init__.py"
        here = name if is_init else name.rpartition(".")[0]
        visitor = _Imports()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        for node in visitor.found:
            targets = []
            if isinstance(node, ast.Import):
                targets = [_known_prefix(alias.name, modules) for alias in node.names]
            else:
                if node.level:
                    parts = here.split(".")
                    if node.level - 1 >= len(parts):
                        raise ValueError(f"{path}:{node.lineno}: relative import beyond the top package")
                    base = ".".join(parts[: len(parts) - (node.level - 1)])
                    origin = f"{base}.{node.module}" if node.module else base
                else:
                    origin = node.module or ""
                for alias in node.names:
                    sub = f"{origin}.{alias.name}"
                    targets.append(sub if alias.name != "*" and sub in modules else _known_prefix(origin, modules))
            for dst in targets:
                if dst is not None:
                    edges.append(Edge(name, dst, path, node.lineno))
    return edges


def graph_of(edges) -> dict[str, dict[str, Edge]]:
    """``{src: {dst: first edge}}``."""
    graph: dict[str, dict[str, Edge]] = {}
    for e in edges:
        graph.setdefault(e.src, {}).setdefault(e.dst, e)
        graph.setdefault(e.dst, {})
    return graph


def strongly_connected(graph) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative), each sorted, in a stable order."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                out.append(sorted(comp))
    return sorted(out)


def _shortest_path(graph, src: str, dst: str, allowed: set) -> list[str] | None:
    prev = {src: None}
    queue = deque([src])
    while queue:
        node = queue.popleft()
        if node == dst:
            path = []
            while node is not None:
                path.append(node)
                node = prev[node]
            return path[::-1]
        for child in sorted(graph[node]):
            if child in allowed and child not in prev:
                prev[child] = node
                queue.append(child)
    return None


def import_cycles(edges) -> list[list[Edge]]:
    """Cycles among the modules: for every strongly connected component of more than one
    module, for each of its edges the shortest cycle through that edge (duplicates
    dropped); each cycle as its list of edges."""
    graph = graph_of(edges)
    cycles, seen = [], set()
    for comp in strongly_connected(graph):
        if len(comp) < 2:
            continue
        members = set(comp)
        for src in comp:
            for dst in sorted(graph[src]):
                if dst not in members or dst == src:
                    continue
                back = _shortest_path(graph, dst, src, members)
                nodes = [src, *back]
                ring = nodes[:-1]
                first = ring.index(min(ring))
                key = tuple(ring[first:] + ring[:first])
                if key in seen:
                    continue
                seen.add(key)
                cycles.append([graph[a][b] for a, b in zip(nodes, nodes[1:])])
    return cycles


def is_cli(module: str, package: str = PACKAGE) -> bool:
    """A command-line module (see the module docstring)."""
    if module in (f"{package}.__main__", f"{package}.cli", f"{package}.cliargs"):
        return True
    return "cli" in module.split(".")[1:]


def cli_imports(edges, package: str = PACKAGE) -> list[Edge]:
    """The edges from a library module to a command-line module."""
    return [e for e in edges if not is_cli(e.src, package) and is_cli(e.dst, package)]


def format_cycle(cycle: list[Edge], base: Path | None = None) -> str:
    head = " -> ".join([e.src for e in cycle] + [cycle[-1].dst])
    width = max(len(f"{e.src} -> {e.dst}") for e in cycle)
    return head + "".join(f"\n    {f'{e.src} -> {e.dst}':<{width}}  {e.where(base)}" for e in cycle)


def format_edge(edge: Edge, base: Path | None = None) -> str:
    return f"{edge.src} -> {edge.dst}  {edge.where(base)}"


#: plgraph's layers, bottom first: ``(name, units)``; a unit imports only its own layer and
#: those below (the command-line modules, :func:`is_cli`, are above every layer)
LAYERS = [
    ("infrastructure", ["errors", "config", "paper", "data", "signals", "files", "progress", "plotting", "notebook",
                        "models"]),
    ("core types", ["tree", "graph", "spine", "structure"]),
    ("formats", ["ptb", "heads", "convert", "shp", "corpora", "text"]),
    ("algorithms", ["dist", "learn", "rules", "eval", "coverage", "problems"]),
    ("models", ["dep", "encoding", "pruners", "lm"]),
    ("parser", ["parser", "release"]),
    ("analysis and presentation", ["viz", "figures", ""]),     # "": the package's own __init__ (plgraph.load)
]


def unit_of(module: str, package: str = PACKAGE) -> str:
    """The top-level module or sub-package of ``package`` that ``module`` belongs to
    (``""`` for the package's own ``__init__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer_violations(edges, layers, package: str = PACKAGE) -> tuple[list[Edge], list[str]]:
    """``(edges from a library module to a unit of a higher layer, units in no layer)``."""
    rank = {unit: i for i, (_, units) in enumerate(layers) for unit in units}
    upward, unplaced = [], set()
    for e in edges:
        if is_cli(e.src, package):
            continue
        a, b = unit_of(e.src, package), unit_of(e.dst, package)
        for unit, module in ((a, e.src), (b, e.dst)):
            if unit not in rank and not is_cli(module, package):
                unplaced.add(unit)
        if a in rank and b in rank and rank[b] > rank[a]:
            upward.append(e)
    return upward, sorted(unplaced)


# -- the functions on synthetic packages ------------------------------------------------------
def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    """Write ``{relative path: source}`` as package ``pkg`` into ``tmp_path``; its folder."""
    root = tmp_path / "pkg"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def _cycles(root: Path) -> list[str]:
    return [" -> ".join([e.src for e in c] + [c[-1].dst]) for c in import_cycles(import_edges(root, "pkg"))]


def test_finds_a_two_module_cycle(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "import os\nfrom . import b\n",
        "b.py": "from .a import something\n",
    })
    cycles = import_cycles(import_edges(root, "pkg"))
    assert [" -> ".join([e.src for e in c] + [c[-1].dst]) for c in cycles] == ["pkg.a -> pkg.b -> pkg.a"]
    assert [(e.path.name, e.line) for e in cycles[0]] == [("a.py", 2), ("b.py", 1)]
    text = format_cycle(cycles[0], root)
    assert text.splitlines()[0] == "pkg.a -> pkg.b -> pkg.a"
    assert "a.py:2" in text and "b.py:1" in text


def test_finds_a_cycle_closed_by_a_lazy_import(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "sub/__init__.py": "",
        "sub/model.py": "from ..util import helper\n\nclass Model:\n    pass\n",
        "util.py": textwrap.dedent("""\
            def helper():
                return 1


            class Loader:
                def load(self):
                    if True:
                        from pkg.sub.model import Model   # lazy: still an edge
                    return Model()
            """),
    })
    assert _cycles(root) == ["pkg.sub.model -> pkg.util -> pkg.sub.model"]
    edge = next(e for e in import_edges(root, "pkg") if e.src == "pkg.util")
    assert (edge.dst, edge.line) == ("pkg.sub.model", 8)


def test_finds_a_longer_cycle_through_a_package_init(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "p/__init__.py": "from .x import X\n",       # importing the package runs this
        "p/x.py": "import pkg.q\nX = 1\n",
        "q.py": "from pkg import p\n",               # the package pkg.p: its __init__
    })
    assert _cycles(root) == ["pkg.p -> pkg.p.x -> pkg.q -> pkg.p"]


def test_resolves_relative_package_and_type_checking_imports(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": textwrap.dedent("""\
            import importlib


            def __getattr__(name):
                return importlib.import_module(f"pkg.{name}")   # a string: not an edge
            """),
        "core.py": "import json\nimport numpy as np\n",
        "api/__init__.py": "from .high import run\nfrom . import low\n",
        "api/high.py": "from .low import step\nfrom ..core import np\n",
        "api/low.py": textwrap.dedent("""\
            from typing import TYPE_CHECKING

            from .. import core

            if TYPE_CHECKING:
                from .high import run   # never runs
            """),
        "cli.py": "from .api import run\nfrom .api.cli import extra\n",
        "api/cli.py": "from ..cli import main\nfrom . import high\n",
        "__main__.py": "from .cli import main\n",
    })
    edges = import_edges(root, "pkg")
    pairs = {(e.src, e.dst) for e in edges}
    assert ("pkg.api", "pkg.api.low") in pairs           # `from . import low`: the module
    assert ("pkg.api.high", "pkg.core") in pairs         # `from ..core import np`: the module, not a name
    assert ("pkg.api.low", "pkg.core") in pairs
    assert ("pkg.api.low", "pkg.api.high") not in pairs  # TYPE_CHECKING
    assert ("pkg.cli", "pkg.api.cli") in pairs and ("pkg.api.cli", "pkg.cli") in pairs
    assert not any(e.src == "pkg" for e in edges)
    # the two command-line modules import each other: a cycle, reported like any other
    assert _cycles(root) == ["pkg.api.cli -> pkg.cli -> pkg.api.cli"]
    assert cli_imports(edges, "pkg") == []


def test_a_clean_package_passes(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from . import b\n\ndef f():\n    from .c import g\n",
        "b.py": "from .c import g\n",
        "c.py": "import os\n",
        "cli.py": "from . import a, b\n",
    })
    edges = import_edges(root, "pkg")
    assert import_cycles(edges) == []
    assert cli_imports(edges, "pkg") == []
    assert {(e.src, e.dst) for e in edges} == {("pkg.a", "pkg.b"), ("pkg.a", "pkg.c"), ("pkg.b", "pkg.c"),
                                               ("pkg.cli", "pkg.a"), ("pkg.cli", "pkg.b")}


def test_finds_library_modules_importing_command_line_modules(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "__main__.py": "from .cli import main\n",
        "cli.py": "from . import lib\n",
        "cliargs.py": "",
        "lib.py": "def run():\n    from .cli import main\n    from . import cliargs\n",
        "dep/__init__.py": "",
        "dep/cli.py": "from ..lib import run\n",
        "dep/model.py": "from . import cli\n",
        "parser/__init__.py": "",
        "parser/cli/__init__.py": "from .train import go\n",
        "parser/cli/train.py": "from ...lib import run\nfrom ...dep.cli import x\n",
        "parser/curve.py": "from .cli.train import go\n",
    })
    edges = import_edges(root, "pkg")
    assert [is_cli(m, "pkg") for m in ("pkg.__main__", "pkg.cli", "pkg.cliargs", "pkg.dep.cli", "pkg.parser.cli",
                                       "pkg.parser.cli.train", "pkg.lib", "pkg.dep.model", "pkg.client")] == \
        [True] * 6 + [False] * 3
    bad = cli_imports(edges, "pkg")
    assert [(e.src, e.dst, e.line) for e in bad] == [
        ("pkg.dep.model", "pkg.dep.cli", 1), ("pkg.lib", "pkg.cli", 2), ("pkg.lib", "pkg.cliargs", 3),
        ("pkg.parser.curve", "pkg.parser.cli.train", 1)]
    assert format_edge(bad[0], root) == "pkg.dep.model -> pkg.dep.cli  dep/model.py:1"


# -- plgraph itself ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def plgraph_edges():
    edges = import_edges(ROOT / PACKAGE, PACKAGE)
    assert len(edges) > 100  # the walk found the package
    return edges


def test_plgraph_has_no_import_cycles(plgraph_edges):
    cycles = import_cycles(plgraph_edges)
    assert not cycles, f"{len(cycles)} import cycle(s) among plgraph's modules:\n" + "\n".join(
        format_cycle(c, ROOT) for c in cycles)


def test_plgraph_library_modules_do_not_import_command_line_modules(plgraph_edges):
    bad = cli_imports(plgraph_edges)
    assert not bad, "library modules importing command-line modules:\n" + "\n".join(
        "    " + format_edge(e, ROOT) for e in bad)


def test_plotting_stays_low_level(plgraph_edges):
    """plgraph.plotting (saving, axes, legends) is used by the parser's, the dependency
    parser's and the language models' plots, so it reaches none of them."""
    graph = graph_of(plgraph_edges)
    seen, todo = set(), ["plgraph.plotting"]
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, {}))
    assert "plgraph.plotting" in graph
    assert not [m for m in seen if m.split(".")[1] in ("parser", "dep", "lm", "figures")]


def test_finds_an_upward_import_inside_a_function_and_an_unplaced_unit(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "base.py": "def f():\n    from .top import g   # lazy, still upward\n    return g\n",
        "top/__init__.py": "from ..base import f\n",
        "stray.py": "from . import base\n",
        "cli.py": "from .top import f\n",          # the command line may import anything
    })
    edges = import_edges(root, "pkg")
    upward, unplaced = layer_violations(edges, [("low", ["base"]), ("high", ["top", ""])], "pkg")
    assert [(e.src, e.dst, e.line) for e in upward] == [("pkg.base", "pkg.top", 2)]
    assert unplaced == ["stray"]
    assert layer_violations(edges, [("low", ["base", "stray"]), ("high", ["top", ""])], "pkg")[0] == upward


def test_plgraph_imports_follow_its_layers(plgraph_edges):
    """Every unit of plgraph is in :data:`LAYERS`, and no library module imports a layer
    above its own."""
    upward, unplaced = layer_violations(plgraph_edges, LAYERS)
    assert not unplaced, f"units in no layer of LAYERS (give each one): {unplaced}"
    rank = {u: i for i, (_, units) in enumerate(LAYERS) for u in units}
    assert not upward, "imports of a higher layer:\n" + "\n".join(
        f"    {format_edge(e, ROOT)}  ({LAYERS[rank[unit_of(e.src)]][0]} -> {LAYERS[rank[unit_of(e.dst)]][0]})"
        for e in upward)

