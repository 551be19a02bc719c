"""What the chart's scores come from: edge labels and the scored passes 2 and 3.

* :mod:`~plgraph.parser.scoring.labels` -- the edge labels of passes 2 and 3 and their
  candidate sets;
* :mod:`~plgraph.parser.scoring.scorer` -- the interface a pass's scorer offers the chart
  and the training loop (score tables per sentence, gradient in, update);
* :mod:`~plgraph.parser.scoring.pass2`, :mod:`~plgraph.parser.scoring.pass3` -- the
  linear hashed-feature scorers of passes 2 and 3 (kernels in ``_pass2`` / ``_pass3``),
  their checked decodes and gradients; :mod:`~plgraph.parser.scoring.pool` -- the
  negative pool of their weights.
"""
