"""Start several bench processes at one instant: each says `ready` once set up, then waits for a time.

Used where a figure is about processes at once (appends from many writers, runs on one API key):
set-up (imports, connections, a dataset) stays out of the timed span, and every process begins
at the same wall-clock time, written to its stdin.
"""

from __future__ import annotations

import subprocess
import time

__all__ = ["start_together"]


def start_together(procs: list[subprocess.Popen], *, delay: float, what: str) -> float:
    """Wait for every process's `ready` line, then tell each to begin `delay` seconds from now; when."""
    for proc in procs:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"a process did not start ({what})")
    start_at = time.time() + delay
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(f"{start_at}\n")
        proc.stdin.close()
    return start_at
