"""Finding things as a new user does: `runs` as a table with a header, `questions` with filters, run
ids in any case, global options after the command name, and the run's headline scorer by default
(never a partial one).

Real offline runs of the bundled mini release on a real ledger file, through the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path


from benchledger.cli.main import hoist_global_options
from benchledger.ledger.events import Judged, ScorerStarted
from benchledger.ledger.store import Ledger
from conftest import MINI
from ledger_cli import invoke

HEADER = ["id", "started", "benchmark", "subset", "memory", "k", "models", "protocol", "status", "score", "failed"]


def run_mini(*extra: str) -> dict:
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(Path("r.json").read_text())


def test_runs_is_a_table_with_config_status_and_score():
    first, second = run_mini(), run_mini("--k", "5", "--question-limit", "2")
    lines = invoke("runs").output.splitlines()
    assert lines[0].split() == HEADER
    rows = {line.split()[0]: line for line in lines[2:]}
    assert list(rows) == [second["run_id"], first["run_id"]]  # newest first
    newer = rows[second["run_id"]].split()
    assert newer[3:7] == ["GroupMemBench", "Demo", "sqlite", "5"]  # id, date, time, then the columns
    assert f"{100 * second['accuracy']:.1f}%" in rows[second["run_id"]]
    assert f"{100 * first['accuracy']:.1f}%" in rows[first["run_id"]] and " 10 " in rows[first["run_id"]]
    data = {row["run_id"]: row for row in json.loads(invoke("runs", "--json").output)}
    assert data[first["run_id"]]["k"] == 10 and data[second["run_id"]]["k"] == 5
    assert data[first["run_id"]]["agent_model"] == first["agent_model"] and data[first["run_id"]]["failed"] == 0


def test_questions_lists_ids_filtered_by_kind_and_verdict():
    report = run_mini()
    every = json.loads(invoke("questions", "latest", "--json").output)
    assert len(every) == report["total"]
    wrong = json.loads(invoke("questions", "latest", "--verdict", "incorrect", "--json").output)
    assert len(wrong) == report["incorrect"] and {q["verdict"] for q in wrong} == {"incorrect"}
    temporal = invoke("questions", "latest", "--kind", "temporal").output.splitlines()
    assert temporal[0].split()[:4] == ["question", "kind", "status", "verdict"]
    ids = [line.split()[0] for line in temporal[2:-1]]
    assert len(ids) == report["by_kind"]["temporal"]["planned"] and all(i.startswith("temporal_") for i in ids)
    assert temporal[-1].startswith(f"{len(ids)} question(s); one in full: `benchledger question ")
    bad = invoke("questions", "latest", "--kind", "temporl")
    assert bad.exit_code == 2 and "its kinds: abstention, knowledge_update" in bad.output
    missing = invoke("question", "latest", "nope_1")
    assert missing.exit_code == 2 and f"benchledger questions {report['run_id']}" in missing.output


def test_run_ids_match_in_any_case_and_global_options_work_after_the_command(tmp_path):
    report = run_mini()
    run_id = report["run_id"]
    assert json.loads(invoke("show", run_id.lower(), "--json").output)["run_id"] == run_id
    assert json.loads(invoke("show", run_id[:10].lower(), "--json").output)["run_id"] == run_id
    other = tmp_path / "elsewhere" / "x.db"
    other.parent.mkdir()
    (tmp_path / "ledger.db").rename(other)
    shown = invoke("show", "latest", "--ledger", str(other), "--json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["run_id"] == run_id
    assert invoke("runs", f"--ledger={other}", "-v").output.splitlines()[0].split() == HEADER
    assert hoist_global_options(["events", "R", "--type", "Judged", "--", "--ledger", "x"]) == \
        ["events", "R", "--type", "Judged", "--", "--ledger", "x"]
    assert hoist_global_options(["--log-format", "json", "show", "R", "-vv", "--ledger", "l.db"]) == \
        ["--log-format", "json", "-vv", "--ledger", "l.db", "show", "R"]


def test_show_leads_with_the_headline_scorer_and_names_a_partial_one(tmp_path):
    report = run_mini()
    run_id = report["run_id"]
    with Ledger.open(tmp_path / "ledger.db") as ledger:  # an interrupted rejudge: s2 judged one answer
        ledger.writer.append(run_id, [ScorerStarted(scorer_id="s2", judge_model="offline-lexical-judge/1",
                                                    protocol="reference", offline=True),
                                      Judged(question_id="temporal_1", scorer_id="s2", verdict="incorrect",
                                             model="offline-lexical-judge/1")])
    shown = invoke("show", run_id, "--json")
    data = json.loads(shown.stdout)
    assert data["scorer_id"] == "s1" and data["accuracy"] == report["accuracy"]
    assert f"scorer s2 is partial ({report['total'] - 1} answer(s) not judged)" in shown.stderr
    assert f"benchledger rejudge {run_id} --continue s2" in shown.stderr
    assert json.loads(invoke("show", run_id, "--scorer", "s2", "--json").stdout)["judged"] == 1
    [row] = json.loads(invoke("runs", "--json").output)
    assert row["scorer_id"] == "s1" and row["score"] == report["accuracy"]
