"""`verify RUN --spot-check N [--seed S]`: a seeded draw of a run's recorded answer and judge requests,
sent again through the model client to a "provider" (the loopback OpenAI-compatible server), and how
many replies agree with what the run recorded, with a Wilson interval.

The run is GroupMemBench's mini release answered and judged by the loopback server. The same server
answers the same (every reply agrees); scripted to answer differently, the disagreements are counted
and shown; a failing provider gives failures, never disagreements. The check is one event after the
run finished, never answered from the ledger's response cache, with the key's variable name and never
its value, and the score, conditions and publishable status stay what they were.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.orchestration.spot_check import same_answer
from benchledger.projections.stats import wilson_interval
from ledger_cli import events_of, invoke

KEY = "sk-test-loopback-0000"


@pytest.fixture
def run(loopback) -> dict:
    result = invoke("run", "groupmem", "--demo", "--agent-model", "loopback-agent", "--judge-model", "loopback-judge",
                    "--base-url", loopback.base_url, "--out", "r.json")
    assert result.exit_code == 0, result.output
    return json.loads(Path("r.json").read_text())


def _spot(run_id: str, *args: str, expect: int = 0) -> str:
    result = invoke("verify", run_id, "--spot-check", *args)
    assert result.exit_code == expect, result.output
    return result.output


def _checks(run_id: str) -> list:
    return [e for e in events_of(run_id) if e.type == "SpotChecked"]


def _stable(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in ("checks", "ledger_head", "events", "last_seq",
                                                          "projection_versions")}


def test_the_same_provider_agrees_on_every_reply_and_asks_it_not_the_cache(loopback, run):
    before = loopback.count()
    output = _spot(run["run_id"], "20", "--seed", "7", "--by", "a reviewer")
    assert loopback.count() - before == 40  # 20 answer and 20 judge requests, none served from the cache
    assert "drew 20 of 40 question(s) (asked 20, seed 7)" in output
    low, high = wilson_interval(20, 20)
    assert f"answers 20/20 agree (100.0%, 95% CI [{100 * low:.1f}, {100 * high:.1f}])" in output
    assert "verdicts 20/20 agree" in output
    (event,) = _checks(run["run_id"])
    assert event.endpoint.base_url == loopback.base_url and event.endpoint.api_key_env == "OPENAI_API_KEY"
    assert event.population == 40 and event.seed == 7 and event.checked_by == "a reviewer"
    assert len({i.question_id for i in event.items}) == 20 and all(i.agrees for i in event.items)
    assert KEY not in Path("ledger.db").read_bytes().decode("latin-1")


def test_a_provider_answering_differently_shows_the_disagreement_and_the_score_stays(loopback, run):
    before = json.loads(invoke("show", run["run_id"], "--json").output)
    loopback.faults.always("reply", role="judge", text="The answer does not match.\nFinal: Incorrect")
    loopback.faults.always("reply", role="agent", text="Final: something else entirely")
    output = _spot(run["run_id"], "20", "--seed", "7")
    (event,) = _checks(run["run_id"])
    answers = [i for i in event.items if i.stage == "answer"]
    verdicts = [i for i in event.items if i.stage == "judge"]
    assert all(i.again == "something else entirely" and i.agrees is False for i in answers)
    agreeing = sum(1 for i in verdicts if i.agrees)
    assert agreeing == sum(1 for i in verdicts if i.recorded == "incorrect") < 20  # only recorded "incorrect" agree
    assert all(i.again == "incorrect" for i in verdicts)
    assert "answers 0/20 agree (0.0%" in output and f"verdicts {agreeing}/20 agree" in output
    assert "recorded correct, now incorrect" in output and "now something else entirely" in output
    after = json.loads(invoke("show", run["run_id"], "--json").output)
    assert _stable(after) == _stable(before)  # score, conditions, publishable: never moved by a check
    assert after["checks"][0]["verdicts"]["agree"] == agreeing and after["checks"][0]["answers"]["agree"] == 0
    shown = invoke("show", run["run_id"]).output
    assert "c1 spot-check by " in shown and f"verdicts {agreeing}/20 agree" in shown
    assert invoke("verify", run["run_id"]).exit_code == 0


def test_the_same_seed_draws_the_same_questions_another_seed_others(loopback, run):
    for seed in ("3", "3", "4"):
        _spot(run["run_id"], "5", "--seed", seed)
    drawn = [[i.question_id for i in c.items if i.stage == "judge"] for c in _checks(run["run_id"])]
    assert drawn[0] == drawn[1] and drawn[0] != drawn[2] and len(drawn[0]) == 5
    assert [c.check_id for c in _checks(run["run_id"])] == ["c1", "c2", "c3"]


def test_a_failing_provider_gives_failures_never_disagreements(loopback, run, monkeypatch):
    loopback.faults.always("500")
    output = _spot(run["run_id"], "3", "--seed", "1", "--max-attempts", "1")
    (event,) = _checks(run["run_id"])
    assert all(i.agrees is None and "500" in i.error for i in event.items), [i.error for i in event.items]
    assert "answers: no reply, 3 failed" in output and "verdicts: no reply, 3 failed" in output


def test_another_provider_is_named_by_base_url_and_an_offline_run_is_refused(loopback, run):
    unreachable = invoke("verify", run["run_id"], "--spot-check", "2", "--base-url", "http://127.0.0.1:9/v1")
    assert unreachable.exit_code == 2 and not _checks(run["run_id"])  # probed first: nothing sent, nothing recorded
    offline = invoke("run", "groupmem", "--demo", "--out", "o.json")
    assert offline.exit_code == 0, offline.output
    run_id = json.loads(Path("o.json").read_text())["run_id"]
    refused = invoke("verify", run_id, "--spot-check", "2")
    assert refused.exit_code == 2 and "no provider to send them to again" in refused.output


def test_answers_agree_whatever_their_case_spacing_and_punctuation():
    assert same_answer("7 May 2023.", " 7 may  2023") and not same_answer("7 May 2023", "8 May 2023")
