"""A ledger written before the restructuring still opens, verifies and reports; resume refuses
only across an adapter change (its GroupMemBench run was prepared by groupmem/1).

The fixture (tests/fixtures/ledger-v1, see its README) was written by benchledger @ 9b464c7. Its rows
are never rewritten: old RunStarted payloads are upcast on read.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import REPO
from ledger_cli import invoke

FIXTURE = REPO / "tests" / "fixtures" / "ledger-v1"
COMPLETED = ("01M8QFHX2T07J7S07DPSPP75MT", "01M8QFHY7DFZE3K5QWNSFT79TB")
RETRIEVAL = "01M8QFJ50MG1GBS83BJK2FJY29"
INTERRUPTED = "01M8QFJA88VBV50WN8PG2P2829"
INTERRUPTED_LONGMEMEVAL = "01M8QJ82C8X3CX2XJWHJMK5196"
_NUMBERS = ("benchmark", "fingerprint", "status", "publishable", "accuracy", "strict_accuracy",
            "total", "answered", "judged", "correct", "incorrect", "unclear", "failed", "pending")


@pytest.fixture
def old_ledger(tmp_path: Path) -> Path:
    ledger = tmp_path / "v1.db"
    shutil.copyfile(FIXTURE / "ledger.db", ledger)
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    shutil.copytree(REPO / "tests" / "fixtures" / "longmemeval", tmp_path / "tests" / "fixtures" / "longmemeval")
    return ledger


def _expected(run_id: str) -> dict:
    return json.loads((FIXTURE / f"show-{run_id}.json").read_text())


def test_the_old_ledger_verifies_unchanged(old_ledger: Path) -> None:
    before = old_ledger.read_bytes()
    result = invoke("verify", ledger=old_ledger)
    assert result.exit_code == 0, result.output
    assert "132 events" in result.output
    rows = invoke("runs", ledger=old_ledger)
    for run_id in (*COMPLETED, RETRIEVAL, INTERRUPTED, INTERRUPTED_LONGMEMEVAL):
        assert run_id in rows.output
    assert old_ledger.read_bytes() == before  # the whole file, not its header


@pytest.mark.parametrize("run_id", COMPLETED + (INTERRUPTED,))
def test_old_runs_report_the_numbers_they_reported_then(old_ledger: Path, run_id: str) -> None:
    result = invoke("show", run_id, "--json", ledger=old_ledger)
    assert result.exit_code == 0, result.output
    report, expected = json.loads(result.output), _expected(run_id)
    for field in _NUMBERS:
        assert report[field] == expected[field], field
    assert report["subset"] == expected["domain"]  # one name for the concept since schema 2
    # every condition the old report had still reads as it did; recorded_provenance is a condition every
    # run meets since (these were started with a recorded endpoint and never resumed); conditions added
    # since (the official protocol's, LoCoMo's official prompts and scorer) are not met by these runs
    then = [(c["name"], c["met"]) for c in expected["conditions"]]
    now = [(c["name"], c["met"]) for c in report["conditions"]]
    assert dict(now).pop("recorded_provenance") is True
    # provider_endpoint too: these offline runs asked no model endpoint, so none can be a wrong one
    assert dict(now).pop("provider_endpoint") is True
    assert [pair for pair in now if pair[0] in dict(then)] == then
    assert all(not met for name, met in now
               if name not in dict(then) and name not in ("recorded_provenance", "provider_endpoint"))
    assert {kind: (t["planned"], t["judged"], t["correct"]) for kind, t in report["by_kind"].items()} == \
        {kind: (t["planned"], t["judged"], t["correct"]) for kind, t in expected["by_kind"].items()}


def test_the_old_retrieval_run_reports_its_recall(old_ledger: Path) -> None:
    result = invoke("show", RETRIEVAL, "--json", ledger=old_ledger)
    assert result.exit_code == 0, result.output
    report, expected = json.loads(result.output), _expected(RETRIEVAL)
    for field in ("recall", "recall_all", "ndcg", "n"):
        assert report[field] == pytest.approx(expected[field], abs=1e-12)


def test_the_interrupted_old_groupmem_run_refuses_to_resume_across_the_adapter_change(old_ledger: Path) -> None:
    """groupmem/2 loads the release in the official order without is_noise, so the documents the
    old run ingested are not the ones a resume would recall from: resume refuses, in one line."""
    before = _expected(INTERRUPTED)
    assert before["pending"] > 0
    result = invoke("resume", INTERRUPTED, ledger=old_ledger)
    assert result.exit_code == 2
    assert "groupmem/1" in result.output and "groupmem/2" in result.output and "new run" in result.output
    report = json.loads(invoke("show", INTERRUPTED, "--json", ledger=old_ledger).output)
    assert {key: report[key] for key in _NUMBERS} == {key: before[key] for key in _NUMBERS}
    assert invoke("verify", ledger=old_ledger).exit_code == 0


def test_schema_1_settings_are_upcast_into_the_typed_models(old_ledger: Path) -> None:
    from benchledger.adapters.benchmarks.registry import benchmark_named
    from benchledger.ledger.store import Ledger

    with Ledger.open(old_ledger, create=False) as ledger:
        configs = {run_id: ledger.reader.events(run_id, types=["RunStarted"])[0] for run_id in (*COMPLETED, RETRIEVAL)}
    groupmem, locomo, retrieval = (configs[r] for r in (*COMPLETED, RETRIEVAL))
    assert groupmem.schema_version == 1  # the row stays as written; only its reading is lifted
    settings = groupmem.event.config.settings
    assert (settings.memory, str(settings.memory_store), settings.timeout, settings.max_attempts,
            settings.backoff_base, settings.batch_size, settings.api_key_env) == \
        ("sqlite", "v1.memory/sqlite.sqlite", 60.0, 6, 0.5, 1000, "OPENAI_API_KEY")
    assert (settings.mode, settings.protocol, settings.k, settings.agent_model) == ("qa", "reference", 10, None)
    selection = benchmark_named("groupmem").selection_of(groupmem.event.config.selection)
    assert selection.domain == "Demo" and selection.question_limit == 2
    loco = benchmark_named("locomo").selection_of(locomo.event.config.selection)
    assert loco.conversation_ids == ("conv-26",) and loco.question_limit == 6
    assert locomo.event.config.settings.protocol == "typed" and locomo.event.config.evidence_level == "document"
    assert retrieval.event.config.settings.mode == "retrieval"
    assert retrieval.event.config.settings.memory_store is None  # schema-1 retrieval runs did not record it


def test_the_interrupted_old_longmemeval_run_resumes_to_completion(old_ledger: Path) -> None:
    before = _expected(INTERRUPTED_LONGMEMEVAL)
    assert (before["judged"], before["pending"]) == (1, 2)
    result = invoke("resume", INTERRUPTED_LONGMEMEVAL, ledger=old_ledger)
    assert result.exit_code == 0, result.output
    report = json.loads(invoke("show", INTERRUPTED_LONGMEMEVAL, "--json", ledger=old_ledger).output)
    assert report["pending"] == 0 and report["failed"] == 0 and report["run_status"] == "completed"
    assert report["judged"] == report["total"] == before["total"]
    assert report["fingerprint"] == before["fingerprint"]
    from benchledger.ledger.store import Ledger

    with Ledger.open(old_ledger, create=False) as ledger:
        events = ledger.reader.events(INTERRUPTED_LONGMEMEVAL)
    assert events[0].schema_version == 1  # the old RunStarted row, read through the upcaster
    resumed = [e.event for e in events if e.type == "RunResumed"]
    assert len(resumed) == 1 and resumed[0].reprepared  # no memory store was kept with the fixture
    assert invoke("verify", ledger=old_ledger).exit_code == 0


def _keeps(stored: object, written: object) -> bool:
    """`written` holds every value `stored` holds (it may add fields introduced since, with defaults)."""
    if isinstance(stored, dict):
        return isinstance(written, dict) and all(k in written and _keeps(v, written[k]) for k, v in stored.items())
    if isinstance(stored, list):
        return isinstance(written, list) and len(stored) == len(written) and all(map(_keeps, stored, written))
    return stored == written


def test_rows_read_and_written_again_keep_every_stored_value(old_ledger: Path) -> None:
    """The event models may change how they are built (recalled items became a validated
    dataclass), never the values they write: every row read with no upcaster (of its current
    version, or of one whose later versions changed the key rule only), read and written again,
    keeps every value it stored (fields added since appear with their defaults)."""
    import sqlite3

    from benchledger.ledger.mapper import READ_AS_IS, event_row, row_to_stored

    conn = sqlite3.connect(old_ledger)
    rows = conn.execute("SELECT seq, run_id, position, type, schema_version, recorded_at, idempotency_key, "
                        "CAST(payload AS BLOB), prev_hash, hash FROM events ORDER BY seq").fetchall()
    conn.close()
    current = [row for row in rows if (row[3], row[4]) in READ_AS_IS]
    recalls = [row for row in current if row[3] == "ContextRecalled"]
    assert len(recalls) > 10 and {"QuestionAnswered", "Judged"} <= {row[3] for row in current}
    for row in current:
        written = event_row(row_to_stored(row).event)[3]
        assert _keeps(json.loads(row[7]), json.loads(written)), f"seq {row[0]} ({row[3]}) lost a stored value"
