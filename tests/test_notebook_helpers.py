"""plgraph.notebook: the quick-mode switch and the banner the notebooks show."""
from __future__ import annotations

import IPython
import IPython.display
import pytest

from plgraph import notebook

SENTENCE = ("Quick mode (PLGRAPH_QUICK=1): first 5% of EWT; numbers below are from a small "
            "slice, the prose quotes the full run")


@pytest.mark.parametrize("value, expected", [
    ("1", True), ("yes", True), ("true", True),
    ("0", False), ("", False), ("false", False), ("no", False),
])
def test_quick_mode_reads_plgraph_quick(monkeypatch, value, expected):
    monkeypatch.setenv("PLGRAPH_QUICK", value)
    assert notebook.quick_mode() is expected


def test_quick_mode_off_when_unset(monkeypatch):
    monkeypatch.delenv("PLGRAPH_QUICK", raising=False)
    assert notebook.quick_mode() is False


def test_banner_text_is_the_agreed_sentence():
    assert notebook.banner_text("first 5% of EWT") == SENTENCE
    assert notebook.banner_text("") == ("Quick mode (PLGRAPH_QUICK=1); numbers below are "
                                        "from a small slice, the prose quotes the full run")


def test_banner_html_escapes_what():
    out = notebook.banner_html("<b>60 k</b> & less")
    assert out.startswith("<div") and out.endswith("</div>")
    assert "&lt;b&gt;60 k&lt;/b&gt; &amp; less" in out
    assert "<b>" not in out


def _capture_display(monkeypatch):
    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    return shown


def test_banner_displays_html_in_quick_mode(monkeypatch):
    monkeypatch.setenv("PLGRAPH_QUICK", "1")
    shown = _capture_display(monkeypatch)
    notebook.quick_banner("first 5% of EWT")
    assert len(shown) == 1
    assert isinstance(shown[0], IPython.display.HTML)
    assert SENTENCE in shown[0].data
    assert "plgraph-quick-banner" in shown[0].data


def test_banner_shows_nothing_in_full_mode(monkeypatch, capsys):
    monkeypatch.setenv("PLGRAPH_QUICK", "0")
    shown = _capture_display(monkeypatch)
    notebook.quick_banner("first 5% of EWT")
    assert shown == []
    assert capsys.readouterr().out == ""


def test_banner_prints_outside_ipython(monkeypatch, capsys):
    monkeypatch.setenv("PLGRAPH_QUICK", "1")
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    notebook.quick_banner("first 5% of EWT")
    assert capsys.readouterr().out.strip() == SENTENCE


def test_banner_for_notebooks_that_run_in_full_either_way(monkeypatch):
    monkeypatch.setenv("PLGRAPH_QUICK", "1")
    shown = _capture_display(monkeypatch)
    notebook.quick_banner(sliced=False)
    assert len(shown) == 1
    assert ("Quick mode (PLGRAPH_QUICK=1): this notebook runs in full either way; "
            "the numbers below are the full run's") in shown[0].data
    assert "small slice" not in shown[0].data


def _cells(styler):
    import re

    return re.findall(r"<td[^>]*>(.*?)</td>", styler.to_html())


def test_table_shows_missing_values_as_dash_and_whole_floats_as_integers():
    import numpy as np
    import pandas as pd

    # a best-epoch column that pandas turned into floats by a missing row, a score column,
    # a notes column with a missing note, an integer column
    df = pd.DataFrame({"best epoch": [2.0, 8.0, np.nan], "LAS": [86.094, np.nan, 70.5],
                       "note": ["target", np.nan, ""], "n": [1, 2, 3]})
    cells = _cells(notebook.table(df, blank=("note",), index=False))
    assert cells == ["2", "86.09", "target", "1",
                     "8", "–", "", "2",
                     "–", "70.50", "", "3"]
    assert "NaN" not in notebook.table(df).to_html()
