import os
import signal
import sys

# Ctrl-C while the command modules load waits for them (an import cut short can leave
# numba's state broken: a crash at exit); then the command's own handling takes over.
_held: list = []
_previous = signal.signal(signal.SIGINT, lambda *_: _held.append(True))
try:
    from .cli import main
finally:
    signal.signal(signal.SIGINT, _previous)
if _held:
    sys.stderr.write("plgraph: interrupted\n")
    sys.exit(130)

status = main()
if status in (130, 143):
    # Interrupted (Ctrl-C, SIGTERM): the command has written what it keeps and released its
    # locks.  The interrupt may have cut an import of numba's short, after which the
    # interpreter's clean-up at exit can crash, so the process ends here, streams flushed.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)
sys.exit(status)
