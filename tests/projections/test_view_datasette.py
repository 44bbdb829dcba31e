"""`benchledger view`: the ledger in Datasette, read-only, tried as a person would.

Two real runs of the bundled mini release (one offline on the sqlite memory, one through the
loopback OpenAI-compatible server on the bm25-reference memory with one question failing for
good) go on a real ledger file; `benchledger view --port 0` is started as a process; headless
Chromium loads the database page, a documented view and every canned query, takes a screenshot of
each (copied to /tmp/benchledger-view-*.png for people to look at) and dumps the DOM; the test
asserts on what the pages show, checked against what the CLI says about the same runs. The ledger
file is byte for byte the same afterwards. Where Datasette (the `view` extra) or Chromium is
missing, the browser test skips saying how to get them.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.ledger.events import EVENT_TYPES
from benchledger.ledger.store import Ledger
from benchledger.projections.ledger_sql import (
    CANNED_QUERIES, DERIVED_VIEWS, PAYLOAD_VIEWS, ZLIB_TEXT, documentation, view_statements, zlib_text,
)
from chromium import chromium, colours, dump_dom, png_pixels, screenshot
from conftest import MINI
from ledger_cli import invoke

pytestmark = pytest.mark.slow


def _text(dom: str) -> str:
    """The visible text of a DOM dump, whitespace collapsed."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", dom, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


@pytest.fixture(scope="module")
def ledger_with_runs(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("view")
    ledger = folder / "runs.db"
    env_before = dict(os.environ)
    os.environ["OPENAI_API_KEY"] = "sk-test-view"
    try:
        first = invoke("--ledger", str(ledger), "run", "groupmem", str(MINI), "--domain", "Demo",
                       "--out", str(folder / "a.json"))
        assert first.exit_code == 0, first.output
        with LoopbackOpenAI() as server:
            server.faults.always("500", contains="What is the PagerDuty schedule")
            second = invoke("--ledger", str(ledger), "run", "groupmem", str(MINI), "--domain", "Demo",
                            "--memory", "bm25-reference", "--agent-model", "gpt-5", "--base-url", server.base_url,
                            "--max-attempts", "1", "--out", str(folder / "b.json"))
        assert second.exit_code == 3, second.output  # one operational failure: finished, to be resumed
    finally:
        os.environ.clear()
        os.environ.update(env_before)
    return {"path": ledger, "a": json.loads((folder / "a.json").read_text()),
            "b": json.loads((folder / "b.json").read_text())}


def test_every_table_view_and_column_is_documented(tmp_path):
    """Titles and descriptions for every table of a new ledger and every view; a description per column."""
    with Ledger.open(tmp_path / "fresh.db"):
        pass
    conn = sqlite3.connect(tmp_path / "fresh.db")
    conn.create_function(ZLIB_TEXT, 1, zlib_text)
    for statement in view_statements():
        conn.execute(statement)
    docs = documentation()
    names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' UNION ALL "
                                        "SELECT name FROM sqlite_temp_master WHERE type = 'view'")]
    assert len(names) >= len(PAYLOAD_VIEWS) + len(DERIVED_VIEWS) + 6
    for name in names:
        assert name in docs, f"table or view {name} has no title or description in projections/ledger_sql.py"
        title, description, columns = docs[name]
        assert title and description
        for (column,) in conn.execute(f"SELECT name FROM pragma_table_info('{name}')"):
            assert columns.get(column), f"{name}.{column} has no description"
    judged = next(view for view in PAYLOAD_VIEWS if view.name == "verdicts")
    assert judged.column_docs()["reason"] == EVENT_TYPES["Judged"].model_fields["reason"].description


def test_the_canned_queries_answer_what_the_cli_answers(ledger_with_runs):
    a, b = ledger_with_runs["a"], ledger_with_runs["b"]
    conn = sqlite3.connect(f"file:{ledger_with_runs['path']}?mode=ro", uri=True)
    conn.create_function(ZLIB_TEXT, 1, zlib_text)
    for statement in view_statements():
        conn.execute(statement)

    def query(name: str, **params: str) -> list[dict]:
        cursor = conn.execute(CANNED_QUERIES[name].sql, {p: params.get(p, "") for p in CANNED_QUERIES[name].params})
        return [dict(zip([c[0] for c in cursor.description], row)) for row in cursor]

    runs = {row["run_id"]: row for row in query("runs")}
    assert runs[a["run_id"]]["score"] == f"{100 * a['accuracy']:.1f}%" and runs[b["run_id"]]["status"] == "completed"
    failures = query("failures_by_error", run_id=b["run_id"][:8].lower())
    assert [(f["error_class"], f["failures"]) for f in failures] == list(b["failures_by_error"].items())
    by_kind = {row["kind"]: row for row in query("accuracy_by_kind") if row["run_id"] == a["run_id"]}
    assert {k: v["accuracy_pct"] for k, v in by_kind.items()} == \
        {k: round(100 * t["accuracy"], 1) for k, t in a["by_kind"].items()}
    diff = json.loads(invoke("--ledger", str(ledger_with_runs["path"]), "diff", a["run_id"], b["run_id"],
                             "--json").output)
    flips = query("flipped_questions", run_a=a["run_id"], run_b=b["run_id"].lower())
    assert sorted(f["question_id"] for f in flips if f["flip"] == "correct -> wrong") == \
        sorted(diff["overall"]["correct_to_wrong"])
    assert sorted(f["question_id"] for f in flips if f["flip"] == "wrong -> correct") == \
        sorted(diff["overall"]["wrong_to_correct"])
    trail = query("question_trail", run_id=a["run_id"], question_id="temporal_1")
    assert [row["stage"] for row in trail] == ["planned", "recalled", "answered", "judged s1"]
    assert "[1] [user=" in trail[1]["text"]  # the packed context, read from its zlib blob


