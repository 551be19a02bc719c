"""Head rules: the Collins (CCK) table and the modified table of Kummerfeld & Klein.

Heads are found on the tree *as if null elements were removed*: a child that
spans no overt word is invisible to every rule (the reference converter runs
its head finder on a trace-free copy).  Labels are compared without their
co-index numbers; "base label" below means without function tags as well.

Rule sets (``rules=`` argument), following the reference implementation
(the thesis is silent on the details):

``"collins"`` / ``"cck"``
    Collins (Carreras, Collins & Koo 2008) table; coordination is headed by
    its first non-punctuation child.
``"jkk1"`` / ``"modified"`` (default of the converter)
    The modified table (S may be headed by PRN, SBAR by S, SQ by VP, WHNP may
    take S, PRN takes S/VP, VP prefers child VPs and main verbs over
    auxiliaries); coordination is headed by the first conjunction.
``"jkk0"`` ... ``"jkk5"``
    The modified table with the other coordination variants: 0 first
    non-punctuation, 2 first non-punctuation non-conjunction, 3 last
    non-punctuation, 4 last conjunction, 5 last non-punctuation non-conjunction.

Reference quirks kept on purpose so that SHP output matches field for field:
``PRT``'s priority "list" is the string ``"RP"`` (so no child ever matches it and
the fallback decides), and Collins' "last child is POS" NP test never fires.
"""
from __future__ import annotations

from .ptb.clean import base_label, strip_coindex
from .tree import Tree

_COMMON = {
    "ADJP": ("left", "NNS QP NN $ ADVP JJ VBN VBG ADJP JJR NP JJS DT FW RBR RBS SBAR RB".split()),
    "ADVP": ("right", "RB RBR RBS FW ADVP TO CD JJR JJ IN NP JJS NN".split()),
    "CONJP": ("right", "CC RB IN".split()),
    "FRAG": ("right", []),
    "INTJ": ("left", []),
    "LST": ("right", "LS :".split()),
    "NAC": ("left", "NN NNS NNP NNPS NP NAC EX $ CD QP PRP VBG JJ JJS JJR ADJP FW".split()),
    "NP": ("left", "POS NN NNP NNPS NNS NX JJR CD JJ JJS RB QP NP".split()),
    "NX": ("right", "POS NN NNP NNPS NNS NX JJR CD JJ JJS RB QP NP".split()),
    "PP": ("right", "IN TO VBG VBN RP FW".split()),
    "PRT": ("right", list("RP")),  # reference quirk: a string, iterated per character
    "QP": ("left", "$ IN NNS NN JJ RB DT CD NCD QP JJR JJS".split()),
    "RRC": ("right", "VP NP ADVP ADJP PP".split()),
    "SBARQ": ("left", "SQ S SINV SBARQ FRAG".split()),
    "SINV": ("left", "VBZ VBD VBP VB MD VP S SINV ADJP NP".split()),
    "UCP": ("right", []),
    "WHADJP": ("left", "CC WRB JJ ADJP".split()),
    "WHADVP": ("right", "CC WRB".split()),
    "WHPP": ("right", "IN TO FW".split()),
    "X": ("right", []),
    "META": ("right", []),
}
_CC_NODES = {
    "CC" + lab: ("left", ["CC", "CONJP"])
    for lab in "ADJP ADVP FRAG INTJ NAC NP NX PP PRN PRT QP RRC SBAR SBARQ S SINV SQ UCP VP WHADJP WHADVP WHNP X".split()
}

#: Collins / CCK head table (direction, priority list).
COLLINS_TABLE = dict(_COMMON)
COLLINS_TABLE.update({
    "PRN": ("left", []),
    "S": ("left", "TO IN VP S SBAR ADJP UCP NP ADVP SINV".split()),
    "SBAR": ("left", "WHNP WHPP WHADVP WHADJP IN DT S SQ SINV SBAR FRAG".split()),
    "SQ": ("left", "VBZ VBD VBP VB MD VP SQ".split()),
    "VP": ("left", "TO VBD VBN MD VBZ VB VBG VBP VP ADJP NN NNS NP IN".split()),
    "WHNP": ("left", "WDT WP WP$ WHADJP WHPP WHNP".split()),
})
COLLINS_TABLE.update(_CC_NODES)

#: The modified ("jkk") table.
MODIFIED_TABLE = dict(_COMMON)
MODIFIED_TABLE.update({
    "PRN": ("left", "S VP".split()),
    "S": ("left", "TO IN PRN VP S SBAR ADJP UCP NP ADVP SINV".split()),
    "SBAR": ("left", "S WHNP WHPP WHADVP WHADJP IN DT SQ SINV SBAR FRAG".split()),
    "SQ": ("left", "VP VBZ VBD VBP VB MD SQ".split()),
    "VP": ("left", "VP VBZ VB VBG VBP VBD VBN MD S aux TO ADJP NN NNS NP IN".split()),
    "WHNP": ("left", "WDT WP WP$ WHADJP WHPP S WHNP".split()),
})
MODIFIED_TABLE.update(_CC_NODES)

AUX_WORDS = frozenset(
    "'d be am are 's is was were being been can could do does did have has had having "
    "may might must need ought shall should will would".split()
)
PUNCT_WORDS = frozenset(["!", "#", "'", "''", "*", ",", "-", "--", ".", "...", ":", ";", "=", "?", "@",
                         "\\*", "\\*\\*", "`", "``"])
_NOT_PUNCT_TAGS = frozenset(["IN", "TO", "RB", "AUX", "DT"])
_NP_STEPS = (
    (frozenset(["NN", "NNP", "NNPS", "NNS", "NX", "POS", "JJR"]), True),
    (frozenset(["NP", "NML"]), False),
    (frozenset(["$", "ADJP", "PRN"]), True),
    (frozenset(["CD"]), True),
    (frozenset(["JJ", "JJS", "RB", "QP"]), True),
)

