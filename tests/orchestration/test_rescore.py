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
    second, first = show("--scorer", "s2"), show()
    assert second["scorer_id"] == "s2" and second["judge_model"] == "judge-two"
    # the headline stays the run's own: judge-two meets no condition gpt-5 fails
    assert first["scorer_id"] == "s1" and first["judge_model"] == "gpt-5"
    assert first["correct"] == report["correct"]
    assert [line["scorer_id"] for line in first["scorer_lines"] if not line["headline"]] == ["s2"]
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
    assert " rejudge " in unfinished.output and "--continue s2" in unfinished.output
    partial = show("--scorer", "s2")
    assert partial["scorer_id"] == "s2" and partial["failed"] == report["total"] and partial["judged"] == 0
    loopback.faults.clear()
    agent_calls = loopback.count(role="agent")
    invoke("rejudge", "latest", "--continue", "s2", "--base-url", loopback.base_url)
    finished = show("--scorer", "s2")
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
    assert json.loads(invoke("show", "latest", "--json", "--scorer", "s2").stdout)["pending"] == 0


def test_a_second_judges_failures_are_its_own(loopback):
    """Issue 36 item 1: a rejudge whose judge replies with no verdict fails under its own scorer, exit 3,
    naming how many and how to continue; the run's own scorer neither counts them nor calls them resolved."""
    report = reference_run(loopback)
    loopback.faults.always("bad_json", role="judge", model="judge-two")
    failed = invoke("rejudge", "latest", "--judge-model", "judge-two", "--protocol", "typed",
                    "--base-url", loopback.base_url, expect=3)
    total = report["total"]
    assert (f"scorer s2 judged 0 of {total} recorded answer(s), {total} failed (ModelParseError {total}); "
            "continue it with `benchledger") in failed.stderr and "--continue s2`" in failed.stderr
    listed = json.loads(invoke("failures", "latest", "--json").stdout)
    assert len(listed) == total and all(not f["resolved"] and f["scorer_id"] == "s2" for f in listed)
    rows = invoke("failures", "latest").stdout.splitlines()[2:]
    assert len(rows) == total and all(row.split()[:3] == ["OPEN", "judge", "s2"] for row in rows)
    own = show()  # the headline: the run's own scorer, whose verdicts are all there
    assert own["scorer_id"] == "s1" and own["failed"] == 0 and own["failures_retried"] == 0
    zero = {c["name"]: c for c in own["conditions"]}["zero_operational_failures"]
    assert zero["met"] and "resolved" not in zero["reason"]
    [line] = [line for line in own["scorer_lines"] if line["scorer_id"] == "s2"]
    assert (line["judged"], line["failed"], line["failures_by_error"]) == (0, total, {"ModelParseError": total})
    card = invoke("show", "latest").stdout
    assert f"0/{total} judged, {total} failed (ModelParseError {total})" in card
    assert "resolved by retry" not in card
    theirs = show("--scorer", "s2")
    assert theirs["failed"] == total and not {c["name"]: c for c in theirs["conditions"]}["zero_operational_failures"]["met"]
