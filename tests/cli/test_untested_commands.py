"""Commands that had no test: `ledger init`, the `question` text view, `benchmarks --json`, and
`purge` of a scope another live run holds. Each is checked against an independent reading (the
events on the ledger, the conditions a report evaluates, the memory store itself)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from benchledger.adapters.benchmarks.registry import benchmark_named
from benchledger.adapters.memory.registry import open_memory
from benchledger.ledger.store import Ledger
from benchledger.orchestration.leases import ScopeLeases
from benchledger.projections import build_report
from conftest import MINI
from events_factory import config, stored, stream
from ledger_cli import events_of, invoke


# -- ledger init ----------------------------------------------------------------------------------

def test_ledger_init_creates_a_sqlite_ledger_then_finds_it_up_to_date(tmp_path):
    target = tmp_path / "new" / "team.db"
    target.parent.mkdir()
    first = invoke("ledger", "init", str(target))
    assert first.exit_code == 0, first.output
    assert first.output.startswith(f"ledger at {target}: applied ")
    with Ledger.open(target) as ledger:
        assert ledger.reader.runs() == []
    again = invoke("ledger", "init", str(target))
    assert again.exit_code == 0 and again.output.strip() == f"ledger at {target}: already up to date"
    assert invoke("--ledger", str(target), "verify").exit_code == 0


def test_ledger_init_on_postgresql_grants_each_role_what_it_names(postgres_server):
    server, schema, reader = postgres_server, f"t_{uuid.uuid4().hex[:12]}", f"bl_reader_{uuid.uuid4().hex[:6]}"
    server.sql(f"CREATE ROLE {reader} LOGIN", f"CREATE SCHEMA {schema} AUTHORIZATION bl_owner")
    result = invoke("ledger", "init", server.url("bl_owner", schema), "--writer", "bl_writer", "--reader", reader)
    assert result.exit_code == 0, result.output
    assert "granted bl_writer: read, append events" in result.output and f"granted {reader}: read" in result.output

    def may(role: str, privilege: str) -> bool:
        [(allowed,)] = server.sql(f"SELECT has_table_privilege('{role}', '{schema}.events', '{privilege}')")
        return allowed

    assert may("bl_writer", "INSERT") and may("bl_writer", "SELECT")
    assert may(reader, "SELECT") and not may(reader, "INSERT")
    assert not may("bl_writer", "UPDATE") and not may("bl_writer", "DELETE")
    again = invoke("ledger", "init", server.url("bl_owner", schema))
    assert again.exit_code == 0 and "already up to date" in again.output
    assert "no --writer role granted" in again.output


# -- the question text view -----------------------------------------------------------------------

def test_the_question_view_shows_what_the_events_recorded(tmp_path):
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json").exit_code == 0
    run_id = json.loads(Path("r.json").read_text())["run_id"]
    events = events_of(run_id)
    planned = next(q for q in next(e for e in events if e.type == "QuestionsPlanned").questions
                   if q.question_id == "temporal_1")
    recalled = next(e for e in events if e.type == "ContextRecalled" and e.question_id == "temporal_1")
    answered = next(e for e in events if e.type == "QuestionAnswered" and e.question_id == "temporal_1")
    judged = next(e for e in events if e.type == "Judged" and e.question_id == "temporal_1")

    result = invoke("question", run_id, "temporal_1")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"temporal_1 [temporal] asked by {planned.asking_user}: judged"
    assert f"  Q: {planned.text}" in lines and f"  gold: {planned.gold}" in lines
    ranks = [line.split() for line in lines if line.strip()[:2].strip().isdigit() and "Msg_" in line]
    assert [row[1] for row in ranks] == [item.doc_id for item in recalled.items]
    assert f"recalled k={len(recalled.items)}" in result.output
    assert any(line.startswith("  answer (") and line.endswith(f"): {answered.answer}") for line in lines)
    verdict = next(line for line in lines if line.startswith("  verdict [s1"))
    assert f"{judged.verdict.upper()}  {judged.reason}" in verdict
    missing = invoke("question", run_id, "no_such_question")
    assert missing.exit_code == 2 and "no_such_question" in missing.output


# -- benchmarks --json ----------------------------------------------------------------------------

def test_benchmarks_json_names_each_benchmarks_kinds_protocols_and_conditions():
    result = invoke("benchmarks", "--json")
    assert result.exit_code == 0, result.output
    listed = {entry["name"]: entry for entry in json.loads(result.output)}
    assert {"GroupMemBench", "LoCoMo", "LongMemEval", "Memora"} <= set(listed)
    for name, entry in listed.items():
        if entry["error"] is not None:
            continue
        benchmark = benchmark_named(name)
        assert entry["command"] == benchmark.command and entry["kinds"] == list(benchmark.kinds)
        assert entry["default_protocol"] in entry["protocols"]
        # the names a report gives the conditions, read from a report, not from the listing's code
        events = stored(stream({"q": ("k", "correct")}, cfg=config(benchmark=name)))
        report = build_report("r", events, conditions=benchmark.conditions)
        every_run = {c.name for c in build_report("r", events, conditions=()).conditions}  # the report's own
        evaluated = [c.name for c in report.conditions if c.name not in every_run]
        assert entry["conditions"] == evaluated and evaluated, name


# -- purge under a lease --------------------------------------------------------------------------

def test_purge_leaves_a_scope_another_live_run_holds_to_that_run(tmp_path):
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--keep", "--out", "r.json").exit_code == 0
    report = json.loads(Path("r.json").read_text())
    scope = report["corpus_state"]["scopes"]["default"]["scope"]
    store = tmp_path / "ledger.memory" / "sqlite.sqlite"
    leases = ScopeLeases(store)
    leases.acquire(scope, "other-run")  # a live run (this process) shares the scope
    try:
        held = invoke("purge", report["run_id"])
        assert held.exit_code == 0 and held.output.strip() == f"kept {scope} for run(s) other-run", held.output
        memory = open_memory("sqlite", store)
        try:
            assert memory.state(scope).documents == 228
        finally:
            memory.close()
        [kept] = [e for e in events_of(report["run_id"]) if e.type == "ScopePurged"]
        assert (kept.kept_for_runs, kept.documents_removed) == (("other-run",), 0)
        # the scope is now the other run's to purge as its last holder; this run's part is done
        assert "every scope was already purged" in invoke("purge", report["run_id"]).output
        assert len([e for e in events_of(report["run_id"]) if e.type == "ScopePurged"]) == 1
    finally:
        assert leases.release(scope, "other-run") == []  # the last holder, which may now purge it
        leases.close()
