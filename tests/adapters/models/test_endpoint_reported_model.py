"""Publishable judges a model as the endpoint reported it, not as it was asked for.

End to end through the openai SDK against the loopback server, whose `other_model` fault answers
as usual but says another model answered (an endpoint serving a sibling). For each benchmark that
names its models, on both sides of the boundary: the named model or its dated snapshot is
accepted, a sibling of the same family is refused and named.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.memora.prompts import OFFICIAL_JUDGES
from benchledger.adapters.models.loopback import LoopbackOpenAI
from conftest import REPO, MINI
from ledger_cli import events_of, invoke

LONGMEMEVAL = REPO / "tests" / "fixtures" / "longmemeval" / "longmemeval_fixture.json"
MEMORA = REPO / "tests" / "fixtures" / "memora"


def _condition(report: dict, name: str) -> dict:
    return next(c for c in report["conditions"] if c["name"] == name)


def _groupmem(loopback: LoopbackOpenAI) -> dict:
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5", "--judge-model",
                    "gpt-5", "--base-url", loopback.base_url, "--out", "r.json")
    assert result.exit_code == 0, result.output
    return json.loads(Path("r.json").read_text())


@pytest.mark.parametrize("role", ["agent", "judge"])
def test_groupmem_gpt_5_mini_reported_for_gpt_5_is_not_the_reference(loopback, role):
    loopback.faults.always("other_model", role=role, text="gpt-5-mini")
    report = _groupmem(loopback)
    recorded = {e.model for e in events_of(report["run_id"])
                if e.type == ("QuestionAnswered" if role == "agent" else "Judged")}
    assert recorded == {"gpt-5-mini"}  # the ledger keeps what the endpoint said
    condition = _condition(report, "reference_protocol")
    what = "answers" if role == "agent" else "verdicts"
    assert not condition["met"] and f"{what} came from gpt-5-mini as the endpoint reported" in condition["reason"]


def test_groupmem_gpt_5_or_its_dated_snapshot_reported_is_the_reference(loopback):
    loopback.faults.always("other_model", role="agent", text="gpt-5-2025-08-07")
    report = _groupmem(loopback)
    assert {e.model for e in events_of(report["run_id"]) if e.type == "QuestionAnswered"} == {"gpt-5-2025-08-07"}
    assert {e.model for e in events_of(report["run_id"]) if e.type == "Judged"} == {"gpt-5"}
    # the mini release is not a solvability-filtered domain nor the released prompts; the models are the reference
    condition = _condition(report, "reference_protocol")
    assert "gpt-5-2025-08-07" not in condition["reason"] and "endpoint reported" not in condition["reason"]
    assert "gpt-5-mini" not in condition["reason"] and "not gpt-5" not in condition["reason"]


def _longmemeval(loopback: LoopbackOpenAI, shared_data: Path) -> dict:
    result = invoke("run", "longmemeval", str(LONGMEMEVAL),
                    "--prompts-dir", str(shared_data / "longmemeval" / "prompts"),
                    "--agent-model", "loopback-agent", "--base-url", loopback.base_url, "--out", "r.json")
    assert result.exit_code == 0, result.output
    return json.loads(Path("r.json").read_text())


@pytest.mark.parametrize("reported, met", [("gpt-4o-2024-08-06", True), ("gpt-4o-mini-2024-07-18", False),
                                           ("gpt-4o-2024-05-13", False)])
def test_longmemeval_judge_as_the_endpoint_reported_it(loopback, shared_data, reported, met):
    loopback.faults.always("other_model", role="judge", model="gpt-4o-2024-08-06", text=reported)
    report = _longmemeval(loopback, shared_data)
    assert {e.model for e in events_of(report["run_id"]) if e.type == "Judged"} == {reported}
    condition = _condition(report, "official_judges")
    assert condition["met"] is met, condition
    # the fixture release is never the official one, nor loopback a provider's API; every other condition
    # holds with the official judge
    unmet = {c["name"] for c in report["conditions"] if not c["met"]}
    assert unmet - {"official_release", "provider_endpoint"} == (set() if met else {"official_judges"}), unmet
    if not met:
        assert f"the endpoint reported verdicts from {reported}" in condition["reason"]


def _memora(loopback: LoopbackOpenAI, shared_data: Path) -> dict:
    result = invoke("run", "memora", str(MEMORA), "--split", "weekly", "--prompts-dir",
                    str(shared_data / "memora" / "prompts"), "--agent-model", "loopback-agent", "--base-url",
                    loopback.base_url, "--out", "r.json")
    assert result.exit_code == 0, result.output
    return json.loads(Path("r.json").read_text())


@pytest.mark.parametrize("reported, met", [("openai/gpt-4.1-2025-04-14", True), ("openai/gpt-4.1-mini", False),
                                           ("openai/gpt-4.1-nano-2025-04-14", False)])
def test_memora_judge_as_the_endpoint_reported_it(loopback, shared_data, reported, met):
    asked = OFFICIAL_JUDGES["openai"]
    loopback.faults.always("other_model", role="judge", model=asked, text=reported)
    report = _memora(loopback, shared_data)
    votes = {e.model for e in events_of(report["run_id"]) if e.type == "Judged"}
    assert votes and all(reported in vote.split(" + ") for vote in votes)
    condition = _condition(report, "official_judges")
    assert condition["met"] is met, condition
    # the fixture release is never the official one, nor loopback a provider's API; every other condition
    # holds with the official judge
    unmet = {c["name"] for c in report["conditions"] if not c["met"]}
    assert unmet - {"official_release", "provider_endpoint"} == (set() if met else {"official_judges"}), unmet
    if not met:
        assert f"the endpoint reported verdicts from {reported}" in condition["reason"]