@pytest.fixture(scope="module")
def server(ledger_with_runs):
    pytest.importorskip("datasette", reason="benchledger view needs the view extra: pip install -e '.[view]'")
    process = subprocess.Popen([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(ledger_with_runs["path"]),
                                "view", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.search(r"read-only at (http://\S+)", line)
    assert match, (line, process.stderr.read() if process.poll() is not None else "")
    yield match.group(1)
    process.terminate()
    process.wait(timeout=30)


def test_the_pages_show_the_runs_documented_tables_and_queries(ledger_with_runs, server, tmp_path):
    browser = chromium()
    a, b = ledger_with_runs["a"], ledger_with_runs["b"]
    before = hashlib.sha256(ledger_with_runs["path"].read_bytes()).hexdigest()
    profile = tmp_path / "profile"
    pages = {
        "database": "",
        "verdicts": "/verdicts",
        "runs": "/runs",
        "failures": f"/failures_by_error?run_id={b['run_id'][:10].lower()}",
        "trail": f"/question_trail?run_id={a['run_id']}&question_id=temporal_1",
        "accuracy": "/accuracy_by_kind",
        "flips": f"/flipped_questions?run_a={a['run_id']}&run_b={b['run_id']}",
    }
    shown = {}
    for name, path in pages.items():
        url = server + path
        shot = screenshot(browser, profile, url, tmp_path / f"{name}.png", 1400, 1000)
        shutil.copyfile(tmp_path / f"{name}.png", f"/tmp/benchledger-view-{name}.png")
        width, height, rows = png_pixels(shot)
        assert (width, height) == (1400, 1000) and len(colours(rows)) > 30, f"{name} looks blank"
        shown[name] = _text(dump_dom(browser, profile, url))

    database = shown["database"]
    for title in (q.title for q in CANNED_QUERIES.values()):
        assert title in database
    for name in ("events", "blobs", "verdicts", "answers", "recalls", "failures", "planned_questions", "run_overview"):
        assert re.search(rf"\b{name}\b", database), name

    verdicts = shown["verdicts"]
    assert "Every scorer's verdict on every answer (Judged)." in verdicts
    assert "The judge's reason, capped at 2,000 characters." in verdicts  # the field's docstring
    assert f"{a['judged'] + b['judged']} rows" in verdicts

    runs = shown["runs"]
    assert a["run_id"] in runs and b["run_id"] in runs and "Runs with score and status" in runs
    assert f"{100 * a['accuracy']:.1f}%" in runs and "bm25-reference" in runs

    [(error_class, count)] = b["failures_by_error"].items()
    assert f"{error_class} answer {count} 1" in shown["failures"]  # error, stage, failures, runs

    trail = shown["trail"]
    assert "On what date (YYYY-MM-DD) was the design freeze?" in trail and "gold: 2025-05-16" in trail
    assert "recalled" in trail and "answered" in trail and "judged s1" in trail

    accuracy = shown["accuracy"]
    for kind, tally in a["by_kind"].items():
        assert f"{kind} {tally['planned']} {tally['judged']} {tally['correct']}" in accuracy

    diff = json.loads(invoke("--ledger", str(ledger_with_runs["path"]), "diff", a["run_id"], b["run_id"],
                             "--json").output)
    flipped = diff["overall"]["correct_to_wrong"] + diff["overall"]["wrong_to_correct"]
    assert flipped, "the two runs should disagree somewhere"
    for qid in flipped:
        assert qid in shown["flips"]
    assert f"returning {len(flipped)} row" in shown["flips"]

    assert hashlib.sha256(ledger_with_runs["path"].read_bytes()).hexdigest() == before


def test_view_refuses_what_is_not_a_ledger(tmp_path):
    pytest.importorskip("datasette", reason="benchledger view needs the view extra: pip install -e '.[view]'")
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    result = invoke("--ledger", str(empty), "view", "--port", "0")
    assert result.exit_code == 2 and "no ledger at" in result.output
    assert empty.read_bytes() == b""
    assert invoke("--ledger", str(tmp_path / "missing.db"), "view").exit_code == 2
    assert not (tmp_path / "missing.db").exists()
