"""Where the chart's scores come from: the scorers a parser composes.

* :mod:`~plgraph.parser.scoring.protocol` -- what a scorer offers the parser
  (:class:`~plgraph.parser.scoring.protocol.Scorer`: a sentence in, the chart's tables out,
  and its baseline), and :mod:`~plgraph.parser.scoring.registry` -- the scorers a model
  folder can hold and which one it is parsed with;
* :mod:`~plgraph.parser.scoring.linear` -- the linear scorer, the reproduced thesis's
  cascade: :mod:`~plgraph.parser.scoring.labels` (the edge labels of passes 2 and 3 and
  their candidate sets), :mod:`~plgraph.parser.scoring.pass_scorer` (the interface a linear
  pass offers the chart and the training loop), :mod:`~plgraph.parser.scoring.pass2`,
  :mod:`~plgraph.parser.scoring.pass3` (the hashed-feature passes, kernels in ``_pass2`` /
  ``_pass3``) and :mod:`~plgraph.parser.scoring.pool` (the negative pool of their weights);
* :mod:`~plgraph.parser.scoring.neural` -- the neural scorer (the extra ``plgraph[neural]``).
"""
