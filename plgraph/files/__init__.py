"""Files on disk, for every part of plgraph: writes that are atomic and never destroy what
they do not replace (:mod:`~plgraph.files.atomic`), folder locks (:mod:`~plgraph.files.lock`),
model files checked as they load (:mod:`~plgraph.files.modelfile`), a finished model replaced
crash-safely (:mod:`~plgraph.files.replacement`), plgraph's cache folder
(:mod:`~plgraph.files.cache`), packed weight arrays (:mod:`~plgraph.files.packing`), records in
compressed shards (:mod:`~plgraph.files.shards`) and numba's on-disk kernel cache kept honest
(:mod:`~plgraph.files._numba_cache`).
"""
