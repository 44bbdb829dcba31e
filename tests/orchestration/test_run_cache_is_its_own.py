"""A run's response cache is its own (issue 19, finding 3).

An adversary's run on the same ledger records poisoned replies (every answer the gold-free
"Final: 1999-01-01", every verdict "Final: Correct"); an honest run after it asks its own endpoint
for every call and scores what that endpoint said, on the same ledger and after `pull`ing the
adversary's run into the honest ledger. A run is still served its own responses: a rejudge with the
same judge calls no model. `--cache-from` must name a run the ledger holds (exit 2, no run started).
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.ledger.store import Ledger
from conftest import MINI
from ledger_cli import invoke_expecting

pytestmark = pytest.mark.slow


invoke = partial(invoke_expecting, env={"OPENAI_API_KEY": "sk-own-cache-test-1234"})


def run(ledger: Path, server: LoopbackOpenAI, *extra: str, expect: int = 0) -> dict:
    out = ledger.with_name(f"report-{len(list(ledger.parent.glob('report-*')))}.json")
    invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5", "--judge-model",
           "gpt-5", "--base-url", server.base_url, "--question-limit", "3", "--out", str(out), *extra,
           expect=expect, ledger=ledger)
    return json.loads(out.read_text())


def poisoned_run(ledger: Path, server: LoopbackOpenAI) -> dict:
    server.faults.always("reply", role="agent", text="Final: 1999-01-01")
    server.faults.always("reply", role="judge", text="Final: Correct")
    report = run(ledger, server)
    server.faults.clear()
    assert report["correct"] == report["total"], "the poison: every question counted correct"
    return report


def test_an_honest_run_after_a_poisoned_one_asks_its_own_endpoint(tmp_path: Path) -> None:
    ledger = tmp_path / "shared.db"
    with LoopbackOpenAI() as server:  # one endpoint: the same requests, the same request digests
        poisoned_run(ledger, server)
        calls = server.count()
        report = run(ledger, server)
        assert server.count() == calls + 2 * report["total"], "every answer and verdict was asked again"
        clean = run(tmp_path / "clean.db", server)
    assert report["correct"] == clean["correct"] < report["total"]


def test_pulling_someone_elses_run_puts_none_of_its_responses_in_play(tmp_path: Path) -> None:
    theirs, mine = tmp_path / "theirs.db", tmp_path / "mine.db"
    with LoopbackOpenAI() as server:
        poisoned = poisoned_run(theirs, server)
        invoke("pull", poisoned["run_id"], "--from", str(theirs), ledger=mine)
        with Ledger.open(mine, create=False) as opened:
            assert opened.cache.cache_get(next(e.event.request_digest for e in opened.reader.events(
                poisoned["run_id"], types=["QuestionAnswered"])), runs=(poisoned["run_id"],)) is not None
        calls = server.count()
        report = run(mine, server)
        assert server.count() == calls + 2 * report["total"]
    assert report["correct"] < report["total"]


def test_a_run_is_served_its_own_responses_and_cache_from_must_name_a_run(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.db"
    with LoopbackOpenAI() as server:
        report = run(ledger, server)
        calls = server.count()
        invoke("rejudge", report["run_id"], "--judge-model", "gpt-5", "--base-url", server.base_url, ledger=ledger)
        assert server.count() == calls, "the same judge requests are answered from the run's own responses"
        with Ledger.open(ledger, create=False) as opened:
            rejudged = [e.event for e in opened.reader.events(report["run_id"], types=["Judged"]) if e.event.scorer_id == "s2"]
        assert len(rejudged) == report["total"] and all(v.cache_hit for v in rejudged)
        refused = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5",
                         "--base-url", server.base_url, "--cache-from", "01ZZZZZZZZZZ", expect=2, ledger=ledger)
        assert "01ZZZZZZZZZZ" in refused.output and server.count() == calls  # no model was asked
    with Ledger.open(ledger, create=False) as opened:
        assert len(opened.reader.runs()) == 1


def test_cache_from_is_diagnostic_unless_its_source_met_the_protocol(shared_data) -> None:
    from benchledger.adapters.benchmarks.groupmem.loader import read_questions
    from events_factory import GROUPMEM_CONDITIONS as CONDITIONS
    from benchledger.projections.report import build_report
    from events_factory import config, stored, stream

    questions = read_questions(shared_data / "groupmembench", "Finance").questions
    outcomes = {q.question_id: (q.kind, "correct") for q in questions}
    source = "01J0000000000000000000SRCE"

    def report(**overrides):
        return build_report("r", stored(stream(outcomes, cfg=config(**overrides), planned=questions)),
                            conditions=CONDITIONS)

    assert report().publishable, "the stream meets the protocol without --cache-from"
    unmet = report(cache_from=source, cache_source_publishable=False)
    provenance = {c.name: c for c in unmet.conditions}["recorded_provenance"]
    assert not unmet.publishable and not provenance.met and source in provenance.reason
    met = report(cache_from=source, cache_source_publishable=True)
    provenance = {c.name: c for c in met.conditions}["recorded_provenance"]
    assert met.publishable and provenance.met and f"run {source} recorded (--cache-from)" in provenance.reason


def test_a_response_forged_together_with_its_recording_event_is_never_served(tmp_path: Path) -> None:
    """The cached reply and the raw_hash of the answer that vouches for it edited alike: a run taking
    that run's responses by name (`--cache-from`) is refused before any model call, naming the changed
    event (the ledger guards' tests hold the cache's own check of the recording event at serve time)."""
    import hashlib
    import sqlite3

    from benchledger.ledger.migrations import GUARD_TRIGGERS

    ledger = tmp_path / "ledger.db"
    forged = "Final: forged answer 1999"
    with LoopbackOpenAI() as server:
        honest = run(ledger, server)
        conn = sqlite3.connect(ledger, isolation_level=None)
        seq, key, payload, digest = conn.execute(
            "SELECT e.seq, e.idempotency_key, e.payload, r.request_digest FROM events e JOIN responses r "
            "ON r.run_id = e.run_id AND r.idempotency_key = e.idempotency_key WHERE e.type = 'QuestionAnswered' "
            "ORDER BY e.seq LIMIT 1").fetchone()
        event = json.loads(payload)
        event["raw_hash"] = hashlib.sha256(forged.encode()).hexdigest()
        (text,) = conn.execute("SELECT response FROM responses WHERE request_digest = ?", (digest,)).fetchone()
        response = json.dumps({**json.loads(text), "text": forged}, sort_keys=True, separators=(",", ":"),
                              ensure_ascii=False)
        for name in GUARD_TRIGGERS:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        conn.execute("UPDATE responses SET response = ?, response_digest = ? WHERE request_digest = ?",
                     (response, hashlib.sha256(response.encode()).hexdigest(), digest))
        conn.execute("UPDATE events SET payload = ? WHERE seq = ?", (json.dumps(event, separators=(",", ":")), seq))
        for sql in GUARD_TRIGGERS.values():
            conn.execute(sql)
        conn.close()
        calls = server.count()
        refused = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5",
                         "--judge-model", "gpt-5", "--base-url", server.base_url, "--question-limit", "3",
                         "--cache-from", honest["run_id"], expect=1, ledger=ledger)
        assert f"does not verify at seq {seq}" in refused.output and "was changed" in refused.output
        assert server.count() == calls, "no model was asked"
    assert "forged" not in refused.output
    with Ledger.open(ledger, create=False) as opened:
        assert [r.run_id for r in opened.reader.runs()] == [honest["run_id"]], "no run was started"
