"""The one assertion every benchmark's conformance test makes about its results."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from benchledger.adapters.benchmarks.conformance import FixtureResult


def assert_every_case_matches(results: Iterable[FixtureResult], files: set[str]) -> None:
    """Each named fixture file was claimed, checked (nothing skipped) and every case matched."""
    results = list(results)
    assert {Path(r.file).name for r in results} == files
    failed = [(r.file, r.skipped or r.first_mismatch) for r in results if not r.ok]
    assert failed == []
    assert all(r.cases > 0 and r.matches == r.cases for r in results)
