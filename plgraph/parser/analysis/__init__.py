"""Measuring a parser: :mod:`~plgraph.parser.analysis.evaluate` (a split parsed and scored
beside the thesis), :mod:`~plgraph.parser.analysis.stats` (what reaches each pass),
:mod:`~plgraph.parser.analysis.errors` (error types per sentence), the learning curve and
the training-curve plots.
"""
