"""Central numba settings (one place, as in STUMPY's config)."""
from __future__ import annotations

import os

#: ``cache=True`` for every kernel unless PLGRAPH_NUMBA_CACHE=0.
NUMBA_CACHE = os.environ.get("PLGRAPH_NUMBA_CACHE", "1") != "0"
#: fastmath stays off: kernels here are combinatorial, not numerical.
NUMBA_FASTMATH = False


def quick_mode() -> bool:
    """The notebooks' quick-mode switch: ``PLGRAPH_QUICK=1`` (set by ``make test``)
    makes notebooks that train run on a small slice; ``make notebooks`` runs them in full."""
    return os.environ.get("PLGRAPH_QUICK", "0") not in ("", "0", "false", "no")
