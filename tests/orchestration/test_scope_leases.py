"""Two runs sharing one memory scope: the first to finish must not purge it under the other."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from benchledger.cli.main import cli
from conftest import MINI
from benchledger.orchestration.leases import ScopeLeases
from benchledger.ledger.store import Ledger


def test_a_scope_is_purged_only_when_its_last_live_holder_leaves(tmp_path):
    leases = ScopeLeases(tmp_path / "m.sqlite")
    leases.acquire("s", "run-a")
    leases.acquire("s", "run-b")
    assert leases.release("s", "run-a") == ["run-b"]
    assert leases.release("s", "run-b") == []
    leases.close()


def test_a_crashed_holder_does_not_keep_the_scope(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    leases = ScopeLeases(tmp_path / "m.sqlite")
    leases.acquire("s", "run-a")
    leases._conn.execute("UPDATE scope_leases SET pid = ? WHERE run_id = 'run-a'", (int(dead.stdout),))
    leases.acquire("s", "run-b")
    assert leases.release("s", "run-b") == []
    leases.close()


def _run(store: Path, out: str) -> dict:
    result = CliRunner().invoke(cli, ["run", "groupmem", str(MINI), "--domain", "Demo", "--memory-store", str(store),
                                      "--out", out], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(Path(out).read_text())


def _purged(tmp_path: Path, run_id: str):
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        return [e.event for e in ledger.reader.events(run_id, types=["ScopePurged"])]


def test_a_run_leaves_a_scope_another_live_run_holds(tmp_path):
    store = tmp_path / "shared.sqlite"
    alone = _run(store, "alone.json")
    purged = _purged(tmp_path, alone["run_id"])[0]
    assert purged.kept_for_runs == () and purged.documents_removed == alone["corpus_state"]["documents_expected"]

    other = ScopeLeases(store)  # another run, alive in this process, holds the same scope
    other.acquire(purged.scope, "other-run")
    shared = _run(store, "shared.json")
    kept = _purged(tmp_path, shared["run_id"])[0]
    assert kept.kept_for_runs == ("other-run",) and kept.documents_removed == 0
    assert shared["failed"] == 0 and shared["correct"] == alone["correct"]
    assert other.release(purged.scope, "other-run") == []  # the last one out may now purge
    other.close()
