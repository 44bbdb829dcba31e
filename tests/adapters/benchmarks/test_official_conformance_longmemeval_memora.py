"""run_conformance over the whole conformance folder with the LongMemEval and Memora checks only."""

from __future__ import annotations

from pathlib import Path

from benchledger.adapters.benchmarks.conformance import all_checks, run_conformance
from benchledger.adapters.benchmarks.longmemeval.conformance import CHECKS as LONGMEMEVAL
from benchledger.adapters.benchmarks.memora.conformance import CHECKS as MEMORA
from conformance_asserts import assert_every_case_matches


def test_every_case_of_both_benchmarks_matches(shared_data: Path) -> None:
    results = run_conformance(shared_data / "conformance", checks=[*LONGMEMEVAL, *MEMORA])
    assert_every_case_matches(results, {
        "dev-retrieval.json", "retrieval-quirk-cases.json", "dev-qa-metrics.json",
        "answer-prompt-examples.json", "fama-expected.json", "judge-replies.json",
        "context-example.json"})


def test_both_benchmarks_register_their_checks() -> None:
    names = {check.name for check in all_checks()}
    assert {c.name for c in (*LONGMEMEVAL, *MEMORA)} <= names
