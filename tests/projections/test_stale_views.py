"""Issue 25 item 3: a saved scorecard written by another code version is stale, never tampering.

A real offline run of the bundled mini release on a real ledger file. Its scorecard view is saved
under the composite version (the core report's and GroupMemBench's own); a view saved under another
composite (an older benchledger, or an older wording of GroupMemBench's conditions) is re-folded and
reported as stale with exit 0, while a view that differs under this code's own version stays
tampering, exit 1.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.registry import benchmark_named
from benchledger.projections.report import REPORT_VERSION
from benchledger.projections.views import scorecard_version
from conftest import MINI
from ledger_cli import invoke


@pytest.fixture
def run(tmp_path) -> tuple[sqlite3.Connection, str]:
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json").exit_code == 0
    return sqlite3.connect(tmp_path / "ledger.db", isolation_level=None), json.loads(Path("r.json").read_text())["run_id"]


def _reword(conn: sqlite3.Connection, version: int) -> None:
    """The saved scorecard as other code would have written it: its version, and one reason reworded."""
    (value,) = conn.execute("SELECT value FROM views WHERE name = 'scorecard'").fetchone()
    card = json.loads(value)
    card["conditions"][0]["reason"] += " (two words)"
    conn.execute("UPDATE views SET version = ?, value = ? WHERE name = 'scorecard'", (version, json.dumps(card)))


def test_the_view_is_saved_under_the_core_and_the_benchmarks_own_version(run):
    conn, _ = run
    groupmem = benchmark_named("GroupMemBench").report_version
    assert conn.execute("SELECT version FROM views WHERE name = 'scorecard'").fetchone() == (
        REPORT_VERSION * 1000 + groupmem,)
    assert scorecard_version(groupmem + 1) != scorecard_version(groupmem)


@pytest.mark.parametrize("older", ["core", "benchmark"])
def test_a_view_from_another_code_version_is_stale_not_tampered(run, older):
    conn, run_id = run
    groupmem = benchmark_named("GroupMemBench").report_version
    version = (REPORT_VERSION - 1) * 1000 + groupmem if older == "core" else scorecard_version(groupmem) - 1
    _reword(conn, version)
    for scope in ((), (run_id,)):
        result = invoke("verify", *scope)
        assert result.exit_code == 0, result.output
        assert f"note: view scorecard v{version} of run {run_id} was written by another code version" in result.stdout
        assert f"this code folds v{scorecard_version(groupmem)}" in result.stdout
    report = json.loads(invoke("show", run_id, "--json").stdout)
    assert not report["conditions"][0]["reason"].endswith("(two words)")  # reports fold the events afresh


def test_a_view_that_differs_under_this_codes_version_is_still_tampering(run):
    conn, run_id = run
    _reword(conn, scorecard_version(benchmark_named("GroupMemBench").report_version))
    result = invoke("verify", run_id)
    assert result.exit_code == 1 and "differs from a fresh fold of its events" in result.output
