"""Memora's checks recompute every case of the official fixtures and match them all."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from benchledger.adapters.benchmarks.conformance import ConformanceOptions, run_conformance
from conformance_asserts import assert_every_case_matches
from benchledger.adapters.benchmarks.memora.conformance import CHECKS

FIXTURES = {"fama-expected.json", "judge-replies.json", "context-example.json"}


def test_every_memora_fixture_case_matches(shared_data: Path) -> None:
    results = run_conformance(shared_data / "conformance", checks=list(CHECKS))
    assert_every_case_matches(results, FIXTURES)


def test_fixtures_with_a_prefix_are_claimed_and_a_wrong_vote_is_caught(shared_data: Path,
                                                                       tmp_path: Path) -> None:
    source = shared_data / "conformance" / "memora"
    shutil.copy(source / "fama-inputs.json", tmp_path / "twin-fama-inputs.json")
    expected = json.loads((source / "fama-expected.json").read_text(encoding="utf-8"))
    tie = next(c for q in expected["per_question"] for c in q["criteria"]
               if c["llm_answer"] == "tie")
    tie["is_correct"] = True  # a tie is never correct
    (tmp_path / "twin-fama-expected.json").write_text(json.dumps(expected), encoding="utf-8")
    (result,) = run_conformance(tmp_path, ConformanceOptions(prompts_root=shared_data),
                                checks=list(CHECKS))
    assert result.cases > 300 and result.matches == result.cases - 1
    assert "is_correct expected true, got false" in result.first_mismatch


def test_the_fama_check_needs_its_inputs_beside_it(shared_data: Path, tmp_path: Path) -> None:
    shutil.copy(shared_data / "conformance" / "memora" / "fama-expected.json", tmp_path)
    (result,) = run_conformance(tmp_path, checks=list(CHECKS))
    assert result.skipped and "fama-inputs.json" in result.skipped and not result.ok
