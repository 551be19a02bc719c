"""``parse`` and ``parser evaluate`` on a Dask cluster (``--dask``; :mod:`plgraph.dist`).

The driver reads the input as in the serial run, cuts the sentences into chunks of
``--chunk-size`` and :func:`plgraph.dist.chunks.run_chunks` sends each chunk to a worker,
which loads the model folder once (:func:`plgraph.dist.cluster.worker_cached`) and parses
it with :meth:`~plgraph.parser.parsing.parser.Parser.parse_many` -- the serial run's own code,
sentence by sentence, so each sentence's parse is the same wherever it runs.

What comes back is JSON (the finished chunks are kept on disk for ``--resume``):

* :func:`parse_chunk` (``parse``): per sentence its rendered output
  (:func:`~plgraph.parser.parsing.output.render`, as in the serial run: a PTB line or an
  SHP block) and what the report lists (id, status, reason);
* :func:`evaluate_chunk` (``parser evaluate``): per sentence the parsed graph as an SHP
  block (which records the conversion options) and the status; the driver rebuilds each
  :class:`~plgraph.parser.parsing.parser.ParseResult` with :func:`result_from_record` -- the tree
  is ``graph_to_tree`` of the graph, as the parser itself makes it -- and scores them
  with the serial run's code.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field


def parse_spec(model_dir, max_words: int, pass3: dict | None = None) -> dict:
    """What a worker needs to load the parser: the model folder's absolute path, the
    word limit, pass 3's decode settings that override the model's (``pass3``: fields of
    :class:`~plgraph.parser.scoring.pass3.Pass3Config`, e.g. ``trace_bias``), and a stamp of
    ``parser.json`` (size, mtime) so that finished chunks kept for ``--resume`` -- and a
    worker's cached parser -- belong to this very model and these settings."""
    path = os.path.abspath(model_dir)
    st = os.stat(os.path.join(path, "parser.json"))
    return {"model_dir": path, "max_words": int(max_words), "stamp": [st.st_size, st.st_mtime_ns],
            "pass3": dict(sorted((pass3 or {}).items()))}


def sentence_chunks(items, size: int) -> list:
    """``(words, tags or None, id)`` items as JSON-able chunks of ``size`` for the tasks."""
    from ...dist.chunks import cut

    return cut([[list(w), None if t is None else list(t), sid] for w, t, sid in items], size)


def _parser(spec: dict):
    from ...dist.cluster import worker_cached
    from .parser import Parser

    over = spec.get("pass3") or {}
    key = ("parser", spec["model_dir"], spec["max_words"], tuple(spec["stamp"]), tuple(over.items()))
    return worker_cached(key, lambda: Parser.load(spec["model_dir"], scorer="linear", max_words=spec["max_words"]).with_options(**over))


def _items(chunk):
    return [(list(words), None if tags is None else list(tags), sid) for words, tags, sid in chunk]


def parse_chunk(spec: dict, chunk: list) -> list:
    """Parse ``chunk`` (``[words, tags or None, id]`` triples) with the model of
    ``spec["model_dir"]``: one ``{"id", "status", "reason", "text"}`` per sentence, where
    ``text`` is the output ``spec["to"]`` / ``spec["root"]`` gives it."""
    from .output import render

    parser = _parser(spec)
    return [{"id": r.id, "status": r.status, "reason": r.reason, "repairs": list(r.repairs),
             "problems": list(r.problems), "text": render(r, spec["to"], spec["root"])}
            for r in parser.parse_many(_items(chunk), jobs=1, progress=False)]


def evaluate_chunk(spec: dict, chunk: list) -> list:
    """Parse ``chunk`` for scoring: one record per sentence (module docstring)."""
    from ...shp import format_shp

    parser = _parser(spec)
    return [{"id": r.id, "words": list(r.words), "tags": list(r.tags), "status": r.status, "reason": r.reason,
             "seconds": r.seconds, "warnings": list(r.warnings), "repairs": list(r.repairs),
             "problems": list(r.problems), "shp": format_shp(r.graph)}
            for r in parser.parse_many(_items(chunk), jobs=1, progress=False)]


def result_from_record(record: dict):
    """The :class:`~plgraph.parser.parsing.parser.ParseResult` an :func:`evaluate_chunk` record
    describes (graph read back from its SHP block, tree made from the graph)."""
    from ...convert import graph_to_tree
    from ...shp import read_shp_string
    from .parser import ParseResult

    (graph,) = read_shp_string(record["shp"], source=f"parse of {record['id']}")
    graph.warnings = list(record["warnings"])
    return ParseResult(record["id"], list(record["words"]), list(record["tags"]), graph,
                       graph_to_tree(graph, use_null_positions=False), record["status"], record["reason"],
                       float(record["seconds"]), list(record["warnings"]), list(record.get("repairs", [])),
                       list(record.get("problems", [])))


@dataclass
class Reported:
    """What ``parse``'s report needs of a sentence parsed on a worker."""

    id: str | None
    status: str
    reason: str
    repairs: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    @classmethod
    def of(cls, result) -> "Reported":
        """What the report needs of a :class:`~plgraph.parser.parsing.parser.ParseResult`."""
        return cls(result.id, result.status, result.reason, list(result.repairs), list(result.problems))

    @property
    def failed(self) -> bool:
        return self.status == "fallback"


__all__ = ["sentence_chunks", "parse_spec", "parse_chunk", "evaluate_chunk", "result_from_record", "Reported"]
