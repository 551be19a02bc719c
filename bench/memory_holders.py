"""What holds the memory at a run's peak: a memray capture summed by the code that allocated it.

    pip install 'plgraph[profile]'          # memray
    memray run --trace-python-allocators -o run.bin -m plgraph parser train ...
    python bench/memory_holders.py run.bin [--top 25] [--depth 2]

memray (https://bloomberg.github.io/memray/) records every allocation with its Python
stack; this script reads the allocations alive at the capture's high-water mark and sums
them by their innermost ``plgraph`` frames (``--depth`` of them, outermost last), so that
the table names the functions whose data is alive at the peak: the chart of a decode, a
learner's arrays, a prepared corpus.  Allocations made outside plgraph's code (the
interpreter's imports, numba's compiler) are summed under ``(outside plgraph)``.  It
prints the peak, the table, and the number of allocations it read.
"""
from __future__ import annotations

import argparse
import collections
import sys


def holder(stack, depth: int) -> str:
    """The ``module:function`` names of the ``depth`` innermost plgraph frames of
    ``stack`` (memray's ``(function, file, line)`` tuples, innermost first)."""
    names = []
    for function, filename, _line in stack:
        if "/plgraph/" not in filename:
            continue
        module = filename.split("/plgraph/", 1)[1].removesuffix(".py").replace("/", ".")
        names.append(f"{module}:{function}")
        if len(names) == depth:
            break
    return " < ".join(names) if names else "(outside plgraph)"


def summarise(path: str, depth: int = 2) -> tuple[int, collections.Counter, int]:
    """``(peak bytes, Counter holder -> bytes alive at the peak, allocations read)``."""
    try:
        from memray import FileReader
    except ImportError:
        raise SystemExit("memray is not installed: pip install 'plgraph[profile]' (or pip install memray)") from None

    reader = FileReader(path)
    sums: collections.Counter = collections.Counter()
    count = 0
    for rec in reader.get_high_watermark_allocation_records(merge_threads=True):
        sums[holder(rec.stack_trace(), depth)] += rec.size
        count += 1
    return reader.metadata.peak_memory, sums, count


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("capture", help="a memray capture file (memray run -o FILE)")
    ap.add_argument("--top", type=int, default=25, help="rows shown (default 25)")
    ap.add_argument("--depth", type=int, default=2, help="plgraph frames naming a holder (default 2)")
    args = ap.parse_args(argv)
    peak, sums, count = summarise(args.capture, args.depth)
    print(f"peak heap {peak / 1e9:.2f} GB ({count} allocations alive at the peak)")
    print(f"{'GB':>7}  {'share':>6}  holder (innermost plgraph frames)")
    total = sum(sums.values()) or 1
    for name, size in sums.most_common(args.top):
        print(f"{size / 1e9:7.3f}  {100 * size / total:5.1f}%  {name}")
    rest = sum(size for _, size in sums.most_common()[args.top:])
    if rest:
        print(f"{rest / 1e9:7.3f}  {100 * rest / total:5.1f}%  (the rest)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
