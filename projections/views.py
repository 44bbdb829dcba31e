"""Materialised views: the report saved beside the event that completes it, and its re-fold.

When a run finishes, the runner saves its view in the same transaction as RunFinished: the
`scorecard` (the report without the fields that name ledger positions) for a question-answering
run, the `retrieval` metrics for a retrieval run. `verify` re-folds the events up to the saved
position and requires the same value, so a view can never drift from its events. The report
depends on the benchmark's publishable conditions and its own report folds, so callers pass them in.

A scorecard's wording comes from two places, so its version is a composite (`scorecard_version`):
the core report's `REPORT_VERSION` and the version the run's benchmark declares for its own
conditions and sections. A view saved under another composite was written by other code: `verify`
reports it as stale (re-folded, not compared), never as tampering.
"""

from __future__ import annotations

from typing import Any

from collections.abc import Iterable, Sequence
from types import SimpleNamespace

from benchledger.projections.publishable import Check
from benchledger.projections.report import REPORT_VERSION, SectionFold, build_report
from benchledger.projections.retrieval import RETRIEVAL_VERSION, RetrievalFold, retrieval_metrics
from benchledger.projections.state import fold_run
from benchledger.values import BenchmarkKind

__all__ = ["SCORECARD_VIEW", "RETRIEVAL_VIEW", "scorecard_value", "scorecard_version", "run_views", "views_after"]

SCORECARD_VIEW = "scorecard"
RETRIEVAL_VIEW = "retrieval"
_POSITIONAL = {"ledger_head", "events", "last_seq"}
_BENCHMARK_VERSIONS = 1000
"""Room for a benchmark's own report versions under each core one (the views table keeps an integer)."""


def scorecard_version(benchmark_version: int) -> int:
    """The saved scorecard's version: the core report's, then the benchmark's own (7 and 3 -> 7003)."""
    if not 0 <= benchmark_version < _BENCHMARK_VERSIONS:
        raise ValueError(f"a benchmark's report_version is 0..{_BENCHMARK_VERSIONS - 1}, not {benchmark_version}")
    return REPORT_VERSION * _BENCHMARK_VERSIONS + benchmark_version


def scorecard_value(run_id: str, stored_events: Iterable[Any], conditions: Sequence[Check],
                    sections: Sequence[SectionFold] = (), kind: BenchmarkKind | None = None) -> dict[str, Any]:
    report = build_report(run_id, stored_events, conditions=conditions, sections=sections, kind=kind)
    return report.model_dump(mode="json", exclude=_POSITIONAL)


def run_views(run_id: str, stored_events: Sequence[Any], conditions: Sequence[Check], *,
              sections: Sequence[SectionFold] = (), retrieval_official: RetrievalFold | None = None,
              benchmark_version: int = 0, kind: BenchmarkKind | None = None) -> dict[str, tuple[int, object]]:
    """name -> (version, value) of the views of a run as its events stand (what `verify` compares);
    `benchmark_version` and `kind` are the run's benchmark's declared report version and kind."""
    events = list(stored_events)
    if fold_run(run_id, events).mode == "retrieval":
        return {RETRIEVAL_VIEW: (RETRIEVAL_VERSION, retrieval_metrics(events, official=retrieval_official))}
    return {SCORECARD_VIEW: (scorecard_version(benchmark_version),
                             scorecard_value(run_id, events, conditions, sections, kind))}


def views_after(run_id: str, stored_events: Sequence[Any], new_events: Sequence[Any],
                conditions: Sequence[Check], *, sections: Sequence[SectionFold] = (),
                retrieval_official: RetrievalFold | None = None,
                benchmark_version: int = 0, kind: BenchmarkKind | None = None) -> list[tuple[str, int, object]]:
    """The views as they will stand once `new_events` are appended (for `Ledger.writer.append(views=...)`)."""
    pending = [SimpleNamespace(event=e, hash=None, seq=0, run_id=run_id) for e in new_events]
    views = run_views(run_id, [*stored_events, *pending], conditions, sections=sections,
                      retrieval_official=retrieval_official, benchmark_version=benchmark_version, kind=kind)
    return [(name, version, value) for name, (version, value) in views.items()]
