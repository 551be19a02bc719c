"""plgraph past one machine: corpus jobs and training on a Dask cluster.

The optional extra ``pip install 'plgraph[dist]'`` installs Dask's ``distributed``;
everything else in plgraph works without it.

* :mod:`plgraph.dist.cluster` -- ``--dask [ADDRESS]``: a local cluster or an existing one,
  and the per-worker cache that loads a model once per worker process;
* :mod:`plgraph.dist.chunks` -- corpus jobs in chunks, results in input order, finished
  chunks kept on disk for ``--resume``;
* :mod:`plgraph.dist.cli` -- the ``--dask`` / ``--workers`` / ``--chunk-size`` /
  ``--resume`` options every corpus command shares.

Training on the cluster is the training loop's own business (:mod:`plgraph.learn.replicas`,
which uses :mod:`plgraph.dist.cluster`).
"""
