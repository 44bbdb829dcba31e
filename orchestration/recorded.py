"""A recorded run, read for a report: the one sequence every reading command shares.

`resolve the reference -> read its events, verified -> fold them -> report under its benchmark`
was spelled out by each command (show, replay, failures, questions, question, diff, combine,
agreement, export); it is `recorded_run` now, one library call that takes the reading side of the
store (`EventReader`), never the writer: a command that only reads cannot append.

Events are handed out only once the run's chain segment and blobs verify (`VerificationFailed`,
exit 1, if not). `until_seq` folds the run as it stood at that point (replay); `expect_head` as it
stood when that head was printed, naming what was appended since (`projections.pinned`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchledger.ledger.recorder import EventReader
from benchledger.ledger.mapper import StoredEvent
from benchledger.orchestration.reports import report_of, with_headline
from benchledger.projections.pinned import Pinned, pin
from benchledger.projections.report import Report
from benchledger.projections.state import RunState, fold_run
from benchledger.projections.tallies import CURRENT_SCORING_RULE

__all__ = ["RecordedRun", "checked_events", "recorded_run"]


@dataclass(frozen=True)
class RecordedRun:
    """One run as read from the ledger: its id, its verified events and their fold."""

    run_id: str
    events: Sequence[StoredEvent]
    """The run's events in position order (up to `until_seq`, or to the pinned head, when asked)."""
    state: RunState
    pinned: Pinned | None = None
    """The run as it stood at an expected head, with what came after it (None unless asked)."""

    def report(self, *, scorer_id: str | None = None, scoring_rule: int = CURRENT_SCORING_RULE) -> Report:
        """Its report under its benchmark's conditions (`UnknownScorer` / `UnknownScoringRule`: exit 2)."""
        return report_of(self.state, scorer_id=scorer_id, scoring_rule=scoring_rule)


def checked_events(reader: EventReader, run_id: str, *, until_seq: int | None = None,
                   expect_head: str | None = None) -> list[StoredEvent]:
    """The run's events, handed out only once its chain segment and blobs verify (exit 1 if not);
    with `expect_head`, only when the run still holds that event too."""
    events = reader.verified_events(run_id, expect_head=expect_head)
    return events if until_seq is None else [event for event in events if event.seq <= until_seq]


def recorded_run(reader: EventReader, run_ref: str, *, until_seq: int | None = None,
                 expect_head: str | None = None) -> RecordedRun:
    """The run `run_ref` names (a full id, a unique prefix, "latest"), verified and folded."""
    run_id = reader.resolve_run(run_ref)
    events = checked_events(reader, run_id, until_seq=until_seq, expect_head=expect_head)
    if expect_head is None:
        return RecordedRun(run_id, events, with_headline(fold_run(run_id, events)))
    pinned = pin(run_id, events, expect_head)
    return RecordedRun(run_id, events[:len(events) - len(pinned.later)], with_headline(pinned.state), pinned)
