"""Issue 25 item 3, issue 33 item 4: a saved scorecard written by other code is stale, never tampering.

A real offline run of the bundled mini release on a real ledger file. Its scorecard view is saved
under a version derived from the code (`projections.report_digest`: the core report's and
GroupMemBench's declared conditions, sections and kind), never bumped by hand. GroupMemBench's
solvability condition reworded in a copy of its own module (`tests/reworded.py`) is a new version: the
view saved before reads as stale, `verify` exits 0 and names it, and reports fold afresh. A view saved
under an older version likewise; a view that differs under this code's own version stays tampering,
exit 1; and with nothing reworded nothing is stale.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.registry import benchmark_named
from benchledger.projections.views import scorecard_version
from conftest import MINI
from ledger_cli import invoke
from reworded import SOLVABILITY_REWORD, reworded_conditions


@pytest.fixture
def run(tmp_path) -> tuple[sqlite3.Connection, str]:
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json").exit_code == 0
    return sqlite3.connect(tmp_path / "ledger.db", isolation_level=None), json.loads(Path("r.json").read_text())["run_id"]


def _groupmem_version() -> int:
    folds = benchmark_named("GroupMemBench").report_folds()
    return scorecard_version(folds.conditions, folds.sections, folds.kind)


def _saved(conn: sqlite3.Connection) -> tuple[int, dict]:
    version, value = conn.execute("SELECT version, value FROM views WHERE name = 'scorecard'").fetchone()
    return version, json.loads(value)


def _reword(conn: sqlite3.Connection, version: int) -> None:
    """The saved scorecard as other code would have written it: its version, and one reason reworded."""
    _, card = _saved(conn)
    card["conditions"][0]["reason"] += " (two words)"
    conn.execute("UPDATE views SET version = ?, value = ? WHERE name = 'scorecard'", (version, json.dumps(card)))


def _solvability(card: dict) -> str:
    return next(c["reason"] for c in card["conditions"] if c["name"] == "solvability_filtered_domain")


def test_the_view_is_saved_under_the_version_the_code_derives(run):
    conn, run_id = run
    assert _saved(conn)[0] == _groupmem_version()
    for scope in ((), (run_id,)):  # unchanged code: nothing is stale
        result = invoke("verify", *scope)
        assert result.exit_code == 0 and "stale" not in result.output, result.output


def test_a_reworded_condition_makes_the_saved_view_stale_not_tampered(run, tmp_path, monkeypatch):
    conn, run_id = run
    saved_version, saved = _saved(conn)
    groupmem = benchmark_named("GroupMemBench")
    monkeypatch.setattr(type(groupmem), "conditions", reworded_conditions("groupmem", *SOLVABILITY_REWORD, tmp_path))
    now = _groupmem_version()
    assert now != saved_version
    for scope in ((), (run_id,)):
        result = invoke("verify", *scope)
        assert result.exit_code == 0, result.output
        assert (f"note: view scorecard v{saved_version} of run {run_id} was written by another code version "
                f"(this code folds v{now}): it is stale") in result.stdout
    report = json.loads(invoke("show", run_id, "--json").stdout)
    assert _solvability(saved) == "Demo is not a solvability-filtered domain (Finance or Technology)"
    assert _solvability(report) == "Demo lies outside the solvability-filtered domains (Finance or Technology)"


def test_a_reworded_condition_digests_as_a_change_of_that_condition_alone(tmp_path):
    from benchledger.projections.report_digest import declarations

    groupmem = benchmark_named("GroupMemBench")
    before = declarations(groupmem.conditions, groupmem.sections, groupmem.kind)
    after = declarations(reworded_conditions("groupmem", *SOLVABILITY_REWORD, tmp_path), groupmem.sections,
                         groupmem.kind)
    changed = [name for name in before["conditions"] if before["conditions"][name] != after["conditions"][name]]
    assert changed == ["3:solvability_filtered_domain"]
    same = declarations(reworded_conditions("groupmem", "REFERENCE_K = 10", "REFERENCE_K = 10  # a comment",
                                            tmp_path), groupmem.sections, groupmem.kind)
    assert same == before  # a comment, a docstring or the copy's own module changes no digest
    other_k = declarations(reworded_conditions("groupmem", "REFERENCE_K = 10", "REFERENCE_K = 11", tmp_path),
                           groupmem.sections, groupmem.kind)
    assert [n for n in before["conditions"] if before["conditions"][n] != other_k["conditions"][n]] == [
        "4:reference_protocol"]  # a constant the condition names counts by value


def test_a_view_from_an_older_version_is_stale_not_tampered(run):
    conn, run_id = run
    version = _groupmem_version() - 1
    _reword(conn, version)
    for scope in ((), (run_id,)):
        result = invoke("verify", *scope)
        assert result.exit_code == 0, result.output
        assert f"note: view scorecard v{version} of run {run_id} was written by another code version" in result.stdout
        assert f"this code folds v{_groupmem_version()}" in result.stdout
    report = json.loads(invoke("show", run_id, "--json").stdout)
    assert not report["conditions"][0]["reason"].endswith("(two words)")  # reports fold the events afresh


def test_a_view_that_differs_under_this_codes_version_is_still_tampering(run):
    conn, run_id = run
    _reword(conn, _groupmem_version())
    result = invoke("verify", run_id)
    assert result.exit_code == 1 and "differs from a fresh fold of its events" in result.output
