"""Conformance: recompute the official evaluation code's outputs with benchledger's own code.

`../shared/data/conformance/` holds inputs and the outputs each benchmark's official code produced
on them. A benchmark folder that can be checked has a `conformance` module exposing `CHECKS`, a
tuple of `FixtureCheck`s, found from the registered benchmark's class (no list here names them). Each check claims fixture files by name pattern (and, where names are
ambiguous, by a key the JSON must hold), recomputes every case with benchledger's scorers,
parsers and metric code, and returns a `FixtureResult`: how many cases, how many matched exactly
(counts and strings exactly, floats within `FLOAT_TOLERANCE`), and the first mismatch.

`run_conformance(folder)` finds the fixtures under a folder whatever prefix their files carry and
runs every check that claims them; `benchledger conformance DIR` prints the table and exits 1 on
any mismatch.

Every file under a fixture folder must be accounted for, or the folder does not pass: it is claimed
by a check, or read by one (a check declares the files it reads beside the one it claims: `reads`,
or a fixture names a companion file in a top-level string), or it is the folder's documentation
(`README.md`), or it lies in a `release/` folder of released inputs. `unclaimed_files` lists every
other file; a folder the checks cannot read must not pass.
"""

from __future__ import annotations

import fnmatch
import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from benchledger.errors import BadInput
from benchledger.json_input import JsonTooDeep, JsonTooLarge, load_file

__all__ = [
    "FLOAT_TOLERANCE", "ConformanceOptions", "FixtureCheck", "FixtureResult", "Comparison",
    "same_value", "field_pairs", "run_conformance", "all_checks", "unclaimed_files", "DOCUMENTATION",
]

FLOAT_TOLERANCE = 1e-12
DOCUMENTATION = ("README.md",)
"""File names that document a fixture folder rather than hold fixtures."""


@dataclass(frozen=True)
class ConformanceOptions:
    """What a check may need besides its fixture files."""

    locomo_release: Path | None = None
    """The LoCoMo release file the LoCoMo predictions point into (`--locomo-release`)."""
    prompts_root: Path | None = None
    """Where `<benchmark>/prompts/` holds the official templates (`--prompts-root`); `run_conformance`
    defaults it to the conformance folder's parent, where `../shared/data` keeps them."""


@dataclass
class FixtureResult:
    """One fixture file checked: its cases, the exact matches, and the first mismatch if any."""

    file: str
    check: str
    cases: int = 0
    matches: int = 0
    first_mismatch: str | None = None
    skipped: str | None = None
    """Why the file could not be checked (a missing release file, say); counts as a failure."""

    @property
    def ok(self) -> bool:
        return self.skipped is None and self.cases > 0 and self.matches == self.cases


@dataclass
class Comparison:
    """Accumulates case comparisons for one fixture file, keeping the first mismatch."""

    result: FixtureResult
    _case_failed: bool = field(default=False, repr=False)

    def case(self, case_id: str, pairs: Iterable[tuple[str, Any, Any]]) -> bool:
        """Compare (what, expected, got) triples of one case; True when all match."""
        self.result.cases += 1
        for what, expected, got in pairs:
            if not same_value(expected, got):
                if self.result.first_mismatch is None:
                    self.result.first_mismatch = (
                        f"{case_id}: {what} expected {_show(expected)}, got {_show(got)}")
                return False
        self.result.matches += 1
        return True


@dataclass(frozen=True)
class FixtureCheck:
    """Claims fixture files by name (and a JSON key where names are ambiguous) and checks them."""

    name: str
    """What is checked, e.g. "locomo.qa_scores"."""
    pattern: str
    """fnmatch pattern on the file name, e.g. "*-evidence-recall.json"."""
    run: Callable[[Path, ConformanceOptions], FixtureResult]
    requires_key: str | None = None
    """A top-level key the JSON object must hold for this check to claim the file."""
    companion: Callable[[Path], Path] | None = None
    """The file the check reads beside the one it claims (Memora's inputs beside its expected outputs)."""
    reads: Callable[[Path], Iterable[Path]] | None = None
    """Every other file the check reads or compares for the one it claims (a run's inputs and outputs)."""

    def declared(self, path: Path) -> set[Path]:
        """The files this check reads for the claimed `path`, besides `path` itself."""
        found = {self.companion(path)} if self.companion is not None else set()
        if self.reads is not None:
            found.update(self.reads(path))
        return {Path(p).resolve() for p in found}

    def claims(self, path: Path) -> bool:
        if not fnmatch.fnmatch(path.name, self.pattern):
            return False
        if self.requires_key is None:
            return True
        data = _fixture_json(path)
        return isinstance(data, dict) and self.requires_key in data


