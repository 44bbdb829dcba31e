"""A closed stdout or stderr never stops paid work.

`benchledger run ... | head -3` closes the pipe after three lines; Python then raises
BrokenPipeError at the next write, which used to unwind a run half way through its questions (the
answers it had paid for were recorded, the rest never asked, and nothing said so). The CLI
therefore writes through `ClosedPipeGuard`: the first write to a closed pipe marks the stream gone
and every later write to it is dropped, so the command finishes what it started and exits as it
would have. What could not be shown is not lost: it is on the ledger, and `show` prints it again.

Only a closed pipe (EPIPE) is swallowed; any other write error still raises.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any, TextIO

__all__ = ["ClosedPipeGuard", "guard_standard_streams"]


class ClosedPipeGuard:
    """A text stream that drops writes once its reader has gone, delegating everything else."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.closed_by_reader = False

    def write(self, text: str) -> int:
        if self.closed_by_reader:
            return len(text)
        try:
            return self._stream.write(text)
        except OSError as err:
            return self._lost(err, len(text))

    def flush(self) -> None:
        if self.closed_by_reader:
            return
        try:
            self._stream.flush()
        except OSError as err:
            self._lost(err, 0)

    def _lost(self, err: OSError, size: int) -> int:
        if not isinstance(err, BrokenPipeError) and err.errno != errno.EPIPE:
            raise err
        self.closed_by_reader = True
        try:  # so the interpreter's own flush at exit finds nothing to complain about
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass  # not a real file (a test runner's buffer): dropping writes is enough
        return size

    def isatty(self) -> bool:
        return False if self.closed_by_reader else self._stream.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def guard_standard_streams() -> None:
    """Wrap sys.stdout and sys.stderr (once) so a closed pipe drops output instead of raising."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, ClosedPipeGuard):
            setattr(sys, name, ClosedPipeGuard(stream))
