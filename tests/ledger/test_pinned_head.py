"""A published head pins a run: `show` and `verify RUN` with `--expect-head` fold the run exactly as it
stood there, name what was appended after it and which segments the score counts; and issue 19's
finding 1 (a silent rescore of a finished run under its own scorer) re-run through the public API.

A real offline run of the bundled mini release on a real ledger file; the later scorer is appended
as a rejudge appends one (its own ScorerStarted opening its segment).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.errors import BadInput, RunSealed
from benchledger.ledger.events import Failed, Judged, ScorerStarted
from benchledger.ledger.runs import WriterSpan
from benchledger.ledger.store import Ledger
from benchledger.projections.pinned import segment_line
from benchledger.projections.state import fold_run
from conftest import MINI
from events_factory import stored, stream
from ledger_cli import invoke


@pytest.fixture
def finished(tmp_path) -> tuple[Path, str, str, float]:
    """(ledger path, run id, its published head, its published score)."""
    assert invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json").exit_code == 0
    report = json.loads(Path("r.json").read_text())
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        head = ledger.reader.head(report["run_id"])
    assert report["score"] < 1.0  # the offline run gets some wrong: a rescore would show
    return path, report["run_id"], head, report["score"]


def _all_correct(ledger: Ledger, run_id: str, scorer_id: str) -> list[Judged]:
    answered = [q for q, s in fold_run(run_id, ledger.reader.events(run_id)).questions.items() if s.answered]
    return [Judged(question_id=q, scorer_id=scorer_id, verdict="correct", model="rule") for q in answered]


def test_show_and_verify_pinned_at_a_head_report_the_run_as_published(finished):
    path, run_id, head, score = finished
    with Ledger.open(path) as ledger:
        ledger.writer.append(run_id, [ScorerStarted(scorer_id="s2", judge_model="rule", protocol="typed", model_free=True,
                                                    official=True), *_all_correct(ledger, run_id, "s2")])
    now = json.loads(invoke("show", run_id, "--json").stdout)
    # the headline stays the run's own (the rule meets no condition it fails); the new one is listed
    assert (now["scorer_id"], now["score"]) == ("s1", score)
    assert [(line["scorer_id"], line["score"]) for line in now["scorer_lines"] if not line["headline"]] == [("s2", 1.0)]
    pinned = invoke("show", run_id, "--json", "--expect-head", head)
    assert pinned.exit_code == 0
    report = json.loads(pinned.stdout)
    assert (report["scorer_id"], report["score"]) == ("s1", score)
    assert f"as of head {head}" in pinned.stderr
    assert "the score of s1 counts segments: start (offline models)" in pinned.stderr
    assert "ScorerStarted" in pinned.stderr and "segments opened: scorer s2 (no model endpoint)" in pinned.stderr
    verified = invoke("verify", run_id, "--expect-head", head)
    assert verified.exit_code == 0 and "segments opened: scorer s2" in verified.stdout
    assert invoke("show", run_id, "--expect-head", "0" * 64).exit_code == 1


def test_pinned_at_the_last_event_nothing_was_appended(finished):
    path, run_id, head, _ = finished
    result = invoke("verify", run_id, "--expect-head", head)
    assert result.exit_code == 0 and "nothing was appended to the run after that head" in result.stdout


@pytest.mark.parametrize("which", ["a middle verdict", "the last verdict", "the purge", "RunFinished"])
def test_a_head_at_any_position_counts_that_event_and_nothing_after_it(finished, which):
    """The pinned event itself belongs to the run as published: a report pinned at the last verdict
    counts it, and one pinned at RunFinished reads as finished (every other test pins at the end)."""
    path, run_id, _, _ = finished
    with Ledger.open(path) as ledger:
        events = list(ledger.reader.events(run_id))
    verdicts = [e for e in events if e.type == "Judged"]
    at = {"a middle verdict": verdicts[len(verdicts) // 2], "the last verdict": verdicts[-1],
          "the purge": next(e for e in events if e.type == "ScopePurged"),
          "RunFinished": next(e for e in events if e.type == "RunFinished")}[which]
    shown = invoke("show", run_id, "--json", "--expect-head", at.hash)
    assert shown.exit_code == 0, shown.output
    report = json.loads(shown.stdout)
    assert (report["events"], report["ledger_head"]) == (at.position, at.hash)
    assert report["judged"] == sum(1 for e in verdicts if e.position <= at.position)
    assert (report["run_status"] == "completed") is (which == "RunFinished")
    later = [e.type for e in events if e.position > at.position]
    verified = invoke("verify", run_id, "--expect-head", at.hash)
    assert verified.exit_code == 0, verified.output
    if later:
        assert f"appended after that head, not in this report: {len(later)} event(s)" in verified.stdout
    else:
        assert "nothing was appended to the run after that head" in verified.stdout


def test_finding_1_a_silent_rescore_of_a_finished_run_is_refused_and_a_forged_one_named(finished):
    path, run_id, head, score = finished

    class Rescored(Judged):
        def idempotency_key(self) -> None:  # type: ignore[override]
            return None

    with Ledger.open(path) as ledger:
        forged = [Rescored(**verdict.model_dump()) for verdict in _all_correct(ledger, run_id, "s1")]
        with pytest.raises(BadInput, match="Rescored is not an event type the ledger records"):
            ledger.writer.append(run_id, forged)
        first = next(iter(fold_run(run_id, ledger.reader.events(run_id)).questions))
        # after the finish, under the run's own scorer: a verdict's retry that no segment opened
        with pytest.raises(RunSealed, match="after it finished joins no segment"):
            ledger.writer.append(run_id, [Failed(stage="judge", question_id=first, scorer_id="s1", error_class="E",
                                                 message="m", attempt=9)])
        assert ledger.reader.head(run_id) == head
    assert json.loads(invoke("show", run_id, "--json").stdout)["score"] == score
    assert invoke("verify", run_id, "--expect-head", head).exit_code == 0


def test_a_segment_names_the_role_the_server_recorded_for_its_opener():
    events = stream({"q1": ("temporal", "correct")})
    opener = len(events) + 1
    events += [ScorerStarted(scorer_id="s2", judge_model="rule", protocol="typed", model_free=True),
               Judged(question_id="q1", scorer_id="s2", verdict="incorrect", model="rule")]
    state = fold_run("run", stored(events))
    start, scorer = state.segments[0], state.segments[-1]
    assert (start.position, scorer.position) == (1, opener)
    spans = [WriterSpan(writer="alice", first_position=1, last_position=opener - 1),
             WriterSpan(writer="bob", first_position=opener, last_position=opener + 1)]
    assert segment_line(scorer, spans) == "scorer s2 (no model endpoint, opened by bob)"
    assert segment_line(start, spans).endswith("opened by alice)")
    assert segment_line(scorer) == "scorer s2 (no model endpoint)"  # a file records no roles
