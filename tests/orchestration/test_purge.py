"""`benchledger purge RUN` removes what `--keep` left, records it, and is idempotent."""

from __future__ import annotations

import json
from pathlib import Path


from benchledger.adapters.memory.registry import open_memory
from conftest import MINI
from benchledger.ledger.store import Ledger
from ledger_cli import invoke_expecting as invoke


def test_purge_removes_a_kept_scope_and_records_it(tmp_path):
    invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--keep", "--out", "r.json")
    report = json.loads(Path("r.json").read_text())
    scope = report["corpus_state"]["scopes"]["default"]["scope"]
    store = tmp_path / "ledger.memory" / "sqlite.sqlite"
    memory = open_memory("sqlite", store)
    assert memory.state(scope).documents == 228
    memory.close()

    assert "228 documents" in invoke("purge", "latest").output
    memory = open_memory("sqlite", store)
    assert memory.state(scope).documents == 0
    memory.close()
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        purged = [e.event for e in ledger.reader.events(report["run_id"], types=["ScopePurged"])]
    assert [p.documents_removed for p in purged] == [228]
    assert "already purged" in invoke("purge", "latest").output
    assert invoke("verify").exit_code == 0


def test_a_resume_that_prepares_again_purges_again_and_records_it(tmp_path, monkeypatch):
    from benchledger.adapters.models.loopback import LoopbackOpenAI

    monkeypatch.setenv("OPENAI_API_KEY", "sk-purge-test-0000")
    with LoopbackOpenAI() as server:
        victim = json.loads((MINI / "questions" / "Demo" / "temporal.jsonl").read_text().splitlines()[0])
        server.faults.always("500", contains=victim["question"])
        invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "m", "--base-url",
               server.base_url, "--max-attempts", "1", "--out", "first.json", expect=3)
        server.faults.clear()
        invoke("resume", "latest")
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        run_id = ledger.reader.runs()[0].run_id
        purged = [e.event for e in ledger.reader.events(run_id, types=["ScopePurged"])]
        resumed = [e.event for e in ledger.reader.events(run_id, types=["RunResumed"])]
    assert resumed[0].reprepared
    assert [(p.preparation, p.documents_removed) for p in purged] == [(1, 228), (2, 228)]
    assert json.loads(invoke("show", "latest", "--json").stdout)["failed"] == 0
