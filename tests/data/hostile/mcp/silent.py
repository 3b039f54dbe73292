"""An MCP stdio server that never answers: it reads what it is sent and says nothing, outlives
the end of its stdin, and ignores SIGTERM and SIGHUP (only SIGKILL ends it).

    python silent.py PIDFILE      # writes its pid there once it runs

Bound: the kernel gives up on it after the server's ``start_timeout`` (or a call's
``call_timeout``) and it is gone within a few seconds after (``stdio_client``'s 2 s after its
stdin closed, then 2 s after SIGTERM, then SIGKILL); it is gone too once the kernel is killed
(the guard's 1 s after SIGTERM). It allocates nothing but what it reads.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
if len(sys.argv) > 1:
    written = Path(sys.argv[1] + ".tmp")
    written.write_text(str(os.getpid()))
    written.replace(sys.argv[1])  # whole once it is there
for _line in sys.stdin.buffer:  # every request, unanswered
    pass
threading.Event().wait()  # stdin is closed: stay anyway
