"""`cli_help_ratio`: how long `benchledger --help` takes to start, against a bare interpreter.

Each is a child process, as a user starts it: `benchledger --help` (the console script's own two
lines, `from benchledger.cli.main import cli; cli()`, run by this interpreter, so the figure does not
depend on where the script was installed) and `python -c pass`, alternated, each the best of a few
rounds. The figure is the ratio of their wall times (what a slow shared machine inflates alike);
beside it `cli_help_s` and `python_start_s`, the wall times, and `cli_help_cpu_s`, the child's CPU
time (user and system, from `RUSAGE_CHILDREN`), which other processes cannot inflate. Start-up is
what every command pays before it does anything: its imports, and whatever the command tree does to
build itself (it loads no plugin until a command needs one).
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time

from benchledger.bench import goal, register

__all__ = ["cli_help_ratio"]

_HELP = [sys.executable, "-c", "from benchledger.cli.main import cli; cli()", "--help"]
_BARE = [sys.executable, "-c", "pass"]

goal("cli_help_s", at_most=10, baseline="python_start_s", relative=True)


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one child run of `command`, which must succeed."""
    cpu, started = _child_cpu(), time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{command[1:]} failed ({done.returncode}): {done.stderr[-2000:]}")
    if command is _HELP and "Commands:" not in done.stdout:
        raise RuntimeError("benchledger --help printed no command list")
    return wall, _child_cpu() - cpu


@register("cli_help_ratio")
def cli_help_ratio(quick: bool) -> dict[str, float]:
    rounds = 3 if quick else 9
    help_wall = help_cpu = bare_wall = float("inf")
    for _ in range(rounds):
        wall, cpu = _timed(_HELP)
        help_wall, help_cpu = min(help_wall, wall), min(help_cpu, cpu)
        bare_wall = min(bare_wall, _timed(_BARE)[0])
    return {"cli_help_ratio": round(help_wall / bare_wall, 1), "cli_help_s": round(help_wall, 3),
            "cli_help_cpu_s": round(help_cpu, 3), "python_start_s": round(bare_wall, 4)}
