"""`benchledger run locomo` end to end on a slice of the real LoCoMo dev file, offline and through
the openai SDK against a real loopback server (typed protocol)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.ledger.store import Ledger
from ledger_cli import invoke

# The category numbers of the release, spelled out here (not imported) so the test pins the mapping.
CATEGORY = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}
ABSTENTION = "There is no information available in the conversation to answer this question."


def conditions(report: dict) -> dict[str, bool]:
    return {c["name"]: c["met"] for c in report["conditions"]}


def events_of(run_id: str) -> list:
    with Ledger.open(Path("ledger.db")) as ledger:
        return [stored.event for stored in ledger.reader.events(run_id)]


@pytest.fixture
def dev_file(shared_data) -> Path:
    return shared_data / "locomo" / "locomo-dev.json"


def test_offline_slice_shows_named_categories_and_is_diagnostic(dev_file):
    result = invoke("run", "locomo", str(dev_file), "--conversations", "conv-26", "--question-limit", "30",
                    "--out", "r.json")
    assert result.exit_code == 0, result.output
    report = json.loads(Path("r.json").read_text())
    released = json.loads(dev_file.read_text())
    conv26 = next(c for c in released if c["sample_id"] == "conv-26")
    expected_kinds = [CATEGORY[qa["category"]] for qa in conv26["qa"][:30]]
    assert report["total"] == 30 and report["failed"] == 0 and report["pending"] == 0
    assert {k: v["planned"] for k, v in report["by_kind"].items()} == {
        kind: expected_kinds.count(kind) for kind in set(expected_kinds)}
    for kind in set(expected_kinds):
        assert f"\n  {kind} " in result.output  # each category's row, under its name
    met = conditions(report)
    assert report["status"] == "diagnostic"
    assert met["complete_file"] is False and met["no_limits"] is False and met["all_categories"] is False
    assert met["zero_operational_failures"] is True and met["complete_run"] is True
    events = events_of(report["run_id"])
    corpus = next(e for e in events if e.type == "CorpusFingerprinted")
    assert list(corpus.scopes) == ["conv-26"] and corpus.expected_documents == {"conv-26": 419}
    recalls = [e for e in events if e.type == "ContextRecalled"]
    assert len(recalls) == 30 and all(e.asking_user is None for e in recalls)  # LoCoMo has no asking user
    assert events[0].config.benchmark == "LoCoMo" and events[0].config.selection.question_limit == 30
    assert invoke("verify").exit_code == 0


def test_adversarial_questions_are_scored_by_the_abstention_rule(dev_file):
    result = invoke("run", "locomo", str(dev_file), "--conversations", "conv-26", "--categories", "5",
                    "--out", "r.json")
    assert result.exit_code == 0, result.output
    report = json.loads(Path("r.json").read_text())
    assert list(report["by_kind"]) == ["adversarial"] and report["total"] == 47
    events = events_of(report["run_id"])
    plan = next(e for e in events if e.type == "QuestionsPlanned")
    assert all(q.abstention and q.gold == ABSTENTION for q in plan.questions)
    answered = {e.question_id: e for e in events if e.type == "QuestionAnswered"}
    judged = {e.question_id: e for e in events if e.type == "Judged"}
    assert set(judged) == set(answered) and len(judged) == 47
    for qid, verdict in judged.items():
        # the offline answerer abstains with the bare sentence, which invents nothing
        assert (verdict.verdict == "correct") == answered[qid].abstained, (qid, answered[qid].answer)
    outcomes = {v.verdict for v in judged.values()}
    assert outcomes == {"correct", "incorrect"}  # both sides of the rule are exercised
    assert report["by_kind"]["adversarial"]["correct"] == sum(a.abstained for a in answered.values())


def test_typed_protocol_through_the_sdk_matches_the_offline_verdicts(dev_file, monkeypatch):
    slice_args = ("--conversations", "conv-30", "--question-limit", "12")
    assert invoke("run", "locomo", str(dev_file), *slice_args, "--out", "offline.json").exit_code == 0
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        result = invoke("run", "locomo", str(dev_file), *slice_args, "--agent-model", "loopback-agent",
                        "--protocol", "typed", "--base-url", server.base_url, "--out", "typed.json")
        assert result.exit_code == 0, result.output
        assert server.count(role="agent") == 12 and server.count(role="judge") == 12
        assert all(body["response_format"]["type"] == "json_schema" for body in server.requests)
    offline, typed = (json.loads(Path(name).read_text()) for name in ("offline.json", "typed.json"))
    assert typed["agent_model"] == "loopback-agent" and typed["protocol"] == "typed"
    assert conditions(typed)["real_models"] is True and conditions(offline)["real_models"] is False
    verdicts = [{e.question_id: e.verdict for e in events_of(r["run_id"]) if e.type == "Judged"}
                for r in (offline, typed)]
    assert verdicts[0] == verdicts[1] and len(verdicts[0]) == 12
    assert "sk-test-loopback" not in Path("ledger.db").read_bytes().decode("latin-1")


def test_a_protocol_locomo_does_not_declare_is_refused_before_anything_is_written(dev_file, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    result = invoke("run", "locomo", str(dev_file), "--question-limit", "2", "--agent-model", "gpt-5",
                    "--base-url", "http://127.0.0.1:9/v1", "--protocol", "reference")
    # `run locomo --help` offers only LoCoMo's own protocols, so the option itself refuses another
    assert result.exit_code == 2 and "'reference' is not one of 'official', 'typed'" in result.output
    assert not Path("ledger.db").exists()


@pytest.mark.parametrize("args", [("--conversations", "conv-99"), ("--categories", "hard"),
                                  ("--question-limit", "0")])
def test_bad_selection_exits_2_and_writes_nothing(dev_file, args):
    result = invoke("run", "locomo", str(dev_file), *args)
    assert result.exit_code == 2, result.output
    assert not Path("ledger.db").exists()
