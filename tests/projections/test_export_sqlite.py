"""`benchledger export RUN... --format sqlite`: flat analysis tables written with sqlite-utils, with
full-text search on questions and answers, every table and column documented.

Real runs on a real ledger: an offline run of the bundled mini release (rejudged once, so it has
two scorers) and a hand-made run with failures; the file is read back with the stdlib sqlite3
and with sqlite-utils' own search, and compared with what `show` says.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import sqlite_utils

from benchledger.ledger.store import Ledger
from benchledger.projections.analysis import ANALYSIS_TABLES, render_tables_markdown
from conftest import REPO, MINI
from test_diff import append_run
from ledger_cli import invoke


def test_runs_export_as_documented_flat_tables_with_full_text_search(tmp_path):
    made = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "a.json")
    assert made.exit_code == 0, made.output
    run_id = json.loads(Path("a.json").read_text())["run_id"]
    assert invoke("rejudge", run_id).exit_code == 0
    report = json.loads(invoke("show", run_id, "--json").output)
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        append_run(ledger, "FAILING", {"q1": ("temporal", "correct"), "q2": ("temporal", "failed:answer"),
                                       "q3": ("multi_hop", "failed:judge")})

    result = invoke("export", run_id.lower(), "failing", "--out", "analysis.db")
    assert result.exit_code == 0, result.output
    db = sqlite3.connect(tmp_path / "analysis.db")
    db.row_factory = sqlite3.Row

    documented = {(r["table_name"], r["column_name"]) for r in db.execute("SELECT * FROM documentation")}
    for table in ANALYSIS_TABLES:
        assert (table.name, "") in documented
        for (column,) in db.execute(f"SELECT name FROM pragma_table_info('{table.name}')"):
            assert (table.name, column) in documented, f"{table.name}.{column} is not documented"

    runs = {r["run_id"]: r for r in db.execute("SELECT * FROM runs")}
    assert set(runs) == {run_id, "FAILING"}
    mine = runs[run_id]
    # the run's headline scorer, as `show` leads with it: its own s1, not the rejudge's s2
    assert (mine["accuracy"], mine["judged"], mine["scorer_id"]) == (report["accuracy"], report["judged"], "s1")
    assert mine["ledger_head"] == report["ledger_head"] and mine["k"] == 10 and mine["mode"] == "qa"
    count = lambda sql, *args: db.execute(sql, args).fetchone()[0]  # noqa: E731
    assert count("SELECT count(*) FROM questions WHERE run_id = ?", run_id) == report["total"]
    assert count("SELECT count(*) FROM verdicts WHERE run_id = ?", run_id) == 2 * report["judged"]  # s1 and s2
    assert count("SELECT count(*) FROM questions WHERE run_id = ? AND verdict = 'correct'", run_id) == report["correct"]
    assert count("SELECT count(*) FROM answers WHERE run_id = ?", run_id) == report["answered"]
    context = db.execute("SELECT context, doc_ids FROM recalls WHERE run_id = ? AND question_id = 'temporal_1'",
                         (run_id,)).fetchone()
    assert context["context"].startswith("[1] [user=") and len(json.loads(context["doc_ids"])) == 10

    failures = [dict(r) for r in db.execute("SELECT stage, question_id, resolved FROM failures "
                                             "WHERE run_id = 'FAILING' ORDER BY seq")]
    assert failures == [{"stage": "answer", "question_id": "q2", "resolved": 0},
                        {"stage": "judge", "question_id": "q3", "resolved": 0}]
    assert runs["FAILING"]["failed"] == 2

    found = [row["question_id"] for row in sqlite_utils.Database(tmp_path / "analysis.db")["questions"]
             .search("freeze", columns=["question_id"])]
    assert "temporal_1" in found
    answered = db.execute("SELECT a.question_id FROM answers a JOIN answers_fts f ON f.rowid = a.rowid "
                          "WHERE answers_fts MATCH 'Postgres'").fetchall()
    assert answered and all(db.execute("SELECT answer FROM answers WHERE question_id = ? AND run_id = ?",
                                       (q[0], run_id)).fetchone()[0] for q in answered)


def test_export_refuses_bad_requests_and_writes_nothing(tmp_path):
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        append_run(ledger, "RUNA", {"q1": ("temporal", "correct")})
        append_run(ledger, "RUNB", {"q1": ("temporal", "incorrect")})
    several = invoke("export", "RUNA", "RUNB", "--out", "x.json")
    assert several.exit_code == 2 and "--format sqlite for several" in several.output
    unknown = invoke("export", "RUNA", "--out", "x.parquet")
    assert unknown.exit_code == 2 and "--format json|csv|html|sqlite" in unknown.output
    missing = invoke("export", "RUNA", "NOPE", "--out", "x.db")
    assert missing.exit_code == 2 and "no run matches 'NOPE'" in missing.output
    assert not list(tmp_path.glob("x.*")) and not list(tmp_path.glob(".x.*"))
    assert invoke("export", "RUNA", "RUNB", "--out", "both.sqlite").exit_code == 0
    assert {r[0] for r in sqlite3.connect(tmp_path / "both.sqlite").execute("SELECT run_id FROM runs")} == {"RUNA", "RUNB"}


def test_the_analysis_tables_document_is_generated_and_current():
    assert (REPO / "docs" / "analysis-tables.md").read_text(encoding="utf-8") == render_tables_markdown(), \
        "docs/analysis-tables.md is stale: python -m benchledger.projections.analysis > docs/analysis-tables.md"
