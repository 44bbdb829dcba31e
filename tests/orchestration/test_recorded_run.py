"""One library call reads a recorded run for every reading command, through the reading side only.

A real offline run of the bundled mini release on a real ledger file; `recorded_run` is given the
ledger's reader (an `EventReader`, which cannot append), and what it folds is what `show` reports.
An unknown scorer or scoring rule is a typed error (exit 2, field named), the same line from `show`
and `replay`; a changed event is refused before anything is folded.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from benchledger.errors import BadInput, UnknownScorer, UnknownScoringRule, VerificationFailed
from benchledger.ledger.recorder import EventReader, EventWriter
from benchledger.ledger.store import Ledger
from benchledger.orchestration.recorded import recorded_run
from ledger_cli import invoke
from conftest import MINI


@pytest.fixture
def run_id() -> str:
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1", "--out", "r.json")
    assert result.exit_code == 0, result.output
    return json.loads(Path("r.json").read_text())["run_id"]


def test_the_reader_alone_reads_a_run_and_its_report_is_what_show_prints(run_id: str) -> None:
    with Ledger.open(Path("ledger.db")) as ledger:
        reader = ledger.reader
        assert isinstance(reader, EventReader) and not isinstance(reader, EventWriter)
        run = recorded_run(reader, run_id[:8])
        report = run.report()
    assert run.run_id == run_id and run.state.run_id == run_id and run.pinned is None
    assert [e.type for e in run.events][0] == "RunStarted" and run.state.events == len(run.events)
    shown = invoke("show", run_id, "--json")
    assert shown.exit_code == 0
    assert report.model_dump(mode="json") == json.loads(shown.output)


def test_until_seq_folds_the_run_as_it_stood(run_id: str) -> None:
    with Ledger.open(Path("ledger.db")) as ledger:
        whole = recorded_run(ledger.reader, run_id)
        first = whole.events[0].seq
        early = recorded_run(ledger.reader, run_id, until_seq=first + 1)
    assert [e.seq for e in early.events] == [first, first + 1] and early.state.finished is None
    assert whole.state.finished is not None


def test_an_unknown_scorer_or_rule_is_one_typed_line_from_show_and_replay(run_id: str) -> None:
    with Ledger.open(Path("ledger.db")) as ledger:
        run = recorded_run(ledger.reader, run_id)
    with pytest.raises(UnknownScorer) as err:
        run.report(scorer_id="nope")
    assert isinstance(err.value, BadInput) and err.value.exit_code == 2 and err.value.field == "scorer"
    with pytest.raises(UnknownScoringRule, match="unknown scoring rule 99"):
        run.report(scoring_rule=99)
    shown, replayed = invoke("show", run_id, "--scorer", "nope"), invoke("replay", run_id, "--scorer", "nope")
    assert shown.exit_code == replayed.exit_code == 2
    assert shown.output == replayed.output
    assert f"run {run_id} has no scorer 'nope'" in shown.output and len(shown.output.strip().splitlines()) == 1


def _change_first_event(run_id: str) -> None:
    conn = sqlite3.connect("ledger.db")
    triggers = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")]
    for name in triggers:
        conn.execute(f'DROP TRIGGER "{name}"')
    conn.execute("UPDATE events SET payload = replace(payload, 'Demo', 'Dema') WHERE run_id = ? AND position = 0",
                 (run_id,))
    conn.commit()
    conn.close()


def test_a_changed_event_is_refused_before_it_is_folded(run_id: str) -> None:
    _change_first_event(run_id)
    with Ledger.open(Path("ledger.db")) as ledger, pytest.raises(VerificationFailed):
        recorded_run(ledger.reader, run_id)


@pytest.mark.parametrize("command", [("compare", "{other}", "{run}"),
                                     ("export", "{run}", "--out", "analysis.db")])
def test_compare_and_the_analysis_export_refuse_a_changed_run(run_id: str, command: tuple[str, ...]) -> None:
    """Both read every run through `recorded_run` (the analysis export folded a changed run before)."""
    again = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1", "--out", "s.json")
    assert again.exit_code == 0, again.output
    other = json.loads(Path("s.json").read_text())["run_id"]
    args = [part.format(run=run_id, other=other) for part in command]
    healthy = invoke(*args)
    assert healthy.exit_code == 0, healthy.output
    Path("analysis.db").unlink(missing_ok=True)
    _change_first_event(run_id)
    changed = invoke(*args)
    assert changed.exit_code == 1, changed.output
    assert "does not verify" in changed.output and len(changed.output.strip().splitlines()) == 1, changed.output
    assert not Path("analysis.db").exists()
