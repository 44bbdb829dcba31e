"""The ledger's own defences, through the CLI: it refuses files that are not ledgers (leaving them
byte for byte as they were), `verify` catches edits made with the guard triggers dropped (exit 1
naming the seq), including a deleted tail; and the documented limit: a chain rewritten
consistently passes verify and is only caught against an external anchor, the ledger_head a
report printed. The evaluation memory store refuses a foreign SQLite file in the same way.

A committed event survives a SIGKILL of its writer even when another process opened and closed
the ledger meanwhile (the case where a process that holds no lock lets the other delete the WAL).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MINI
from ledger_cli import invoke
from benchledger.ledger.migrations import GUARD_TRIGGERS
from chain_rows import all_rows, relinked, rewrite
from benchledger.ledger.store import Ledger


def one_line_error(result, code: int) -> str:
    assert result.exit_code == code, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def files_beside(path: Path) -> set[str]:
    return {p.name for p in path.parent.iterdir()}


@pytest.fixture
def foreign_sqlite(tmp_path) -> Path:
    path = tmp_path / "accounts.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT)")
    conn.executemany("INSERT INTO accounts (owner) VALUES (?)", [("ada",), ("grace",)])
    conn.commit()
    conn.close()
    return path


def test_a_text_file_is_refused_and_left_unchanged(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"shopping list\nmilk\n")
    before, around = path.read_bytes(), files_beside(path)
    for command in (["runs"], ["verify"], ["run", "groupmem", str(MINI), "--domain", "Demo"]):
        line = one_line_error(invoke("--ledger", str(path), *command), 2)
        assert str(path) in line and "not a SQLite file" in line
    assert path.read_bytes() == before and files_beside(path) == around


def test_a_foreign_sqlite_database_is_refused_and_left_unchanged(foreign_sqlite):
    before, around = foreign_sqlite.read_bytes(), files_beside(foreign_sqlite)
    for command in (["runs"], ["verify"], ["run", "groupmem", str(MINI), "--domain", "Demo"]):
        line = one_line_error(invoke("--ledger", str(foreign_sqlite), *command), 2)
        assert str(foreign_sqlite) in line and "not a benchledger ledger" in line and "accounts" in line
    assert foreign_sqlite.read_bytes() == before and files_beside(foreign_sqlite) == around


def test_a_run_refuses_a_foreign_file_as_its_memory_store(tmp_path, foreign_sqlite):
    before = foreign_sqlite.read_bytes()
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--memory-store", str(foreign_sqlite))
    line = one_line_error(result, 2)
    assert str(foreign_sqlite) in line and "not a benchledger evaluation store" in line
    assert foreign_sqlite.read_bytes() == before
    ledger = tmp_path / "ledger.db"
    if ledger.exists():
        with Ledger.open(ledger) as store:
            assert store.reader.runs() == [], "a refused memory store must not leave a run behind"


# -- tampering ------------------------------------------------------------------------------


@pytest.fixture
def finished_run(tmp_path) -> tuple[Path, dict]:
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json")
    assert result.exit_code == 0, result.output
    return tmp_path / "ledger.db", json.loads(Path("r.json").read_text())


def tamper(ledger: Path, *statements: tuple[str, tuple], restore_guards: bool = True) -> None:
    """Drop the guard triggers, run the statements, and (by default) put the guards back exactly."""
    conn = sqlite3.connect(ledger, isolation_level=None)
    for name in GUARD_TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    for sql, params in statements:
        conn.execute(sql, params)
    if restore_guards:
        for sql in GUARD_TRIGGERS.values():
            conn.execute(sql)
    conn.close()


def seq_of(ledger: Path, event_type: str, nth: int = 0) -> int:
    conn = sqlite3.connect(ledger)
    seqs = [s for (s,) in conn.execute("SELECT seq FROM events WHERE type = ? ORDER BY seq", (event_type,))]
    conn.close()
    return seqs[nth]


def test_guards_refuse_edits_while_in_place(finished_run):
    ledger, _ = finished_run
    conn = sqlite3.connect(ledger)
    for sql in ("UPDATE events SET payload = '{}' WHERE seq = 5", "DELETE FROM events WHERE seq = 5",
                "INSERT OR REPLACE INTO events SELECT * FROM events WHERE seq = 5"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql)
    conn.close()
    assert invoke("verify").exit_code == 0


def test_verify_names_the_seq_of_a_payload_edited_with_the_guards_dropped(finished_run):
    ledger, _ = finished_run
    seq = seq_of(ledger, "Judged", 3)
    tamper(ledger, ("UPDATE events SET payload = replace(payload, '\"incorrect\"', '\"correct\"') "
                    "WHERE seq = ?", (seq,)))
    line = one_line_error(invoke("verify"), 1)
    assert f"verify failed at seq {seq}:" in line and "changed" in line


def test_verify_names_a_deleted_row_and_a_deleted_tail(finished_run, tmp_path):
    ledger, _ = finished_run
    copy = tmp_path / "copy.db"
    with sqlite3.connect(ledger) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    middle = seq_of(ledger, "ContextRecalled", 5)
    tamper(ledger, ("DELETE FROM events WHERE seq = ?", (middle,)))
    assert f"verify failed at seq {middle}:" in one_line_error(invoke("verify"), 1)

    (last,) = sqlite3.connect(copy).execute("SELECT MAX(seq) FROM events").fetchone()
    tamper(copy, ("DELETE FROM events WHERE seq > ?", (last - 2,)))
    line = one_line_error(invoke("--ledger", str(copy), "verify"), 1)
    assert f"verify failed at seq {last - 1}:" in line and "newest rows were deleted" in line


def test_verify_reports_guards_that_were_dropped_and_left_out(finished_run):
    ledger, _ = finished_run
    tamper(ledger, restore_guards=False)
    line = one_line_error(invoke("verify"), 1)
    assert "guard trigger" in line and "missing" in line


def test_a_consistently_rewritten_chain_is_only_caught_by_an_external_anchor(finished_run):
    """The documented limit: whoever can drop the triggers can re-hash every later row. verify
    then passes; only the ledger_head a report printed earlier (kept elsewhere) shows it."""
    ledger, report = finished_run
    target = seq_of(ledger, "Judged", 0)
    # a reason the scorecard view does not fold: nothing else changes
    rewrite(ledger, relinked([
        (*row[:7], row[7].replace('"reason":"', '"reason":"(edited) ', 1) if row[0] == target else row[7],
         *row[8:]) for row in all_rows(ledger)]))

    assert invoke("verify").exit_code == 0, "a consistent rewrite is not detectable from inside"
    now = json.loads(invoke("show", report["run_id"], "--json").stdout)
    assert now["ledger_head"] != report["ledger_head"], "the anchor printed earlier exposes it"


# -- durability across processes ------------------------------------------------------------

_WRITER = """
import os, signal, sys
from benchledger.ledger.events import Failed
from benchledger.ledger.store import Ledger

ledger = Ledger.open(sys.argv[1])
def commit(n):
    ledger.writer.append("probe", [Failed(stage="run", error_class="Probe", message=str(n), attempt=n)])
commit(1)
print("ready", flush=True)
sys.stdin.readline()
commit(2)
commit(3)
print("committed 3", flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_committed_events_survive_sigkill_after_another_process_read_the_ledger(tmp_path):
    ledger = tmp_path / "ledger.db"
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(ledger)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=tmp_path,
                              env=dict(os.environ))
    try:
        assert writer.stdout.readline().strip() == "ready"
        reader = subprocess.run([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(ledger), "runs"],
                                capture_output=True, text=True, env=dict(os.environ))
        assert reader.returncode == 0 and "probe" in reader.stdout
        writer.stdin.write("\n")
        writer.stdin.flush()
        assert writer.stdout.readline().strip() == "committed 3"
        assert writer.wait(timeout=30) == -signal.SIGKILL
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    with Ledger.open(ledger) as store:
        assert [e.event.message for e in store.reader.events("probe")] == ["1", "2", "3"]
