"""LongMemEval's checks recompute every case of the official fixtures and match them all."""

from __future__ import annotations

from pathlib import Path

from benchledger.adapters.benchmarks.conformance import ConformanceOptions, run_conformance
from conformance_asserts import assert_every_case_matches
from benchledger.adapters.benchmarks.longmemeval.conformance import CHECKS

FIXTURES = {"dev-retrieval.json", "retrieval-quirk-cases.json", "dev-qa-metrics.json",
            "answer-prompt-examples.json"}


def test_every_longmemeval_fixture_case_matches(shared_data: Path) -> None:
    results = run_conformance(shared_data / "conformance", checks=list(CHECKS))
    assert_every_case_matches(results, FIXTURES)


def test_a_prompt_fixture_without_the_official_templates_fails(shared_data: Path,
                                                               tmp_path: Path) -> None:
    options = ConformanceOptions(prompts_root=tmp_path)  # no longmemeval/prompts inside
    results = run_conformance(shared_data / "conformance" / "longmemeval", options,
                              checks=list(CHECKS))
    skipped = {Path(r.file).name for r in results if r.skipped}
    assert skipped == {"dev-qa-metrics.json", "answer-prompt-examples.json"}
    assert not any(r.ok for r in results if r.skipped)


def test_a_changed_expected_value_is_reported_as_a_mismatch(shared_data: Path,
                                                            tmp_path: Path) -> None:
    import json
    source = shared_data / "conformance" / "longmemeval" / "retrieval-quirk-cases.json"
    cases = json.loads(source.read_text(encoding="utf-8"))
    cases[0]["metrics"]["@2"]["ndcg_any"] = 0.5  # the official discount gives 1.0 at rank 2
    (tmp_path / "other-retrieval-quirk-cases.json").write_text(json.dumps(cases), encoding="utf-8")
    (result,) = run_conformance(tmp_path, ConformanceOptions(prompts_root=shared_data),
                                checks=list(CHECKS))
    assert result.matches == result.cases - 1
    assert "@2 ndcg_any expected 0.5, got 1.0" in result.first_mismatch
