"""The graph parser with traces (Kummerfeld's thesis): train a model folder, load it, parse, measure.

::

    from plgraph.parser import Parser, TrainConfig, train, evaluate_split
    folder = train(TrainConfig(model_dir="runs/parser"))        # the whole pipeline
    parser = Parser.load(folder)            # the folder's scorer: linear here (scorer= to choose)
    result = parser.parse_result("Who did you see ?".split())   # tags from the model's tagger
    print(result.tree.to_string())                              # PTB tree, null elements and co-indices
    doc = parser("Who did you see?")        # raw text: a Document of sentences with .tree and .traces

The package's folders show its structure:

* :mod:`~plgraph.parser.chart` -- the 1EC chart, the one dynamic program every pass runs;
* :mod:`~plgraph.parser.scoring` -- the scorers (the interface a scorer offers the parser
  is :class:`~plgraph.parser.scoring.protocol.Scorer`): the linear cascade (edge labels,
  passes 2 and 3) and the neural network (:mod:`~plgraph.parser.scoring.neural`);
* :mod:`~plgraph.parser.training` -- :func:`train` and its parts;
* :mod:`~plgraph.parser.model` -- the model folder (:class:`ParserModel`);
* :mod:`~plgraph.parser.parsing` -- :class:`Parser` (a tagger, a scorer, the chart and the
  fallback ladder; :meth:`Parser.load` picks the folder's scorer), the POS tagger, input
  readers, outputs, documents of raw text with their trace records, Dask jobs;
* :mod:`~plgraph.parser.analysis` -- :func:`evaluate_split`, :func:`split_stats`, errors, plots;
* :mod:`~plgraph.parser.cli` -- the command line, which only calls the above.

The names below are imported on first use, so that the command line starts without
loading numba.
"""
from __future__ import annotations

import importlib

#: the names ``plgraph.parser`` exports and the modules that define them
_EXPORTS = {
    ".analysis.evaluate": ("evaluate_split", "format_evaluation"),
    ".analysis.stats": ("split_stats", "format_split_stats"),
    ".model": ("ParserModel",),
    ".notebook_model": ("notebook_parser",),
    ".parsing.document": ("Document", "ParsedSentence"),
    ".parsing.inputs": ("read_input",),
    ".parsing.parser": ("Parser", "ParseResult"),
    ".parsing.trace_records": ("TraceRecord", "trace_records"),
    ".scoring.pass2": ("Pass2Config",),
    ".scoring.pass3": ("Pass3Config",),
    ".training.pipeline": ("TrainConfig", "train"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    """An exported name, imported from its module on first use."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