def _fixture_json(path: Path) -> Any:
    """A fixture's JSON, or None where it is not JSON (then no check claims it); past the loader's
    size or depth limit it is refused in one line instead, since no check could read it either."""
    try:
        return load_file(path)[0]
    except (JsonTooDeep, JsonTooLarge):
        raise
    except BadInput:
        return None


def same_value(expected: Any, got: Any) -> bool:
    """Counts and strings exactly, floats within FLOAT_TOLERANCE, containers element by element."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return expected is got or (type(expected) is type(got) and expected == got)
    if isinstance(expected, float) or isinstance(got, float):
        if expected is None or got is None or isinstance(expected, str) or isinstance(got, str):
            return False
        if math.isnan(expected) or math.isnan(got):
            return math.isnan(expected) and math.isnan(got)
        return abs(float(expected) - float(got)) <= FLOAT_TOLERANCE
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(same_value(expected[k], got[k]) for k in expected)
    if isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple)):
        return len(expected) == len(got) and all(same_value(e, g) for e, g in zip(expected, got))
    return type(expected) is type(got) and expected == got


def field_pairs(what: str, expected: Any, got: Any) -> Iterator[tuple[str, Any, Any]]:
    """(what, expected, got) per leaf of nested dicts, so a mismatch names the field that differs."""
    if isinstance(expected, dict) and isinstance(got, dict):
        yield f"{what} keys", sorted(expected), sorted(got)
        for key, value in expected.items():
            yield from field_pairs(f"{what}.{key}", value, got.get(key))
    else:
        yield what, expected, got


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 160 else text[:157] + "..."


def all_checks() -> list[FixtureCheck]:
    """Every installed benchmark's checks (`Benchmark.conformance_checks`: the `conformance` module
    beside each registered class), in the registry's order; a plug-in benchmark's come with it."""
    from benchledger.adapters.benchmarks.registry import available_benchmarks

    checks: list[FixtureCheck] = []
    for entry in available_benchmarks():
        if entry.loaded is not None:
            checks.extend(entry.loaded.conformance_checks())
    return checks


def _files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "release" not in path.relative_to(folder).parts:
            yield path


def run_conformance(folder: Path, options: ConformanceOptions | None = None,
                    checks: list[FixtureCheck] | None = None) -> list[FixtureResult]:
    """Run every check on every fixture file under `folder` that it claims, in path order."""
    options = options or ConformanceOptions()
    if options.prompts_root is None:
        options = replace(options, prompts_root=Path(folder).resolve().parent)
    checks = all_checks() if checks is None else checks
    results = []
    for path in _files(folder):
        for check in checks:
            if check.claims(path):
                results.append(check.run(path, options))
    return results


def _named_files(path: Path) -> set[str]:
    """Top-level string values of a JSON object fixture (how a fixture names its companion file)."""
    data = _fixture_json(path)
    return {value for value in data.values() if isinstance(value, str)} if isinstance(data, dict) else set()


def unclaimed_files(folder: Path, checks: list[FixtureCheck] | None = None) -> list[Path]:
    """Files under `folder` that no check claims or reads, no claimed fixture names, and that are not
    the folder's documentation: each makes `benchledger conformance` fail."""
    checks = all_checks() if checks is None else checks
    files = [path for path in _files(folder) if path.name not in DOCUMENTATION]
    claims = [(path, check) for path in files for check in checks if check.claims(path)]
    claimed = {path for path, _check in claims}
    named = set().union(*(_named_files(path) for path in claimed)) if claimed else set()
    declared: set[Path] = set()
    for path, check in claims:
        declared |= check.declared(path)
    return [path for path in files if path not in claimed and path.name not in named
            and path.resolve() not in declared]
