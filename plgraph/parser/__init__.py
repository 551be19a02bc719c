"""The graph parser (seed 000, "Inference"): one scored 1EC chart kernel for every pass.

* :mod:`plgraph.parser.tables` -- what the chart reads about a sentence (spine options,
  best-label arc scores per spine pair, the Hamming loss of training, coarse masks);
* :mod:`plgraph.parser.chart` -- :func:`parse_chart`: Viterbi with back-pointers, sub-beams and
  cube pruning, outside scores and max-marginals (kernels in :mod:`plgraph.parser._chart` and
  :mod:`plgraph.parser._beam`);
* :mod:`plgraph.parser.pass1b` -- pass 1b, the chart in projective mode over the arc pass's
  scores: the item max-marginals pass 2 prunes against;
* :mod:`plgraph.parser.gold` -- the items of a gold graph's derivation (gold protection);
* :mod:`plgraph.parser.labels` -- the edge labels of passes 2 and 3 and their candidate sets;
* :mod:`plgraph.parser.pass2` -- pass 2's candidates, scores (kernels in
  :mod:`plgraph.parser._pass2`), checked decodes and gradients;
  :mod:`plgraph.parser.training` trains and measures it.
"""
from .chart import ChartResult, parse_chart
from .gold import gold_item_ids
from .labels import Label, LabelVocab
from .pass1b import Pass1b, chart_arc_scores, run_pass1b
from .pass2 import Pass2Config, Pass2Model, prepare
from .tables import ChartTables, Gold, LossWeights, arc_score_tables, dense_tables

__all__ = ["ChartResult", "parse_chart", "gold_item_ids", "Pass1b", "chart_arc_scores", "run_pass1b", "ChartTables",
           "Gold", "LossWeights", "arc_score_tables", "dense_tables", "Label", "LabelVocab", "Pass2Config", "Pass2Model",
           "prepare"]
