"""The neural scorer is optional: plgraph works without PyTorch, and asking for the neural
scorer without it says how to get it (torch is hidden from a fresh interpreter here)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

HIDE_TORCH = "import sys; sys.modules['torch'] = None\n"     # `import torch` raises ImportError


def run(code: str):
    return subprocess.run([sys.executable, "-c", HIDE_TORCH + textwrap.dedent(code)], capture_output=True, text=True)


def test_plgraph_imports_no_torch():
    r = run("""
        import sys
        import plgraph, plgraph.cli, plgraph.parser.cli.parse, plgraph.parser.cli.train
        import plgraph.parser.parsing.parser, plgraph.parser.analysis.evaluate
        import plgraph.parser.scoring.neural, plgraph.parser.scoring.neural.data, plgraph.parser.scoring.neural.prune, plgraph.parser.scoring.neural.folder
        print(sorted(m for m in sys.modules if m.split('.')[0] == 'torch' and sys.modules[m] is not None))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_neural_scorer_without_torch_says_how_to_get_it(tmp_path):
    r = run(f"""
        from plgraph.cli import main
        raise SystemExit(main(['parser', 'train', '--scorer', 'neural', '--model-dir', {str(tmp_path / 'm')!r}]))
    """)
    assert r.returncode != 0
    assert "pip install 'plgraph[neural]'" in r.stderr
    assert "Traceback" not in r.stderr


def test_linear_only_options_are_refused_with_the_neural_scorer(tmp_path):
    r = run(f"""
        from plgraph.cli import main
        raise SystemExit(main(['parser', 'train', '--scorer', 'neural', '--dask', 'local', '--epochs2', '2',
                               '--model-dir', {str(tmp_path / 'm')!r}]))
    """)
    assert r.returncode != 0
    assert "--dask" in r.stderr and "--epochs2" in r.stderr and "options of the linear scorer" in r.stderr


def test_neural_options_are_refused_with_the_linear_scorer(tmp_path):
    r = run(f"""
        from plgraph.cli import main
        raise SystemExit(main(['parser', 'train', '--epochs', '3', '--model-dir', {str(tmp_path / 'm')!r}]))
    """)
    assert r.returncode != 0
    assert "--epochs: options of the neural scorer, not of --scorer linear" in r.stderr
