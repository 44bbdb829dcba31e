"""Every counted answer and verdict comes from a recorded endpoint and memory system, or the run says so.

The attacks of issue 12, re-run: a rejudge or a resume at an endpoint nobody recorded, `$OPENAI_BASE_URL`
silently redirecting a resume, a resume against another memory system, a dead endpoint that used to
end a run with exit 0 and 40 failures. Models answer through the real openai SDK against the loopback
server; memory systems are real (sqlite, or a real MemoryServer behind a scripted HTTP remote).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from benchledger.adapters.memory.http_server import MemoryServer
from benchledger.adapters.memory.registry import open_memory
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.ledger.events import Endpoint, Judged, ScorerStarted
from benchledger.ledger.store import Ledger
from benchledger.projections.report import build_report
from conftest import MINI
from events_factory import GROUPMEM_CONDITIONS as CONDITIONS, stored, stream
from scripted_remote import Remote
from ledger_cli import invoke_expecting as invoke


def events_of(tmp_path: Path, run_id: str) -> list:
    with Ledger.open(tmp_path / "ledger.db", create=False) as ledger:
        return [stored.event for stored in ledger.reader.events(run_id)]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provenance-test-0000")


def test_a_rejudge_records_its_endpoint_and_every_segment_is_shown(key, tmp_path):
    with LoopbackOpenAI() as first, LoopbackOpenAI() as other:
        first_url, other_url = first.base_url, other.base_url
        invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1", "--agent-model", "gpt-5",
               "--base-url", first_url, "--out", "r.json")
        run_id = json.loads(Path("r.json").read_text())["run_id"]
        credentialed = other_url.replace("http://", "http://judge-user:PW-SECRET@")
        invoke("rejudge", run_id, "--judge-model", "gpt-5", "--base-url", credentialed)
        assert other.count(role="judge") == 6 and other.count(role="agent") == 0
    scorers = [e for e in events_of(tmp_path, run_id) if isinstance(e, ScorerStarted)]
    assert [s.endpoint for s in scorers] == [Endpoint(base_url=first_url, api_key_env="OPENAI_API_KEY"),
                                            Endpoint(base_url=other_url, api_key_env="OPENAI_API_KEY")]
    shown = invoke("show", run_id).output
    rows = {line.split()[0] + (" " + line.split()[1] if line.split()[0] == "scorer" else ""): line
            for line in shown.splitlines() if line.strip().startswith(("start ", "scorer s2 "))}
    assert first_url in rows["start"] and other_url in rows["scorer s2"]
    report = json.loads(invoke("show", run_id, "--json", "--scorer", "s2").output)
    assert [(s["label"], s["endpoint"]) for s in report["segments"]] == [
        ("start", first_url), ("scorer s2", other_url)]
    provenance = next(c for c in report["conditions"] if c["name"] == "recorded_provenance")
    # met, and it names where the counted answers and the counted verdicts were asked
    assert provenance["met"] and f"(answers from {first_url}; verdicts from {other_url})" in provenance["reason"]
    invoke("export", run_id, "--format", "html", "--out", "r.html")
    assert other_url in Path("r.html").read_text()
    ledger_bytes = (tmp_path / "ledger.db").read_bytes()
    assert b"PW-SECRET" not in ledger_bytes and "PW-SECRET" not in shown


def test_a_resume_goes_where_it_says_and_never_where_openai_base_url_points(key, tmp_path):
    with LoopbackOpenAI() as recorded, LoopbackOpenAI() as elsewhere:
        recorded_url = recorded.base_url
        victim = json.loads((MINI / "questions" / "Demo" / "temporal.jsonl").read_text().splitlines()[0])
        recorded.faults.always("500", role="agent", contains=victim["question"])
        invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1", "--agent-model", "gpt-5",
               "--base-url", recorded.base_url, "--max-attempts", "1", "--out", "r.json", expect=3)
        run_id = json.loads(Path("r.json").read_text())["run_id"]
        recorded.faults.clear()
        before = recorded.count()
        # $OPENAI_BASE_URL set at resume time used to redirect the resumed calls, unrecorded
        invoke("resume", run_id, env={"OPENAI_BASE_URL": elsewhere.base_url})
        assert elsewhere.count() == 0 and recorded.count() == before + 2
    resumed = [e for e in events_of(tmp_path, run_id) if e.type == "RunResumed"]
    assert resumed[0].endpoint == Endpoint(base_url=recorded_url, api_key_env="OPENAI_API_KEY")
    assert (resumed[0].agent_model, resumed[0].memory.name) == ("gpt-5", "sqlite")
    report = json.loads(invoke("show", run_id, "--json").output)
    assert [s["label"] for s in report["segments"]] == ["start", "resume 2"]
    assert report["judged"] == report["total"] == 6


def test_verdicts_from_an_unrecorded_endpoint_are_never_publishable(shared_data):
    from benchledger.adapters.benchmarks.groupmem.loader import read_questions

    questions = read_questions(shared_data / "groupmembench", "Finance").questions
    outcomes = {q.question_id: (q.kind, "correct") for q in questions}
    events = stream(outcomes, planned=questions)
    assert build_report("r", stored(events), conditions=CONDITIONS).publishable
    # a rejudge scorer of the kind older ledgers hold: a real judge, no endpoint recorded
    rejudged = events + [ScorerStarted(scorer_id="s2", judge_model="gpt-5", protocol="reference",
                                       prompt_hash=events[4].prompt_hash)]
    rejudged += [Judged(question_id=q.question_id, scorer_id="s2", verdict="correct", model="gpt-5")
                 for q in questions]
    report = build_report("r", stored(rejudged), conditions=CONDITIONS, scorer_id="s2")
    condition = {c.name: c for c in report.conditions}["recorded_provenance"]
    assert not condition.met and "scorer s2" in condition.reason and not report.publishable
    # the headline stays the run's own scorer, publishable; the unrecorded one is listed beside it
    headline = build_report("r", stored(rejudged), conditions=CONDITIONS)
    assert headline.scorer_id == "s1" and headline.publishable
    assert [line.not_met for line in headline.scorer_lines if line.scorer_id == "s2"] == [["recorded_provenance"]]
    assert [s.endpoint for s in report.segments] == ["openai default", "not recorded"]


def test_a_resume_against_another_memory_system_is_refused_unless_allowed(key, tmp_path):
    with MemoryServer(open_memory("sqlite", tmp_path / "a.db")) as served_a, \
            MemoryServer(open_memory("structured", tmp_path / "b.db")) as served_b, LoopbackOpenAI() as server:
        victim = json.loads((MINI / "questions" / "Demo" / "temporal.jsonl").read_text().splitlines()[0])
        server.faults.always("500", role="agent", contains=victim["question"])
        invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1", "--memory", "http",
               "--memory-url", served_a.url, "--agent-model", "gpt-5", "--base-url", server.base_url,
               "--max-attempts", "1", "--out", "r.json", expect=3)
        run_id = json.loads(Path("r.json").read_text())["run_id"]
        server.faults.clear()
        refused = invoke("resume", run_id, "--memory-url", served_b.url, expect=2)
        assert "recalled from http:sqlite" in refused.output and "--allow-memory-change" in refused.output
        assert len(refused.output.strip().splitlines()) == 1
        assert not [e for e in events_of(tmp_path, run_id) if e.type == "RunResumed"]
        invoke("resume", run_id, "--memory-url", served_b.url, "--allow-memory-change")
    report = json.loads(invoke("show", run_id, "--json").output)
    condition = {c["name"]: c for c in report["conditions"]}["recorded_provenance"]
    assert not condition["met"] and "http:structured" in condition["reason"]
    assert report["segments"][1]["memory"].startswith("http:structured")


def test_a_dead_endpoint_stops_the_run_before_anything_is_spent(key, tmp_path):
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5", "--base-url", dead,
                    expect=2)
    assert "cannot be reached" in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "ledger.memory").exists()  # nothing ingested
    assert not (tmp_path / "ledger.db").exists()  # and no ledger made


def test_a_refused_key_stops_the_run_before_anything_is_spent(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-key-0000")
    with Remote() as endpoint:
        endpoint.script = lambda method, path, body: (401, b'{"error": {"message": "bad key"}}')
        result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5",
                        "--base-url", endpoint.url + "/v1", expect=2)
    assert "refused the key in $OPENAI_API_KEY" in result.output and "sk-wrong" not in result.output
    assert endpoint.count("/chat/completions") == 0
    assert endpoint.count("/models") == 1 and not (tmp_path / "ledger.db").exists()


def test_a_live_endpoint_is_probed_once_before_the_ledger_is_made(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000")
    with Remote() as endpoint:
        endpoint.script = lambda method, path, body: (
            (200, b'{"object": "list", "data": []}') if path.endswith("/models")
            else (500, b'{"error": {"message": "down for the test"}}'))
        invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1", "--agent-model", "gpt-5",
               "--base-url", endpoint.url + "/v1", "--max-attempts", "1", expect=3)
    assert endpoint.count("/models") == 1 and endpoint.count("/chat/completions") >= 1
    assert (tmp_path / "ledger.db").exists()


def test_out_is_checked_before_the_run(tmp_path):
    (tmp_path / "afile").write_text("x")
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "afile/report.json", expect=2)
    assert "is a file, not a folder" in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "ledger.db").exists()


def _provenance_reason(run_id: str) -> str:
    report = json.loads(invoke("show", run_id, "--json").output)
    condition = next(c for c in report["conditions"] if c["name"] == "recorded_provenance")
    assert condition["met"], condition
    return condition["reason"]


def test_an_offline_run_says_it_asked_no_endpoint():
    invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "2", "--out", "r.json")
    reason = _provenance_reason(json.loads(Path("r.json").read_text())["run_id"])
    assert reason == ("no counted answer or verdict asked an endpoint (answers from offline models; verdicts "
                      "from offline models); one memory system")


def test_verdicts_of_a_scoring_rule_are_named_as_such_beside_the_answers_endpoint(key, shared_data):
    with LoopbackOpenAI() as endpoint:
        invoke("run", "locomo", str(shared_data / "locomo" / "locomo-dev.json"), "--conversations", "conv-26",
               "--question-limit", "2", "--agent-model", "gpt-4o-mini", "--base-url", endpoint.base_url,
               "--out", "r.json")
        url = endpoint.base_url
    reason = _provenance_reason(json.loads(Path("r.json").read_text())["run_id"])
    assert f"(answers from {url}; verdicts from a scoring rule that asks no model)" in reason
    assert reason.startswith("every endpoint the counted answers and verdicts came from is recorded")
