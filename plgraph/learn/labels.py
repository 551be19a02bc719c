"""Label taxonomies and label-structured feature weights.

Schiehlen & Spranger (2007, §2.4; the copy of the paper we hold is cut off before that
section, so this follows a summary of it):
every feature has one weight copy per label, plus copies for *generalisations over
labels* arranged as a taxonomy with one top node (all labels: the unlabelled
weight), intermediate classes, and one leaf per label.  The score of label ``l``
sums, for every active feature, the weights of all taxonomy nodes on ``l``'s path.
To keep the model small the taxonomy is pruned *feature by feature*: on each level
the nodes covering only labels never observed with the feature in training are
merged into one "other" node.  A feature seen with many labels keeps fine,
label-specific weights; a feature seen with one label backs off to its top node,
its classes and a shared "other" weight (the automatic choice of smoothing level).

:class:`LabelTaxonomy` holds the tree; :func:`label_blocks` lays out the weights of
each feature (see ``plgraph.learn._kernels`` for the block format).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _kernels as K


@dataclass
class LabelTaxonomy:
    """A label taxonomy: ``paths[l]`` lists the nodes from just below the top down to
    label ``l`` itself, e.g. ``("complement", "nsubj", "nsubj:pass")``.

    Attributes (arrays for the kernels)
    -----------------------------------
    anc : int32 array (L, K + 1)
        ``anc[l, k]`` = node id of ``l``'s level-k ancestor (``anc[l, 0] = 0``, the
        top), -1 where ``l``'s path is shorter than k.
    nodelevel : int32 array (n_nodes,)
        Level of every node (top = 0).
    """

    labels: list
    paths: list

    def __post_init__(self):
        if len(self.labels) != len(self.paths):
            raise ValueError("one path per label")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError("labels must be distinct")
        self.labels = list(self.labels)
        self.paths = [tuple(p) for p in self.paths]
        for lab, p in zip(self.labels, self.paths):
            if not p:
                raise ValueError(f"empty taxonomy path for label {lab!r}")
        self.depth = max(len(p) for p in self.paths)
        node_ids = {(): 0}
        levels = [0]
        names = ["*"]
        anc = np.full((len(self.labels), self.depth + 1), -1, np.int32)
        for li, p in enumerate(self.paths):
            anc[li, 0] = 0
            for k in range(1, len(p) + 1):
                key = p[:k]
                if key not in node_ids:
                    node_ids[key] = len(levels)
                    levels.append(k)
                    names.append("/".join(key))
                anc[li, k] = node_ids[key]
        self.anc = anc
        self.nodelevel = np.asarray(levels, np.int32)
        self.node_names = names
        self.index = {lab: i for i, lab in enumerate(self.labels)}

    @property
    def K(self) -> int:
        """Number of levels below the top."""
        return self.depth

    @property
    def n_nodes(self) -> int:
        return len(self.nodelevel)

    @classmethod
    def flat(cls, labels) -> "LabelTaxonomy":
        """Top node plus one leaf per label (no intermediate classes)."""
        labels = list(labels)
        return cls(labels, [(lab,) for lab in labels])

    def to_json(self) -> dict:
        return {"labels": self.labels, "paths": [list(p) for p in self.paths]}

    @classmethod
    def from_json(cls, doc: dict) -> "LabelTaxonomy":
        return cls(doc["labels"], [tuple(p) for p in doc["paths"]])


def label_blocks(pair_fid, pair_label, n_features: int, taxonomy: LabelTaxonomy, labelled=None):
    """Weight layout for ``n_features`` features from training observations.

    Parameters
    ----------
    pair_fid, pair_label : int arrays of equal length
        Every (feature id, gold label id) observed in training (duplicates allowed).
    labelled : bool array (n_features,), optional
        Features that get label copies (default all); the others have a top weight only.

    Returns
    -------
    foff : int64 array (n_features + 1,)
        Start of each feature's block in the flat weight vector.
    fnode : int32 array (foff[-1],)
        Taxonomy node of each observed-node weight (-1 for top and "other" weights).
    """
    if labelled is None:
        labelled = np.ones(n_features, np.bool_)
    return K.build_label_blocks(np.asarray(pair_fid, np.int64), np.asarray(pair_label, np.int64),
                                int(n_features), taxonomy.anc, taxonomy.K, np.asarray(labelled, np.bool_))
