"""Materialised views: the report saved beside the event that completes it, and its re-fold.

When a run finishes, the runner saves the `scorecard` view (the report without the fields that
name ledger positions) in the same transaction as RunFinished. `verify` re-folds the events up to
the saved position and requires the same value, so a view can never drift from its events.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Iterable, Sequence

from benchledger.projections.report import REPORT_VERSION, build_report

__all__ = ["SCORECARD_VIEW", "scorecard_value", "views_after", "refold_views"]

SCORECARD_VIEW = "scorecard"
_POSITIONAL = {"ledger_head", "events", "last_seq"}


def scorecard_value(run_id: str, stored_events: Iterable) -> dict:
    report = build_report(run_id, stored_events)
    return report.model_dump(mode="json", exclude=_POSITIONAL)


def views_after(run_id: str, stored_events: Sequence, new_events: Sequence) -> list[tuple[str, int, object]]:
    """The views as they will stand once `new_events` are appended (for `Ledger.append(views=...)`)."""
    pending = [SimpleNamespace(event=e, hash=None, seq=0) for e in new_events]
    return [(SCORECARD_VIEW, REPORT_VERSION, scorecard_value(run_id, [*stored_events, *pending]))]


def refold_views(run_id: str, stored_events: list) -> dict[str, tuple[int, object]]:
    """What `Ledger.verify(refold=...)` compares each stored view with."""
    return {SCORECARD_VIEW: (REPORT_VERSION, scorecard_value(run_id, stored_events))}
