"""`resume` of a completed run retries every open run-level failure (a purge that failed), as exit
code 3 promises, and says what it did; a run with nothing open is left alone.

The purge fails for real: the run's memory is a real memory server behind a scripted remote
(tests/scripted_remote.py) that refuses the scope's DELETE until the test lets it through.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.adapters.memory.http_server import MemoryServer
from benchledger.adapters.memory.registry import open_memory
from benchledger.ledger.store import Ledger
from conftest import MINI
from scripted_remote import Remote
from ledger_cli import invoke

REFUSED = (400, b'{"error": {"type": "refused", "message": "purge refused by the test"}}')


@pytest.fixture
def remote(tmp_path: Path):
    with MemoryServer(open_memory("sqlite", tmp_path / "served.db")) as served, Remote(upstream=served.url) as fake:
        yield fake


def _events(tmp_path: Path, run_id: str):
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        return [e.event for e in ledger.reader.events(run_id)]


def test_resume_retries_a_failed_purge_of_a_completed_run(remote: Remote, tmp_path: Path) -> None:
    remote.script = lambda method, path, body: REFUSED if method == "DELETE" else None
    first = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--memory", "http", "--memory-url", remote.url,
                   "--out", "first.json")
    assert first.exit_code == 3, first.output  # finished, with a failure resume must retry
    report = json.loads(Path("first.json").read_text())
    run_id = report["run_id"]
    zero = {c["name"]: c for c in report["conditions"]}["zero_operational_failures"]
    assert not zero["met"] and "1 run-level failure(s)" in zero["reason"]
    assert [(e.stage, e.scope_key) for e in _events(tmp_path, run_id) if e.type == "Failed"] == [("purge", "default")]
    assert [m for m, _, _ in remote.seen].count("DELETE") == 1
    assert not [e for e in _events(tmp_path, run_id) if e.type == "ScopePurged"]

    remote.script = lambda method, path, body: None
    resumed = invoke("resume", run_id)
    assert resumed.exit_code == 0, resumed.output
    assert "nothing to resume" not in resumed.output
    assert "retried the failed purge" in resumed.output
    events = _events(tmp_path, run_id)
    purged = [e for e in events if e.type == "ScopePurged"]
    assert [(p.scope_key, p.documents_removed) for p in purged] == [("default", 228)]
    assert [e.type for e in events].count("RunResumed") == 1
    after = json.loads(invoke("show", run_id, "--json").output)
    zero = {c["name"]: c for c in after["conditions"]}["zero_operational_failures"]
    assert zero["met"] and "1 earlier failure(s) resolved" in zero["reason"]
    memory = open_memory("sqlite", tmp_path / "served.db")
    try:
        assert memory.state(report["corpus_state"]["scopes"]["default"]["scope"]).documents == 0
    finally:
        memory.close()

    again = invoke("resume", run_id)  # now nothing is open: a second resume appends nothing
    assert again.exit_code == 0 and "nothing to resume" in again.output
    assert len(_events(tmp_path, run_id)) == len(events)


def test_a_purge_that_fails_again_on_resume_stays_open_and_exits_3(remote: Remote, tmp_path: Path) -> None:
    remote.script = lambda method, path, body: REFUSED if method == "DELETE" else None
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--memory", "http", "--memory-url",
                  remote.url, "--out", "first.json").exit_code == 3
    run_id = json.loads(Path("first.json").read_text())["run_id"]
    resumed = invoke("resume", run_id)
    assert resumed.exit_code == 3, resumed.output
    assert "the purge failed; retry it with `benchledger resume" in resumed.output
    failed = [(e.stage, e.attempt) for e in _events(tmp_path, run_id) if e.type == "Failed"]
    assert failed == [("purge", 1), ("purge", 2)]
