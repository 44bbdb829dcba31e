"""Materialised views: the report saved beside the event that completes it, and its re-fold.

When a run finishes, the runner saves its view in the same transaction as RunFinished: the
`scorecard` (the report without the fields that name ledger positions) for a question-answering
run, the `retrieval` metrics for a retrieval run. `verify` re-folds the events up to the saved
position and requires the same value, so a view can never drift from its events. The report
depends on the benchmark's publishable conditions and its own report folds, so callers pass them in.

A scorecard's wording comes from two places, so its version is derived from both, never bumped by
hand (`scorecard_version`): the digest of the core report's code and shape and the digest of the
conditions, sections and kind the run's benchmark hands down (`projections.report_digest`). A
reworded condition changes it; a view saved under another version was written by other code:
`verify` reports it as stale (re-folded, not compared), never as tampering.
"""

from __future__ import annotations

import hashlib
from typing import Any

from collections.abc import Iterable, Sequence
from types import SimpleNamespace

from benchledger.projections.publishable import Check
from benchledger.projections.report import SectionFold, build_report
from benchledger.projections.report_digest import benchmark_digest, core_digest
from benchledger.projections.retrieval import RETRIEVAL_VERSION, RetrievalFold, retrieval_metrics
from benchledger.projections.state import fold_run
from benchledger.values import BenchmarkKind

__all__ = ["SCORECARD_VIEW", "RETRIEVAL_VIEW", "scorecard_value", "scorecard_version", "run_views", "views_after"]

SCORECARD_VIEW = "scorecard"
RETRIEVAL_VIEW = "retrieval"
_POSITIONAL = {"ledger_head", "events", "last_seq"}
_VERSION_BITS = 31
"""The views table keeps an integer (PostgreSQL's is 32 bits, signed): the version is that much of the digest."""


def scorecard_version(conditions: Sequence[Check], sections: Sequence[SectionFold] = (),
                      kind: BenchmarkKind | None = None) -> int:
    """The saved scorecard's version: the first 31 bits of the digest of the core report's digest and the
    benchmark's (its `conditions`, `sections` and `kind`, as it hands them to the report)."""
    both = hashlib.sha256(f"{core_digest()}:{benchmark_digest(conditions, sections, kind)}".encode()).digest()
    return int.from_bytes(both[:4], "big") >> (32 - _VERSION_BITS)


def scorecard_value(run_id: str, stored_events: Iterable[Any], conditions: Sequence[Check],
                    sections: Sequence[SectionFold] = (), kind: BenchmarkKind | None = None) -> dict[str, Any]:
    report = build_report(run_id, stored_events, conditions=conditions, sections=sections, kind=kind)
    return report.model_dump(mode="json", exclude=_POSITIONAL)


def run_views(run_id: str, stored_events: Sequence[Any], conditions: Sequence[Check], *,
              sections: Sequence[SectionFold] = (), retrieval_official: RetrievalFold | None = None,
              kind: BenchmarkKind | None = None) -> dict[str, tuple[int, object]]:
    """name -> (version, value) of the views of a run as its events stand (what `verify` compares);
    `conditions`, `sections` and `kind` are what the run's benchmark declares (they make the version too)."""
    events = list(stored_events)
    if fold_run(run_id, events).mode == "retrieval":
        return {RETRIEVAL_VIEW: (RETRIEVAL_VERSION, retrieval_metrics(events, official=retrieval_official))}
    return {SCORECARD_VIEW: (scorecard_version(conditions, sections, kind),
                             scorecard_value(run_id, events, conditions, sections, kind))}


def views_after(run_id: str, stored_events: Sequence[Any], new_events: Sequence[Any],
                conditions: Sequence[Check], *, sections: Sequence[SectionFold] = (),
                retrieval_official: RetrievalFold | None = None,
                kind: BenchmarkKind | None = None) -> list[tuple[str, int, object]]:
    """The views as they will stand once `new_events` are appended (for `Ledger.writer.append(views=...)`)."""
    pending = [SimpleNamespace(event=e, hash=None, seq=0, run_id=run_id) for e in new_events]
    views = run_views(run_id, [*stored_events, *pending], conditions, sections=sections,
                      retrieval_official=retrieval_official, kind=kind)
    return [(name, version, value) for name, (version, value) in views.items()]
