"""Tables fit the terminal: `runs` leaves out its least useful columns until each line fits the
width (`--wide` shows them all), and an unfinished run shows its strict accuracy, labelled, never
the accuracy over the few questions it judged.

Real offline runs of the bundled mini release on a real ledger file, through the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchledger.ledger.store import Ledger
from benchledger.tables import fit_columns
from conftest import MINI
import ledger_cli


def invoke(*args: str, columns: int | None = None):
    """The CLI on a terminal `columns` wide (COLUMNS=0: as wide as it likes)."""
    return ledger_cli.invoke(*args, env={"COLUMNS": str(columns) if columns else "0"})


def test_fit_columns_drops_named_columns_in_order_until_the_table_fits():
    rows = [("a" * 10, "b" * 30, "c" * 30)]
    full = fit_columns(rows, ("id", "wide", "wider"), width=None, drop_order=("wider", "wide"))
    assert full.splitlines()[0].split() == ["id", "wide", "wider"]
    one = fit_columns(rows, ("id", "wide", "wider"), width=45, drop_order=("wider", "wide"))
    assert one.splitlines()[0].split() == ["id", "wide"] and max(map(len, one.splitlines())) <= 45
    bare = fit_columns(rows, ("id", "wide", "wider"), width=12, drop_order=("wider", "wide"))
    assert bare.splitlines()[0].split() == ["id"]
    # a column not named is never dropped, even when the table cannot fit
    kept = fit_columns(rows, ("id", "wide", "wider"), width=5, drop_order=("wider",))
    assert kept.splitlines()[0].split() == ["id", "wide"]


def test_runs_fits_100_columns_and_wide_shows_every_column():
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo").exit_code == 0
    full = invoke("runs").output.splitlines()
    assert max(map(len, full)) > 100  # the table as a file or pipe gets it: every column
    assert full[0].split() == ["id", "started", "benchmark", "subset", "memory", "k", "models", "protocol",
                               "status", "score", "failed"]
    narrow = invoke("runs", columns=100).output.splitlines()
    assert max(map(len, narrow)) <= 100
    assert narrow[0].split()[0] == "id" and {"status", "score"} <= set(narrow[0].split())
    assert "protocol" not in narrow[0].split()
    assert invoke("runs", "--wide", columns=100).output.splitlines() == full


def test_an_unfinished_run_shows_its_strict_accuracy_labelled():
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json").exit_code == 0
    run_id = json.loads(Path("r.json").read_text())["run_id"]
    with Ledger.open("ledger.db" if Path("ledger.db").exists() else "benchledger.db") as ledger:
        events = [stored.event for stored in ledger.reader.events(run_id)]
    # the same run cut short: everything up to its eighth verdict, as a crash would leave it
    judged = [i for i, event in enumerate(events) if event.type == "Judged"]
    partial = events[:judged[7] + 1]
    with Ledger.open("partial.db") as ledger:
        ledger.writer.append(run_id, partial)
    line = invoke("--ledger", "partial.db", "runs").output.splitlines()[2]
    assert "unfinished" in line
    correct = sum(1 for event in partial if event.type == "Judged" and event.verdict == "correct")
    assert f"{100 * correct / 40:.1f}% strict" in line
    rows = json.loads(invoke("--ledger", "partial.db", "runs", "--json").output)
    assert rows[0]["strict_accuracy"] == correct / 40


def test_resumed_progress_goes_on_from_what_the_ledger_already_holds():
    from benchledger.orchestration.resume import resume_run

    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json").exit_code == 0
    run_id = json.loads(Path("r.json").read_text())["run_id"]
    ledger_name = "ledger.db" if Path("ledger.db").exists() else "benchledger.db"
    import sqlite3

    with Ledger.open(ledger_name) as ledger:
        events = [stored.event for stored in ledger.reader.events(run_id)]
        digests = [row[0] for row in sqlite3.connect(ledger_name).execute("SELECT digest FROM blobs")]
        bodies = [ledger.reader.get_blob(digest) for digest in digests]
    judged = [i for i, event in enumerate(events) if event.type == "Judged"]
    seen: list[tuple[str, int, int]] = []
    with Ledger.open("partial.db") as ledger:
        ledger.writer.append(run_id, events[:judged[7] + 1], blobs=bodies)
        resume_run(ledger, run_id, progress=lambda stage, done, total, **_: seen.append((stage, done, total)))
    questions = [step for step in seen if step[0] == "questions"]
    assert questions[0] == ("questions", 8, 40)  # not 1/40: eight were on the ledger already
    assert questions[-1] == ("questions", 40, 40)
    assert [done for _, done, _ in questions] == sorted(done for _, done, _ in questions)


def test_wrap_prose_wraps_sentences_under_their_indent_and_never_a_table():
    from benchledger.tables import wrap_prose

    condition = "    [FAIL] reference_protocol: " + "word " * 40
    table_row = "  kind        planned    judged" + " " * 80 + "x"
    digest = "  ledger head " + "a" * 120
    text = "\n".join([condition.rstrip(), table_row, digest])
    wrapped = wrap_prose(text, 60).splitlines()
    assert wrapped[0].startswith("    [FAIL] reference_protocol: word") and len(wrapped[0]) <= 60
    assert all(line.startswith(" " * 11 + "word") and len(line) <= 60 for line in wrapped[1:-3])
    assert wrapped[-3] == table_row  # a table row stays whole (tables are fitted when rendered)
    assert wrapped[-2:] == ["  ledger head", "    " + "a" * 120]  # a hash on a line of its own, never broken
    assert wrap_prose(text, None) == text


def test_show_fits_its_prose_to_the_terminal():
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo").exit_code == 0
    narrow = invoke("show", "latest", columns=100).stdout.splitlines()
    conditions = [line for line in narrow if line.lstrip().startswith(("[ok  ]", "[FAIL]"))]
    assert conditions and all(len(line) <= 100 for line in conditions)
    whole = invoke("show", "latest").stdout.splitlines()
    assert max(len(line) for line in whole if line.lstrip().startswith("[FAIL]")) > 100  # a pipe gets it whole
