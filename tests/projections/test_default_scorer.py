"""Which scorer a report shows unless asked: the newest complete scorer of the benchmark's official
method, else the newest complete one, else the newest. `show`, `runs` and the SQL view
`default_scorers` (what `benchledger view` and analysis queries join on) must pick the same one.

A real offline run of the bundled mini release on a real ledger file; the later scorers are
appended as a rejudge would append them (one official, one not, one left partial).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path


from benchledger.ledger.events import Judged, ScorerStarted
from benchledger.ledger.store import Ledger
from benchledger.projections.ledger_sql import ZLIB_TEXT, view_statements, zlib_text
from benchledger.projections.state import fold_run
from conftest import MINI
from ledger_cli import invoke


def _scorer(ledger: Ledger, run_id: str, scorer_id: str, *, official: bool, judge: int | None = None) -> None:
    """Start `scorer_id` and judge the first `judge` answers (all when None) incorrect."""
    answered = [q for q, s in fold_run(run_id, ledger.reader.events(run_id)).questions.items() if s.answered]
    verdicts = [Judged(question_id=q, scorer_id=scorer_id, verdict="incorrect", model="rule")
                for q in answered[:judge]]
    ledger.writer.append(run_id, [ScorerStarted(scorer_id=scorer_id, judge_model="rule", protocol="official",
                                                method="official-rule" if official else "companion-rule",
                                                official=official, model_free=True), *verdicts])


def _picks(path: Path, run_id: str) -> tuple[str, str, str]:
    """The default scorer as `show`, `runs` and the SQL view pick it."""
    shown = json.loads(invoke("show", run_id, "--json").stdout)["scorer_id"]
    [row] = json.loads(invoke("runs", "--json").output)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.create_function(ZLIB_TEXT, 1, zlib_text, deterministic=True)
    for statement in view_statements():
        conn.execute(statement)
    [(sql,)] = conn.execute("SELECT scorer_id FROM default_scorers WHERE run_id = ?", (run_id,)).fetchall()
    conn.close()
    return shown, row["scorer_id"], sql


def test_the_official_complete_scorer_is_shown_and_everything_agrees(tmp_path):
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json").exit_code == 0
    run_id = json.loads(Path("r.json").read_text())["run_id"]
    path = tmp_path / "ledger.db"
    assert _picks(path, run_id) == ("s1", "s1", "s1")  # the run's own, the only one
    with Ledger.open(path) as ledger:
        _scorer(ledger, run_id, "s2", official=True)
    assert _picks(path, run_id) == ("s2", "s2", "s2")  # official beats the older plain one
    with Ledger.open(path) as ledger:
        _scorer(ledger, run_id, "s3", official=False)
    assert _picks(path, run_id) == ("s2", "s2", "s2")  # a newer companion never displaces it
    with Ledger.open(path) as ledger:
        _scorer(ledger, run_id, "s4", official=True, judge=1)
    assert _picks(path, run_id) == ("s2", "s2", "s2")  # a partial official one does not either
    with Ledger.open(path) as ledger:
        state = fold_run(run_id, ledger.reader.events(run_id))
        missing = [q for q, s in state.questions.items() if s.answered and "s4" not in s.judged]
        ledger.writer.append(run_id, [Judged(question_id=q, scorer_id="s4", verdict="correct", model="rule")
                                      for q in missing])
    assert _picks(path, run_id) == ("s4", "s4", "s4")  # once complete, the newest official one


def test_without_an_official_scorer_the_newest_complete_one_else_the_newest(tmp_path):
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json").exit_code == 0
    run_id = json.loads(Path("r.json").read_text())["run_id"]
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        _scorer(ledger, run_id, "s2", official=False)
        _scorer(ledger, run_id, "s3", official=False, judge=0)
    assert _picks(path, run_id) == ("s2", "s2", "s2")
