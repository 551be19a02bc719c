"""plgraph past one machine: corpus jobs and training on a Dask cluster.

The optional extra ``pip install 'plgraph[dist]'`` installs Dask's ``distributed``;
everything else in plgraph works without it.

* :mod:`plgraph.dist.cluster` -- ``--dask [ADDRESS]``: a local cluster or an existing one,
  and the per-worker cache that loads a model once per worker process;
* :mod:`plgraph.dist.chunks` -- corpus jobs in chunks, results in input order, finished
  chunks kept on disk for ``--resume``;
* :mod:`plgraph.dist.training` -- the mini-batches of :func:`plgraph.learn.loop.train_epochs`
  decoded on the workers, each holding a replica of the weights that applies the same
  summed sparse gradient as the driver;
* :mod:`plgraph.dist.cli` -- the ``--dask`` / ``--workers`` / ``--chunk-size`` /
  ``--resume`` options every corpus command shares.
"""
