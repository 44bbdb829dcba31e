"""`python -m benchledger.bench [--quick] [--json] [--only NAME] [--profile NAME]`: run the benchmarks.

Progress goes to stderr; stdout holds exactly one JSON object of named figures (indented, or on
one line with --json). Without --json a readable table of the same figures goes to stderr too, and
always, after the figures, each declared goal (`bench.goal`) with its figure, its baseline from the
same run and whether it is met. `--profile NAME` runs only the benchmark registered as NAME under
cProfile (`bench.profiling`) and writes its profile files into `--profile-dir`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, nullcontext
from pathlib import Path

from benchledger.bench import BENCHMARKS, GOALS, bench_modules
from benchledger.bench.profiling import profiled, write_profile


def _load_modules() -> None:
    for name in bench_modules():
        importlib.import_module(name)


@contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Send everything written to stdout meanwhile (logs of the runs a benchmark makes, from
    Python or from a child process) to stderr, at the file-descriptor level, so stdout ends up
    holding the JSON alone."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchledger.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--json", action="store_true", help="print the JSON on one line")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only this figure (repeatable)")
    parser.add_argument("--profile", metavar="NAME",
                        help="run only the benchmark NAME, under cProfile, and write its profile")
    parser.add_argument("--profile-dir", type=Path, default=Path("."), metavar="DIR",
                        help="where --profile writes bench-profile-NAME.prof and .txt (default: here)")
    args = parser.parse_args(argv)
    figures: dict[str, float | None] = {}
    with _stdout_to_stderr():
        _load_modules()
        if args.profile is not None and args.profile not in BENCHMARKS:
            parser.error(f"--profile {args.profile}: no such benchmark; one of {', '.join(BENCHMARKS)}")
        wanted = [args.profile] if args.profile else args.only
        for name, function in BENCHMARKS.items():
            if wanted and name not in wanted:
                continue
            started = time.perf_counter()
            with profiled() if args.profile else nullcontext() as profiles:
                result = function(args.quick)
            print(f"bench: {name} done in {time.perf_counter() - started:.1f}s", file=sys.stderr)
            figures.update(result if isinstance(result, Mapping) else {name: result})
            if profiles is not None:
                binary, text = write_profile(profiles, args.profile_dir, name)
                print(f"bench: profile of {name} in {text} and {binary}", file=sys.stderr)
    if not args.json:
        print(_table(figures), file=sys.stderr)
    if goals := goal_lines(figures):
        print(goals, file=sys.stderr)
    print(json.dumps(figures, separators=(",", ":")) if args.json else json.dumps(figures, indent=2))
    return 0


def _table(figures: dict[str, float | None]) -> str:
    """The figures as two aligned columns, for a reader (stdout keeps the JSON alone)."""
    width = max((len(name) for name in figures), default=0)
    return "\n".join(f"{name:<{width}}  {_shown(value)}" for name, value in figures.items())


def _shown(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def goal_lines(figures: Mapping[str, float | None]) -> str:
    """Each goal whose figure this run measured: figure, goal, its baseline here, met or not."""
    rows = [("figure", "value", "goal", "baseline in this run", "met")]
    for goal in GOALS.values():
        if goal.figure not in figures:
            continue
        limit = goal.limit(figures)
        bound = f"{'>=' if goal.at_least else '<='} {_shown(limit)}"
        if goal.relative:
            bound += f" ({goal.bound:g}x)"
        baseline = f"{goal.baseline} {_shown(figures.get(goal.baseline))}" if goal.baseline else ""
        met = goal.met(figures)
        rows.append((goal.figure, _shown(figures[goal.figure]), bound, baseline,
                     "not measured" if met is None else "yes" if met else "NO"))
    if len(rows) == 1:
        return ""
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    return "\n".join("  ".join([*(cell.ljust(width) for cell, width in zip(row, widths)), row[4]])
                     for row in rows)


if __name__ == "__main__":
    sys.exit(main())
