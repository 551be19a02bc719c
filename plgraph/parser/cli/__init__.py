"""The graph parser's command line: ``parser train|stats``
(:mod:`~plgraph.parser.cli.train`) and ``parse``, ``parser evaluate|tagger``
(:mod:`~plgraph.parser.cli.parse`).  Each command only reads its options and calls the
library."""
