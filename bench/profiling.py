"""`--profile NAME`: one figure's benchmark under cProfile, every thread of the process included.

cProfile counts calls exactly, so two profiles of the same workload compare call by call however
loaded the shared machine is (their times do not). A run's questions are answered on worker
threads, which cProfile alone would not see: `profiled` gives each thread started meanwhile a
profiler of its own (`threading.setprofile` installs it as the thread's first act) and merges them
all into one `pstats.Stats` at the end. Two files come out, `bench-profile-NAME.prof` (open it with
`python -m pstats`, snakeviz or `flameprof` for a flame graph) and `bench-profile-NAME.txt`, the
top entries sorted by own time and by cumulative time. What runs in child processes (the loopback
model server, the concurrent writers) is not in it: for those, `py-spy record --subprocesses`.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

__all__ = ["profiled", "write_profile", "TOP"]

TOP = 40
"""Entries in each sorted list of the text profile."""


@contextmanager
def profiled() -> Iterator[list[cProfile.Profile]]:
    """Profile the block on this thread and on every thread it starts; the profilers, to merge."""
    profiles: list[cProfile.Profile] = []
    guard = threading.Lock()

    def start_in_thread(frame: FrameType, event: str, arg: Any) -> None:
        profile = cProfile.Profile()
        with guard:
            profiles.append(profile)
        profile.enable()  # replaces this hook as the thread's profile function

    main = cProfile.Profile()
    profiles.append(main)
    threading.setprofile(start_in_thread)
    main.enable()
    try:
        yield profiles
    finally:
        main.disable()
        threading.setprofile(None)


def write_profile(profiles: list[cProfile.Profile], folder: Path, name: str) -> tuple[Path, Path]:
    """(binary, text) profile files for figure `name` in `folder`, merged over every thread."""
    stats = pstats.Stats(profiles[0], stream=io.StringIO())
    for other in profiles[1:]:
        try:
            stats.add(other)
        except TypeError:  # a thread that never made a call has no stats
            continue
    folder.mkdir(parents=True, exist_ok=True)
    binary, text = folder / f"bench-profile-{name}.prof", folder / f"bench-profile-{name}.txt"
    stats.dump_stats(binary)
    out = io.StringIO()
    out.write(f"profile of {name} ({len(profiles)} threads), python {sys.version.split()[0]}\n")
    stats.strip_dirs()  # file names without the venv's folders, to read (the .prof keeps them)
    for order in ("tottime", "cumulative"):
        stats.stream = out  # type: ignore[attr-defined]
        out.write(f"\n=== sorted by {order} ===\n")
        stats.sort_stats(order).print_stats(TOP)
    text.write_text(out.getvalue())
    return binary, text
