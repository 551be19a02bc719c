"""Raw text in: PTB tokenisation (:mod:`plgraph.text.tokenize`), sentence splitting
(:mod:`plgraph.text.sentences`) and their accuracy against the treebank
(:mod:`plgraph.text.accuracy`)."""
