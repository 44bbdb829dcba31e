"""`benchledger run longmemeval` end to end on the fixture, and resume after a question whose
judge call failed permanently (through the openai SDK against a real loopback server)."""

from __future__ import annotations

import json
from pathlib import Path


from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.orchestration.reports import report_of
from benchledger.projections.state import fold_run
from conftest import REPO
from benchledger.ledger.store import Ledger
from ledger_cli import invoke

FIXTURE = REPO / "tests" / "fixtures" / "longmemeval" / "longmemeval_fixture.json"
KAYAK = "What colour is the kayak I bought last summer?"


def events_of(run_id: str) -> list:
    with Ledger.open(Path("ledger.db")) as ledger:
        return [stored.event for stored in ledger.reader.events(run_id)]


def conditions(report: dict) -> dict[str, bool]:
    return {c["name"]: c["met"] for c in report["conditions"]}


def test_offline_run_gives_each_question_its_own_scope():
    result = invoke("run", "longmemeval", str(FIXTURE), "--protocol", "typed", "--out", "r.json")
    assert result.exit_code == 0, result.output
    report = json.loads(Path("r.json").read_text())
    released = json.loads(FIXTURE.read_text())
    ids = [item["question_id"] for item in released]
    assert report["total"] == len(ids) == 3 and report["failed"] == 0 and report["pending"] == 0
    assert set(report["by_kind"]) == {item["question_type"] for item in released}
    events = events_of(report["run_id"])
    corpus = next(e for e in events if e.type == "CorpusFingerprinted")
    assert sorted(corpus.scopes) == sorted(ids)
    assert len(set(corpus.scopes.values())) == len(ids)  # distinct memory scopes
    plan = next(e for e in events if e.type == "QuestionsPlanned")
    assert [q.question_id for q in plan.questions if q.abstention] == ["lme-fx-03_abs"]
    assert all(q.scope_key == q.question_id for q in plan.questions)
    purged = {e.scope_key for e in events if e.type == "ScopePurged"}
    assert purged == set(ids)
    met = conditions(report)
    assert met["unsampled_questions"] and met["zero_operational_failures"] and not met["real_models"]
    assert not met["official_prompts"] and not met["official_scorer"]  # the typed protocol says why it is diagnostic


def test_a_question_that_failed_permanently_is_judged_on_resume(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        server.faults.always("500", role="judge", contains=KAYAK)
        result = invoke("run", "longmemeval", str(FIXTURE), "--agent-model", "loopback-agent",
                        "--protocol", "typed", "--base-url", server.base_url, "--max-attempts", "2",
                        "--out", "first.json")
        assert result.exit_code == 3, result.output
        first = json.loads(Path("first.json").read_text())
        assert first["failed"] == 1 and first["judged"] == 2 and first["status"] == "diagnostic"
        assert [(f["question_id"], f["stage"]) for f in first["failures"]] == [("lme-fx-03_abs", "judge")]
        assert conditions(first)["zero_operational_failures"] is False
        agent_calls, judge_calls = server.count(role="agent"), server.count(role="judge")
        assert (agent_calls, judge_calls) == (3, 2 + 2)  # two attempts at the failing judge call

        server.faults.clear()
        result = invoke("resume", first["run_id"])
        assert result.exit_code == 0, result.output
        assert server.count(role="agent") == agent_calls  # the recorded answer is not asked again
        assert server.count(role="judge") == judge_calls + 1
    events = events_of(first["run_id"])
    failed = [e for e in events if e.type == "Failed"]
    assert [(e.question_id, e.attempt) for e in failed] == [("lme-fx-03_abs", 1)]
    judged = [e for e in events if e.type == "Judged"]
    assert sorted(e.question_id for e in judged) == ["lme-fx-01", "lme-fx-02", "lme-fx-03_abs"]
    resumed = next(e for e in events if e.type == "RunResumed")
    # the first run purged its scopes, so resume prepares them again before judging
    assert resumed.pending_questions == 1 and resumed.reprepared is True
    assert [e.attempt for e in events if e.type == "RunFinished"] == [1, 2]
    with Ledger.open(Path("ledger.db")) as ledger:
        after = report_of(fold_run(first["run_id"], ledger.reader.events(first["run_id"]))).model_dump(mode="json")
    assert after["failed"] == 0 and after["judged"] == 3 and after["failures_retried"] == 1
    assert conditions(after)["zero_operational_failures"] is True and conditions(after)["real_models"] is True
    assert invoke("verify").exit_code == 0
