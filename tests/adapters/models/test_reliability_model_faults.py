"""Model faults in full runs: the openai SDK against the loopback server, through the CLI.

Transient faults (429 with Retry-After, 500, 503, a reset connection, a reply slower than
--timeout) pushed a couple of times are retried inside the call and leave no trace but the extra
requests: the run completes with failed=0 and the same verdicts as a clean run. Any fault that
stays ("always" for one question) ends as one Failed event for that question only: the run goes
on, the report is diagnostic and names it grouped by error, accuracy over judged equals the clean
run's accuracy without that question (a failure is never scored as wrong), and once the fault is
cleared `resume --base-url` completes it.
"""

from __future__ import annotations

import json
import time
from functools import partial
from pathlib import Path

import pytest

from benchledger.adapters.models.loopback import LoopbackOpenAI
from conftest import MINI
import ledger_cli
from benchledger.ledger.store import Ledger

pytestmark = pytest.mark.slow

KEY = "sk-reliability-faults-7f3a9c1e5b"


invoke = partial(ledger_cli.invoke, env={"OPENAI_API_KEY": KEY})


def run_args(base_url: str, protocol: str, out: Path, *extra: str) -> list[str]:
    return ["run", "groupmem", str(MINI), "--domain", "Demo", "--protocol", protocol,
            "--agent-model", "gpt-5", "--base-url", base_url, "--max-attempts", "3",
            "--timeout", "0.5", "--backoff-base", "0.05", "--out", str(out), *extra]


def verdicts(ledger: Path) -> dict[str, str]:
    with Ledger.open(ledger) as store:
        run_id = store.reader.runs()[0].run_id
        return {e.event.question_id: e.event.verdict for e in store.reader.events(run_id, types=["Judged"])}


def failed_events(ledger: Path) -> list:
    with Ledger.open(ledger) as store:
        run_id = store.reader.runs()[0].run_id
        return [e.event for e in store.reader.events(run_id, types=["Failed"])]


def accuracy(verdict_of: dict[str, str]) -> float:
    return sum(v == "correct" for v in verdict_of.values()) / len(verdict_of)


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> dict[str, dict[str, str]]:
    """protocol -> {question_id: verdict} of a fault-free run against the loopback server."""
    out: dict[str, dict[str, str]] = {}
    with LoopbackOpenAI() as srv:
        for protocol in ("reference", "typed"):
            ledger = tmp_path_factory.mktemp(f"clean-{protocol}") / "ledger.db"
            result = invoke(*run_args(srv.base_url, protocol, ledger.with_name("r.json")), ledger=ledger)
            assert result.exit_code == 0, result.output
            out[protocol] = verdicts(ledger)
            assert len(out[protocol]) == 40
    assert out["reference"] == out["typed"]  # the loopback judges the same either way
    return out


