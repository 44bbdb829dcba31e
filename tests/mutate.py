"""Hand-written mutations, each with the tests that must notice it: run before a release, not in CI.

Each entry of `tests/mutations.toml` breaks one promised behaviour the way a plausible bug would
(one exact piece of text in one module replaced by another) and names the tests that must fail
when it is broken. `python tests/mutate.py` applies each mutation to the working tree in turn,
runs its tests, and puts the module back (in a `finally`, so Ctrl-C restores it too); a mutation
the tests let pass "survived" and is reported with its promise. Before any mutation its tests must
pass on the code as it is, or the run stops: a red test kills every mutant and proves nothing.

Why not a generator (mutmut, cosmic-ray): they make thousands of mutants per module and run the
tests for each, which on this suite (minutes per module on 2 cores) is hours per module, and most of
their mutants (an operator swapped in a log line) test nothing anyone promised. These are the bugs
an audit of the promises found unnoticed; each stays here as a record that the suite now notices it.

    .venv/bin/python tests/mutate.py                      # every mutation
    .venv/bin/python tests/mutate.py --module ledger/cache.py
    .venv/bin/python tests/mutate.py --only pinned-head-excludes-its-event --list
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CATALOGUE = REPO / "tests" / "mutations.toml"


@dataclass(frozen=True)
class Mutation:
    name: str
    module: str
    """The file mutated, relative to the repository."""
    find: str
    """Text that occurs exactly once in the module."""
    replace: str
    tests: tuple[str, ...]
    """pytest node ids (relative to the repository) of which at least one must fail."""
    promise: str
    """What a user would get, with every test green, if the mutation shipped."""


def catalogue(path: Path = CATALOGUE) -> list[Mutation]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Mutation(name=name, module=entry["module"], find=entry["find"], replace=entry["replace"],
                     tests=tuple(entry["tests"]), promise=entry["promise"])
            for name, entry in data.items()]


def problems(mutation: Mutation, repo: Path = REPO) -> list[str]:
    """Why a mutation cannot be applied as written (its module moved, its text changed), one line each."""
    module = repo / mutation.module
    if not module.is_file():
        return [f"{mutation.name}: {mutation.module} does not exist"]
    found = module.read_text(encoding="utf-8").count(mutation.find)
    out = [] if found == 1 else [
        f"{mutation.name}: its `find` text occurs {found} times in {mutation.module}, not once: update "
        "tests/mutations.toml to the code's new form"]
    if mutation.find == mutation.replace:
        out.append(f"{mutation.name}: `replace` is the same as `find`")
    for node in mutation.tests:
        file, _, name = node.partition("::")
        path = repo / file
        function = name.split("[")[0]
        if not path.is_file() or f"def {function}(" not in path.read_text(encoding="utf-8"):
            out.append(f"{mutation.name}: no test {node}")
    return out


def _pytest(tests: tuple[str, ...]) -> int:
    env = {**os.environ, "BENCHLEDGER_SHARED_DATA": os.environ.get(
        "BENCHLEDGER_SHARED_DATA", str(REPO.parent / "shared" / "data"))}
    return subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                          cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


def run(mutation: Mutation) -> str:
    """"killed", "survived", or "broke collection" (the mutant did not import: killed, but by accident)."""
    module = REPO / mutation.module
    original = module.read_bytes()
    try:
        module.write_bytes(original.replace(mutation.find.encode(), mutation.replace.encode(), 1))
        code = _pytest(mutation.tests)
    finally:
        module.write_bytes(original)
    return {0: "survived", 1: "killed"}.get(code, "broke collection")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--module", help="only the mutations of this file (relative to the repository)")
    parser.add_argument("--only", action="append", default=[], help="only this mutation (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = parser.parse_args(argv)
    chosen = [m for m in catalogue() if (not args.module or m.module == args.module)
              and (not args.only or m.name in args.only)]
    if args.list or not chosen:
        for m in chosen:
            print(f"{m.name:44} {m.module}  ({len(m.tests)} test(s))")
        return 0 if chosen else 2
    if bad := [line for m in chosen for line in problems(m)]:
        print("\n".join(bad), file=sys.stderr)
        return 2
    if (code := _pytest(tuple(dict.fromkeys(t for m in chosen for t in m.tests)))) != 0:
        print(f"the mutations' tests do not pass on the code as it is (pytest exit {code}): fix that first",
              file=sys.stderr)
        return 1
    survived = 0
    for m in chosen:
        outcome = run(m)
        survived += outcome == "survived"
        print(f"{outcome:17} {m.name}" + (f"\n                  promise: {m.promise}" if outcome == "survived" else ""),
              flush=True)
    print(f"{len(chosen) - survived} of {len(chosen)} mutation(s) noticed")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
