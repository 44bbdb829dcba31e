"""Which scorer a report leads with unless asked: the run's first scorer that meets its benchmark's
protocol, else its first scorer (`projections.headline`); never simply the newest. `show`, `runs` and
the SQL view `default_scorers` (what `benchledger view` and analysis queries join on) pick the same
one once the rejudge that added a scorer has saved the run's views; without that (an interrupted
rejudge) the SQL view falls back to the rule that needs no benchmark conditions, as the plain fold does.

Real ledger files: an offline run of the bundled mini release, and a hand-made GroupMemBench stream
whose s1 judge is not the protocol's; later scorers are appended as a rejudge appends them.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from benchledger.ledger.events import Judged, QuestionAnswered, ScorerStarted
from benchledger.ledger.store import Ledger
from benchledger.orchestration.rejudge import save_views
from benchledger.projections.ledger_sql import ZLIB_TEXT, view_statements, zlib_text
from benchledger.projections.state import fold_run
from conftest import MINI
from events_factory import PROVIDER, config, stream
from ledger_cli import invoke


def _scorer(ledger: Ledger, run_id: str, scorer_id: str, *, official: bool, judge: int | None = None,
            judge_model: str = "rule", verdict: str = "incorrect", saved: bool = True) -> None:
    """Start `scorer_id` and judge the first `judge` answers (all when None), then save the run's
    views as a finished rejudge does (`saved=False`: as an interrupted one leaves them)."""
    answered = [q for q, s in fold_run(run_id, ledger.reader.events(run_id)).questions.items() if s.answered]
    verdicts = [Judged(question_id=q, scorer_id=scorer_id, verdict=verdict, model=judge_model)
                for q in answered[:judge]]
    model_free = judge_model == "rule"
    asked = {} if model_free else {"endpoint": PROVIDER, "prompt_hash": config().prompt_hashes["judge_system"]}
    ledger.writer.append(run_id, [ScorerStarted(scorer_id=scorer_id, judge_model=judge_model,
                                                protocol="official" if model_free else "reference",
                                                method=("official-rule" if official else "companion-rule")
                                                if model_free else "", official=official,
                                                model_free=model_free, **asked), *verdicts])
    if saved:
        save_views(ledger, run_id)


def _picks(path: Path, run_id: str) -> tuple[str, str, str]:
    """The default scorer as `show`, `runs` and the SQL view pick it."""
    shown = json.loads(invoke("--ledger", str(path), "show", run_id, "--json").stdout)["scorer_id"]
    row = next(r for r in json.loads(invoke("--ledger", str(path), "runs", "--json").output) if r["run_id"] == run_id)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.create_function(ZLIB_TEXT, 1, zlib_text, deterministic=True)
    for statement in view_statements():
        conn.execute(statement)
    [(sql,)] = conn.execute("SELECT scorer_id FROM default_scorers WHERE run_id = ?", (run_id,)).fetchall()
    conn.close()
    return shown, row["scorer_id"], sql


def test_later_scorers_never_displace_the_runs_own_and_everything_agrees(tmp_path):
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json").exit_code == 0
    run_id = json.loads(Path("r.json").read_text())["run_id"]
    path = tmp_path / "ledger.db"
    assert _picks(path, run_id) == ("s1", "s1", "s1")  # the run's own, the only one
    with Ledger.open(path) as ledger:
        _scorer(ledger, run_id, "s2", official=True)
    # an official-method rule meets no condition the offline s1 fails (both fail the reference protocol)
    assert _picks(path, run_id) == ("s1", "s1", "s1")
    with Ledger.open(path) as ledger:
        _scorer(ledger, run_id, "s3", official=False, judge=1)
    assert _picks(path, run_id) == ("s1", "s1", "s1")  # nor does a partial one
    with Ledger.open(path) as ledger:
        events = ledger.reader.events(run_id)
        assert fold_run(run_id, events).default_scorer == "s2"  # the rule without conditions: complete official
        with_saved_view = [name for name, _, position, _ in ledger.reader.stored_views(run_id)
                           if position == events[-1].position]
    assert with_saved_view == ["scorecard"]  # what the SQL view reads


def _lenient_first(path: Path) -> str:
    """A GroupMemBench Finance run (gpt-5 agent at OpenAI's API) whose own judge was gpt-4o."""
    events = stream({"a": ("temporal", "correct"), "b": ("temporal", "incorrect")},
                    cfg=config(judge_model="gpt-4o"))
    with Ledger.open(path) as ledger:
        raw = ledger.writer.put_blob("Final: a")  # every digest an event names is stored
        ledger.writer.append("LENIENT", [e.model_copy(update={"raw_hash": raw}) if isinstance(e, QuestionAnswered)
                                         else e for e in events])
    return "LENIENT"


def test_a_rejudge_by_the_protocols_judge_takes_the_headline_from_a_lenient_one(tmp_path):
    path = tmp_path / "hand.db"
    run_id = _lenient_first(path)
    assert _picks(path, run_id) == ("s1", "s1", "s1")
    with Ledger.open(path) as ledger:
        _scorer(ledger, run_id, "s2", official=False, judge_model="gpt-5", verdict="correct", saved=False)
        state = fold_run(run_id, ledger.reader.events(run_id))
    assert all(isinstance(q.answered, QuestionAnswered) for q in state.questions.values())
    shown, listed, sql = _picks(path, run_id)
    assert (shown, listed) == ("s2", "s2")  # gpt-5 is the reference protocol's judge, gpt-4o is not
    assert sql == state.default_scorer == "s1"  # no view saved since: the rule without conditions
    with Ledger.open(path) as ledger:
        save_views(ledger, run_id)
    assert _picks(path, run_id) == ("s2", "s2", "s2")
    report = json.loads(invoke("--ledger", str(path), "show", run_id, "--json").stdout)
    lines = {line["scorer_id"]: line for line in report["scorer_lines"]}
    assert lines["s2"]["headline"] and lines["s2"]["meets_protocol"] and lines["s2"]["score"] == 1.0
    assert not lines["s1"]["meets_protocol"] and lines["s1"]["not_met"] == ["reference_protocol"]
