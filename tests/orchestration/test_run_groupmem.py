"""`benchledger run groupmem` end to end: the README's offline job, the verified write path,
and the reference protocol through the openai SDK against a real loopback server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import MINI
from benchledger.ledger.store import Ledger
from ledger_cli import invoke

KINDS = {"multi_hop", "knowledge_update", "temporal", "user_implicit", "term_ambiguity", "abstention"}


def conditions(report: dict) -> dict[str, bool]:
    return {c["name"]: c["met"] for c in report["conditions"]}


def test_readme_main_job_prints_diagnostic_scorecard_for_all_kinds(tmp_path):
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", str(tmp_path / "r.json"))
    assert result.exit_code == 0, result.output
    assert "DIAGNOSTIC" in result.output and "failures: 0" in result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert set(report["by_kind"]) == KINDS
    assert report["failed"] == 0 and report["pending"] == 0
    assert report["status"] == "diagnostic" and report["agent_model"].startswith("offline-")
    assert report["total"] == sum(k["planned"] for k in report["by_kind"].values())
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        types = [e.type for e in ledger.reader.events(report["run_id"])]
        assert types[:3] == ["RunStarted", "QuestionsPlanned", "CorpusFingerprinted"]
        assert types.count("Judged") == report["total"] and types[-2:] == ["ScopePurged", "RunFinished"]
        assert ledger.reader.head(report["run_id"]) == report["ledger_head"]
    assert invoke("verify").exit_code == 0


def test_scoring_is_refused_when_the_memory_does_not_hold_the_corpus(tmp_path):
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--no-prepare")
    assert result.exit_code == 1
    assert "aborted at verify" in result.output
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        run_id = ledger.reader.runs()[0].run_id
        events = ledger.reader.events(run_id)
    types = [e.type for e in events]
    assert "Judged" not in types and "ContextRecalled" not in types
    failed = [e.event for e in events if e.type == "Failed"]
    assert failed[0].stage == "verify" and failed[0].error_class == "CorpusIncomplete"
    assert events[-1].event.status == "aborted"


def test_keep_then_no_prepare_reuses_the_verified_scope(tmp_path):
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--keep").exit_code == 0
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--no-prepare", "--out", "r.json")
    assert result.exit_code == 0, result.output
    report = json.loads(Path("r.json").read_text())
    assert report["corpus_state"]["ready"] and report["failed"] == 0


def test_bad_input_exits_2_and_writes_nothing(tmp_path):
    result = invoke("run", "groupmem", str(MINI), "--domain", "Nope")
    assert result.exit_code == 2
    assert not (tmp_path / "ledger.db").exists()
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "-1")
    assert result.exit_code == 2


@pytest.fixture
def released_prompt_release(tmp_path, shared_data) -> Path:
    """The mini release with the released GroupMemBench prompts (copied into tmp, not the repo)."""
    root = tmp_path / "release"
    shutil.copytree(MINI, root)
    for name in ("agent_system.txt", "judge_system.txt"):
        shutil.copy(shared_data / "groupmembench" / "prompts" / name, root / "prompts" / name)
    return root


def _reference_run(loopback, release, *extra: str, expect: int = 0) -> dict:
    result = invoke("run", "groupmem", str(release), "--domain", "Demo", "--protocol", "reference",
                    "--agent-model", "gpt-5", "--judge-model", "gpt-5", "--base-url", loopback.base_url,
                    "--max-attempts", "2", "--out", "r.json", *extra)
    assert result.exit_code == expect, result.output
    return json.loads(Path("r.json").read_text())


def test_reference_protocol_run_is_diagnostic_only_for_the_unfiltered_domain(loopback, released_prompt_release):
    report = _reference_run(loopback, released_prompt_release)
    met = conditions(report)
    # a made-up corpus given by path is not the release either (no file of it has a pin), and
    # the loopback server is not a provider's API: what model answered cannot be known
    assert [name for name, ok in met.items() if not ok] == [
        "official_release", "solvability_filtered_domain", "provider_endpoint"]
    reasons = {c["name"]: c["reason"] for c in report["conditions"]}
    assert reasons["official_release"].startswith(
        "no pin for data/final/Demo/synthetic_domain_channels_rolevariants_Demo.json: official_release cannot be checked")
    assert reasons["provider_endpoint"] == (f"answers came from {loopback.base_url}, not a provider's API over "
                                            "verified TLS: what model answered cannot be known")
    assert report["failed"] == 0 and report["agent_model"] == "gpt-5"
    assert loopback.count(role="agent") == report["total"] and loopback.count(role="judge") == report["total"]


@pytest.mark.parametrize("extra, broken", [
    (("--k", "8"), "reference_protocol"),
    (("--question-limit", "1"), "unsampled_questions"),
    (("--message-limit", "50"), "complete_corpus"),
])
def test_each_deviation_names_its_condition(loopback, released_prompt_release, extra, broken):
    report = _reference_run(loopback, released_prompt_release, *extra)
    failed = {name for name, ok in conditions(report).items() if not ok}
    assert failed == {"official_release", "solvability_filtered_domain", "provider_endpoint", broken}


def test_one_permanent_failure_is_named_and_never_scored_wrong(loopback, released_prompt_release):
    questions = (released_prompt_release / "questions" / "Demo" / "temporal.jsonl").read_text().splitlines()
    victim = json.loads(questions[0])
    loopback.faults.always("500", contains=victim["question"])
    report = _reference_run(loopback, released_prompt_release, expect=3)
    assert report["failed"] == 1 and report["by_kind"]["temporal"]["failed"] == 1
    assert report["judged"] == report["total"] - 1
    failed = {name for name, ok in conditions(report).items() if not ok}
    # the failed question was never judged, so the run is not complete either
    assert failed == {"official_release", "solvability_filtered_domain", "provider_endpoint",
                      "zero_operational_failures", "complete_run"}
    assert report["failures"][0]["question_id"] == victim["id"]
