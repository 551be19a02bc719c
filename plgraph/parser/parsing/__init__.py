"""Parsing with a trained model: :class:`~plgraph.parser.parsing.parser.Parser` (a
scorer's tables through the chart, and the fallback ladder, with the linear scorer's
pass-1 baseline in :mod:`~plgraph.parser.parsing.baseline`), the decoded graph
(``decode``), the POS tagger, input readers (``inputs``) and the Dask jobs of ``parse
--dask`` (``jobs``).
"""
