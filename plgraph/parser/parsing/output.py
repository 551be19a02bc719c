"""What ``plgraph parse`` writes for a parsed sentence: a PTB tree on one line, an SHP
block, a JSON object on one line (JSON Lines) or a CoNLL-U sentence.

``json`` (:func:`sentence_json`): ``id``, ``text`` (raw input only), ``status`` and ``reason``, ``tokens``, ``tags``,
``tree`` (the PTB line), ``traces`` (one object per null element,
:class:`~plgraph.parser.parsing.trace_records.TraceRecord`) and ``graph``: its ``spines``
and ``edges``, each ``[child, parent, kind, label, parent_null, child_label,
child_null, trace]`` as :meth:`plgraph.graph.Graph.edge_tuples` gives them
(:func:`graph_from_json` reads it back).  ``conllu``: :mod:`plgraph.parser.parsing.conllu_graph`.

Both the serial run and a Dask worker (:mod:`plgraph.parser.parsing.jobs`) render with
:func:`render`, so the output is byte for byte the same wherever a sentence is parsed.

Every input sentence has its output record, so that record N of the output is sentence
N of the input.  A sentence that could not be read
(:class:`~plgraph.parser.parsing.inputs.Skipped`) gets a placeholder
(:func:`render_skipped`): in PTB output the empty tree ``()`` on its line -- EVALB
skips that sentence (status 2) and goes on with the next line, plgraph's ``eval trees``
likewise, and its trace scorer reads it as an empty parse (``plgraph eval traces``) -- and
in SHP output a block of comments only (``# SentID`` and ``# plgraph-skipped``), which SHP
readers pass over; in JSON an object with ``status`` ``unreadable``, the ``reason`` and
``tree`` null; in CoNLL-U a sentence of one empty token (``_``, ``HEAD`` 0, ``MISC``
``Unreadable=Yes``) under the comments ``status = unreadable`` and ``reason``, so that
every CoNLL-U reader keeps the count.
"""
from __future__ import annotations

#: the output formats of :func:`render`
OUTPUT_FORMATS = ("ptb", "shp", "json", "conllu")
#: the ``status`` of a sentence that could not be read
UNREADABLE = "unreadable"
#: the PTB line of a sentence that could not be read
PLACEHOLDER = "()"


def tree_text(result, root: str = "TOP") -> str:
    """``result``'s tree as one PTB line (no newline) with root label ``root`` (``TOP``,
    which EVALB's COLLINS.prm deletes, or ``ROOT``)."""
    from ...eval.ceiling import with_root

    return with_root(result.tree, root).to_string()


def render(result, to: str = "ptb", root: str = "TOP", text: str | None = None) -> str:
    """``result`` (a :class:`~plgraph.parser.parsing.parser.ParseResult`) as ``to`` =
    ``ptb`` (:func:`tree_text` and a newline), ``shp`` (its graph's SHP block), ``json``
    (:func:`sentence_json` on one line) or ``conllu`` (:func:`sentence_conllu`);
    ``text``: the raw sentence it was tokenised from, for ``json`` and ``conllu``."""
    from ...shp import format_shp

    if to == "shp":
        return format_shp(result.graph)
    if to == "json":
        return _json_line(sentence_json(result, root=root, text=text))
    if to == "conllu":
        return sentence_conllu(result, root=root, text=text)
    return tree_text(result, root) + "\n"


def _json_line(doc: dict) -> str:
    import json

    return json.dumps(doc, ensure_ascii=False) + "\n"


def sentence_json(result, *, sid: str | None = None, text: str | None = None, words=None, reason: str = "",
                  root: str = "TOP", traces=None) -> dict:
    """The JSON object of a parsed sentence (module docstring); ``result`` None: the
    placeholder of an unreadable sentence, with its ``words`` (if any) and ``reason``;
    ``traces``: the tree's trace records when already read off (default: read here)."""
    from .trace_records import trace_records

    doc = {"id": sid if sid is not None or result is None else result.id}
    if text is not None:
        doc["text"] = text
    if result is None:
        return {**doc, "status": UNREADABLE, "reason": reason, "tokens": list(words or []), "tags": [],
                "tree": None, "traces": [], "graph": None}
    g = result.graph
    return {**doc, "status": result.status, "reason": result.reason, "tokens": list(result.words),
            "tags": list(result.tags), "tree": tree_text(result, root),
            "traces": [r.to_json() for r in (trace_records(result.tree) if traces is None else traces)],
            "graph": {"spines": list(g.spines), "edges": [list(e) for e in g.edge_tuples()]}}


def graph_from_json(doc: dict):
    """The :class:`~plgraph.graph.Graph` of a :func:`sentence_json` object (None for an
    unreadable sentence's)."""
    from ...graph import Graph

    if doc.get("graph") is None:
        return None
    edges = [tuple(e) for e in doc["graph"]["edges"]]
    return Graph.from_edges(doc["tokens"], doc["tags"], doc["graph"]["spines"], edges, id=doc.get("id"))


def sentence_conllu(result, *, sid: str | None = None, text: str | None = None, reason: str = "",
                    root: str = "TOP") -> str:
    """The CoNLL-U sentence of a parse (:func:`~plgraph.parser.parsing.conllu_graph.graph_to_conllu`
    with the status and the PTB tree as comments); ``result`` None: the placeholder
    (module docstring)."""
    from .conllu_graph import graph_to_conllu

    if result is None:
        return _conllu_placeholder(sid, reason)
    return graph_to_conllu(result.graph, sid=sid if sid is not None else result.id, text=text, status=result.status,
                           ptb=tree_text(result, root))


def _conllu_placeholder(sid, reason: str) -> str:
    lines = [f"# sent_id = {' '.join(str(sid).split())}"] if sid else []
    lines += [f"# status = {UNREADABLE}", f"# reason = {' '.join(str(reason).split())}",
              "1\t_\t_\t_\t_\t_\t0\t_\t_\tUnreadable=Yes"]
    return "\n".join(lines) + "\n\n"


def render_skipped(skipped, to: str = "ptb") -> str:
    """The placeholder (module docstring) of an input sentence that could not be read
    (a :class:`~plgraph.parser.parsing.inputs.Skipped`); empty for text that stood for no
    sentence (``skipped.sentence`` False)."""
    if not skipped.sentence:
        return ""
    if to == "shp":
        reason = " ".join(str(skipped.reason).split())
        return f"# SentID {skipped.where}\n# plgraph-skipped {reason}\n\n"
    if to == "json":
        return _json_line(sentence_json(None, sid=skipped.where, reason=skipped.reason))
    if to == "conllu":
        return _conllu_placeholder(skipped.where, skipped.reason)
    return PLACEHOLDER + "\n"


__all__ = ["OUTPUT_FORMATS", "PLACEHOLDER", "UNREADABLE", "graph_from_json", "render", "render_skipped",
           "sentence_conllu", "sentence_json", "tree_text"]
