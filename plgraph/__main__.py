import os
import sys

try:
    from .signals import held_interrupts

    with held_interrupts():     # an import of numba cut short can crash the interpreter at exit
        from .cli import main
except KeyboardInterrupt:
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
