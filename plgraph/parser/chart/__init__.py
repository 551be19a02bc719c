"""The 1EC chart: one scored dynamic program for every pass of the parser.

* :mod:`~plgraph.parser.chart.tables` -- what the chart reads about a sentence (spine
  options, best-label arc scores per spine pair, the Hamming loss of training, coarse
  masks);
* :mod:`~plgraph.parser.chart.run` -- :func:`parse_chart`: Viterbi with back-pointers,
  sub-beams and cube pruning, outside scores and max-marginals; the compiled kernel is
  :mod:`~plgraph.parser.chart._kernel` (the chart itself) with its item layout, flags,
  loss and outside pass in the modules beside it, and :mod:`~plgraph.parser.chart._beam`;
* :mod:`~plgraph.parser.chart.pass1b` -- pass 1b, the chart in projective mode over the
  arc pass's scores: the item max-marginals pass 2 prunes against;
* :mod:`~plgraph.parser.chart.gold` -- the items of a gold graph's derivation (gold
  protection).
"""
