"""Re-scoring without paying again: rejudge, replay and the response cache, counted at a real
OpenAI-compatible server on loopback."""

from __future__ import annotations

import json

from conftest import MINI
from benchledger.ledger.store import Ledger
from ledger_cli import invoke_expecting as invoke


def reference_run(loopback, *extra: str, expect: int = 0) -> dict:
    invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5", "--judge-model", "gpt-5",
           "--base-url", loopback.base_url, "--out", "r.json", *extra, expect=expect)
    with open("r.json") as handle:
        return json.load(handle)


def show(*args: str) -> dict:
    return json.loads(invoke("show", "latest", "--json", *args).stdout)


def test_rejudge_calls_only_the_judge_and_reports_name_their_scorer(loopback):
    report = reference_run(loopback)
    agent_calls = loopback.count(role="agent")
    assert agent_calls == report["total"]
    invoke("rejudge", "latest", "--judge-model", "judge-two", "--base-url", loopback.base_url)
    assert loopback.count(role="agent") == agent_calls
    assert loopback.count(role="judge", model="judge-two") == report["total"]
    newest, first = show(), show("--scorer", "s1")
    assert newest["scorer_id"] == "s2" and newest["judge_model"] == "judge-two"
    assert first["scorer_id"] == "s1" and first["judge_model"] == "gpt-5"
    assert first["correct"] == report["correct"]
    agreement = json.loads(invoke("agreement", "latest", "--json").stdout)
    assert agreement["overall"]["both_judged"] == report["total"]
    assert agreement["scorer_a"] == "s1" and agreement["scorer_b"] == "s2"


def test_replay_under_a_new_scoring_rule_calls_no_model_and_names_its_versions(loopback):
    reference_run(loopback)
    calls = loopback.count()
    result = invoke("replay", "latest", "--scoring-rule", "2", "--json")
    assert loopback.count() == calls
    replayed = json.loads(result.stdout)
    assert replayed["projection_versions"]["scoring_rule"] == 2
    assert "projection versions" in result.stderr and "scoring_rule=2" in result.stderr
    with Ledger.open("ledger.db") as ledger:
        run_id = ledger.reader.runs()[0].run_id
        early = ledger.reader.events(run_id)[5].seq
    partial = json.loads(invoke("replay", "latest", "--until", str(early), "--json").stdout)
    assert partial["run_status"] == "unfinished" and partial["last_seq"] == early


def test_a_repeated_run_pays_again_unless_it_names_the_run_to_reuse(loopback):
    """Issue 19 item 4: a run's cache is its own; another run's responses are reused only by name."""
    first = reference_run(loopback)
    calls = loopback.count()
    second = reference_run(loopback)
    assert loopback.count() == 2 * calls, "a new run is never served another run's responses unasked"
    third = reference_run(loopback, "--cache-from", first["run_id"][:10])
    assert loopback.count() == 2 * calls, "every call of the run that named the first is a cache hit"
    assert second["correct"] == first["correct"] == third["correct"]
    with Ledger.open("ledger.db") as ledger:
        served = [e.event for e in ledger.reader.events(third["run_id"], types=["QuestionAnswered", "Judged"])]
        paid = [e.event for e in ledger.reader.events(second["run_id"], types=["QuestionAnswered", "Judged"])]
        (started,) = ledger.reader.events(third["run_id"], types=["RunStarted"])
    assert served and all(event.cache_hit for event in served)
    assert paid and not any(event.cache_hit for event in paid)
    assert started.event.config.settings.cache_from == first["run_id"], "recorded as the full id"
    provenance = {c["name"]: c for c in third["conditions"]}["recorded_provenance"]
    assert not provenance["met"] and f"run {first['run_id']} recorded (--cache-from)" in provenance["reason"]
    assert {c["name"]: c["met"] for c in second["conditions"]}["recorded_provenance"]


def test_an_interrupted_rejudge_is_finished_with_continue(loopback):
    report = reference_run(loopback)
    loopback.faults.always("500", role="judge", model="judge-two")
    unfinished = invoke("rejudge", "latest", "--judge-model", "judge-two", "--base-url", loopback.base_url,
                        "--max-attempts", "1", expect=3)
    assert "benchledger rejudge " in unfinished.output and "--continue s2" in unfinished.output
    partial = show()
    assert partial["scorer_id"] == "s2" and partial["failed"] == report["total"] and partial["judged"] == 0
    loopback.faults.clear()
    agent_calls = loopback.count(role="agent")
    invoke("rejudge", "latest", "--continue", "s2", "--base-url", loopback.base_url)
    finished = show()
    assert finished["scorer_id"] == "s2" and finished["judged"] == report["total"] and finished["failed"] == 0
    assert finished["scorers"] == ["s1", "s2"] and loopback.count(role="agent") == agent_calls


def test_resume_after_a_rejudge_points_at_the_scorer_left_behind(loopback):
    victim = json.loads((MINI / "questions" / "Demo" / "temporal.jsonl").read_text().splitlines()[0])
    loopback.faults.always("500", role="agent", contains=victim["question"])
    reference_run(loopback, "--max-attempts", "1", expect=3)
    invoke("rejudge", "latest", "--base-url", loopback.base_url, expect=3)  # one question has no answer to judge
    loopback.faults.clear()
    result = invoke("resume", "latest")
    assert "scorer s2 has 1 answer(s) it has not judged" in result.stderr
    assert json.loads(invoke("show", "latest", "--json", "--scorer", "s1").stdout)["failed"] == 0
    invoke("rejudge", "latest", "--continue", "s2", "--base-url", loopback.base_url)
    assert json.loads(invoke("show", "latest", "--json").stdout)["pending"] == 0