RULE_SETS = ("collins", "jkk", "jkk0", "jkk1", "jkk2", "jkk3", "jkk4", "jkk5")
_ALIASES = {"cck": "collins", "modified": "jkk1", "kk": "jkk1"}


def _compile(table):
    out = {}
    for label, (direction, prio) in table.items():
        ranks: dict[str, int] = {}
        for r, lab in enumerate(prio):
            ranks.setdefault(lab, r)
        out[label] = (direction == "right", ranks, ranks.get("aux"))
    return out


_COMPILED = {"collins": _compile(COLLINS_TABLE), "jkk": _compile(MODIFIED_TABLE)}


def normalise_rules(rules: str) -> str:
    """Canonical rule-set name (``"cck"`` -> ``"collins"``, ``"modified"`` -> ``"jkk1"``)."""
    name = _ALIASES.get(rules, rules)
    if name not in RULE_SETS:
        raise ValueError(f"unknown head rules {rules!r}; choose one of {RULE_SETS + tuple(_ALIASES)}")
    return name


def _is_punct(node: Tree, lab: str) -> bool:
    return node.word is not None and lab not in _NOT_PUNCT_TAGS and node.word in PUNCT_WORDS


def find_heads(tree: Tree, rules: str = "jkk1") -> Tree:
    """Set ``node.head`` (0-based index of the head word) on every node.

    Null subtrees get ``head = -1``.  Spans must have been computed
    (:meth:`Tree.compute_spans`).  Returns the tree for chaining.
    """
    style = normalise_rules(rules)
    table = _COMPILED["collins" if style == "collins" else "jkk"]
    is_jkk = style != "collins"
    variant = style[-1] if style[-1].isdigit() else "0"
    # post-order traversal
    stack = [(tree, False)]
    while stack:
        node, done = stack.pop()
        if node.start == node.end:
            node.head = -1
            continue
        if node.word is not None:
            node.head = node.start
            continue
        if not done:
            stack.append((node, True))
            for child in node.children:
                stack.append((child, False))
            continue
        node.head = _head_of(node, table, is_jkk, variant)
    return tree


def _head_of(node: Tree, table, is_jkk: bool, variant: str) -> int:
    kids = [c for c in node.children if c.start != c.end]
    labs = [strip_coindex(c.label) for c in kids]
    nk = len(kids)
    if nk == 1:
        return kids[0].head
    node_lab = strip_coindex(node.label)
    node_base = base_label(node_lab)

    # 1. coordination special case
    coord = False
    for lab in labs:
        if lab.startswith("CC") and (len(lab) > 2 or (is_jkk and nk > 2)):
            coord = True
            break
    if not coord and nk > 2 and base_label(labs[0]) == node_base and labs[1] == "CC":
        coord = True
    if coord:
        flat_np = node_lab == "NP" and all(c.word is not None for c in kids)
        if not flat_np:
            if variant in "012":
                for c, lab in zip(kids, labs):
                    if variant == "0":
                        ok = not _is_punct(c, lab)
                    elif variant == "1":
                        ok = lab == "CC" or lab == "CONJP"
                    else:
                        ok = not (lab == "CC" or lab == "CONJP" or _is_punct(c, lab))
                    if ok:
                        return c.head
            else:
                for c, lab in zip(reversed(kids), reversed(labs)):
                    if variant == "3":
                        ok = not _is_punct(c, lab)
                    elif variant == "4":
                        ok = lab == "CC" or lab == "CONJP"
                    else:
                        ok = not (lab == "CC" or lab == "CONJP" or _is_punct(c, lab))
                    if ok:
                        return c.head

    # 2. NP / NML: Collins' NP procedure; labels outside the table: last child
    entry = table.get(node_base)
    if entry is None or node_base == "NP" or node_base == "NML":
        if node_base == "NP" or node_base == "NML":
            return _collins_np(kids, labs)
        return kids[-1].head

    # 3. table lookup: best priority rank, first in scan direction
    from_right, ranks, aux_rank = entry
    order = range(nk - 1, -1, -1) if from_right else range(nk)
    best = None
    best_rank = 1 << 30
    for i in order:
        c = kids[i]
        if aux_rank is not None and c.word is not None and c.word in AUX_WORDS:
            r = aux_rank
        else:
            r = ranks.get(base_label(labs[i]))
            if r is None:
                continue
        if r < best_rank:
            best_rank = r
            best = c
    if best is not None:
        return best.head
    # fallback: first non-punctuation, non-CCxx child from that end
    for i in order:
        lab = labs[i]
        if not _is_punct(kids[i], lab) and not (len(lab) > 2 and lab.startswith("CC")):
            return kids[i].head
    return kids[-1].head if from_right else kids[0].head


def _collins_np(kids, labs) -> int:
    first_np = None
    all_np = True
    for c, lab in zip(kids, labs):
        if base_label(lab) not in ("CCNP", "NP", ","):
            all_np = False
            break
        if lab != "," and first_np is None:
            first_np = c
    if all_np and first_np is not None:
        return first_np.head
    bases = [base_label(lab) for lab in labs]
    for options, from_right in _NP_STEPS:
        idx = range(len(kids) - 1, -1, -1) if from_right else range(len(kids))
        for i in idx:
            if bases[i] in options:
                return kids[i].head
    backup = None
    for i in range(len(kids) - 1, -1, -1):
        lab = labs[i]
        if not _is_punct(kids[i], lab):
            backup = kids[i]
            if not (len(lab) > 2 and lab.startswith("CC")):
                return kids[i].head
    return (backup or kids[-1]).head
