"""`python -m benchledger.bench [--quick] [--json] [--only NAME]`: run the registered benchmarks, print JSON.

Progress goes to stderr; stdout holds exactly one JSON object of named figures (indented, or on
one line with --json). Without --json a readable table of the same figures goes to stderr too.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from benchledger.bench import BENCHMARKS, bench_modules


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
    args = parser.parse_args(argv)
    figures: dict[str, float | None] = {}
    with _stdout_to_stderr():
        _load_modules()
        for name, function in BENCHMARKS.items():
            if args.only and name not in args.only:
                continue
            started = time.perf_counter()
            result = function(args.quick)
            print(f"bench: {name} done in {time.perf_counter() - started:.1f}s", file=sys.stderr)
            figures.update(result if isinstance(result, Mapping) else {name: result})
    if not args.json:
        print(_table(figures), file=sys.stderr)
    print(json.dumps(figures, separators=(",", ":")) if args.json else json.dumps(figures, indent=2))
    return 0


def _table(figures: dict[str, float | None]) -> str:
    """The figures as two aligned columns, for a reader (stdout keeps the JSON alone)."""
    width = max((len(name) for name in figures), default=0)
    return "\n".join(f"{name:<{width}}  {'-' if value is None else f'{value:g}'}"
                     for name, value in figures.items())


if __name__ == "__main__":
    sys.exit(main())