@pytest.fixture(scope="module")
def victim(clean) -> tuple[str, str]:
    """(question id, question text) of a question the clean run got right, so that scoring its
    failure as wrong would change accuracy in a way the test sees."""
    texts = {}
    for path in sorted((MINI / "questions" / "Demo").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            item = json.loads(line)
            texts[item["id"]] = item["question"]
    qid = next(q for q, v in clean["reference"].items() if v == "correct" and q.startswith("temporal"))
    assert sum(text == texts[qid] for text in texts.values()) == 1
    return qid, texts[qid]


@pytest.fixture
def server():
    with LoopbackOpenAI() as srv:
        yield srv


TRANSIENT = [
    pytest.param("429", {"retry_after": 1}, id="429-retry-after"),
    pytest.param("500", {}, id="500"),
    pytest.param("503", {}, id="503"),
    pytest.param("reset", {}, id="connection-reset"),
    pytest.param("slow", {"delay": 1.5}, id="slower-than-timeout"),
]


@pytest.mark.parametrize("kind, options", TRANSIENT)
def test_transient_faults_are_retried_and_the_run_completes(tmp_path, server, clean, kind, options):
    server.faults.push(kind, times=2, role="agent", **options)
    started = time.monotonic()
    result = invoke(*run_args(server.base_url, "reference", tmp_path / "r.json"), ledger=tmp_path / "ledger.db")
    elapsed = time.monotonic() - started
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["failed"] == 0 and report["judged"] == report["total"] == 40
    assert report["failures_retried"] == 0 and failed_events(tmp_path / "ledger.db") == []
    assert server.faults.fired == [kind, kind] and server.faults.pending == 0
    assert server.count(role="agent") == 40 + 2  # each fault cost exactly one extra request
    assert verdicts(tmp_path / "ledger.db") == clean["reference"]
    if kind == "429":
        assert elapsed >= 1.0, "Retry-After: 1 must be waited out"


PERMANENT = [
    # protocol, fault kind, fault options, role it hits, stage recorded, error class recorded
    pytest.param("reference", "429", {"retry_after": 1}, "agent", "answer", "TransientModelError", id="429"),
    pytest.param("reference", "500", {}, "agent", "answer", "TransientModelError", id="500"),
    pytest.param("reference", "503", {}, "agent", "answer", "TransientModelError", id="503"),
    pytest.param("reference", "reset", {}, "agent", "answer", "TransientModelError", id="reset"),
    pytest.param("reference", "slow", {"delay": 1.0}, "agent", "answer", "TransientModelError", id="slow"),
    pytest.param("reference", "401", {}, "agent", "answer", "ModelError", id="401"),
    pytest.param("reference", "malformed_body", {}, "agent", "answer", "ModelParseError", id="malformed-json"),
    pytest.param("reference", "empty", {}, "agent", "answer", "EmptyResponseError", id="empty"),
    pytest.param("reference", "oversized", {}, "agent", "answer", "ReplyTooLarge", id="200mb-reply"),
    pytest.param("reference", "oversized", {}, "judge", "judge", "ReplyTooLarge", id="judge-200mb-reply"),
    pytest.param("reference", "empty", {}, "judge", "judge", "EmptyResponseError", id="judge-empty"),
    pytest.param("reference", "500", {}, "judge", "judge", "TransientModelError", id="judge-500"),
    pytest.param("typed", "bad_json", {}, "agent", "answer", "ModelParseError", id="typed-bad-json"),
    pytest.param("typed", "wrong_schema", {}, "agent", "answer", "ModelParseError", id="typed-wrong-schema"),
    pytest.param("typed", "wrong_schema", {}, "judge", "judge", "ModelParseError", id="typed-judge-wrong-schema"),
]


@pytest.mark.parametrize("protocol, kind, options, role, stage, error_class", PERMANENT)
def test_a_permanent_fault_fails_one_question_and_resume_completes_it(
        tmp_path, server, clean, victim, protocol, kind, options, role, stage, error_class):
    qid, text = victim
    ledger, out = tmp_path / "ledger.db", tmp_path / "r.json"
    server.faults.always(kind, role=role, contains=f"Question:\n{text}\n\n", **options)

    result = invoke(*run_args(server.base_url, protocol, out), ledger=ledger)
    assert result.exit_code == 3, result.output  # finished with an operational failure: resume it
    assert f"benchledger resume " in result.output and "1 of 40 planned question(s) not judged" in result.output
    report = json.loads(out.read_text())
    assert report["run_status"] == "completed" and report["status"] == "diagnostic"
    assert not {c["name"]: c["met"] for c in report["conditions"]}["zero_operational_failures"]
    assert report["failed"] == 1 and report["judged"] == 39 and report["pending"] == 0
    assert [(f["question_id"], f["stage"], f["error_class"]) for f in report["failures"]] == \
        [(qid, stage, error_class)]
    assert report["failures_by_error"] == {error_class: 1}
    others = {q: v for q, v in clean[protocol].items() if q != qid}
    assert verdicts(ledger) == others, "every other question is judged exactly as in a clean run"
    assert report["accuracy"] == pytest.approx(accuracy(others))
    assert report["accuracy"] != pytest.approx(accuracy({**others, qid: "incorrect"}))
    assert KEY not in json.dumps(report)

    grouped = invoke("failures", report["run_id"], "--group-by", "error", ledger=ledger)
    assert grouped.exit_code == 0
    header, rule, row = grouped.output.splitlines()
    assert header.split() == ["error", "count", "questions"] and row.split() == [error_class, "1", qid]

    server.faults.clear()
    resumed = invoke("resume", report["run_id"], "--base-url", server.base_url, ledger=ledger)
    assert resumed.exit_code == 0, resumed.output
    after = json.loads(invoke("show", report["run_id"], "--json", ledger=ledger).stdout)
    assert after["failed"] == 0 and after["judged"] == 40 and after["failures_retried"] == 1
    assert verdicts(ledger) == clean[protocol]
    assert after["accuracy"] == pytest.approx(accuracy(clean[protocol]))
    [failure] = failed_events(ledger)
    assert (failure.question_id, failure.attempt) == (qid, 1)
    assert invoke("verify", ledger=ledger).exit_code == 0


@pytest.mark.parametrize("role", ["agent", "judge"])
def test_a_reply_without_final_is_read_as_the_official_parser_reads_it(tmp_path, server, victim, role):
    """No `Final:` line is not a failure: the official parser takes the last non-empty line."""
    qid, text = victim
    server.faults.always("no_final", role=role, contains=f"Question:\n{text}\n\n")
    result = invoke(*run_args(server.base_url, "reference", tmp_path / "r.json"), ledger=tmp_path / "ledger.db")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["failed"] == 0 and report["judged"] == 40
    assert qid in verdicts(tmp_path / "ledger.db")
