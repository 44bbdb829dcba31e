"""The runs of a ledger as `benchledger runs` lists them: configuration, status and headline metric.

Each row reads the run's saved view (the scorecard of a question-answering run, the recall
metrics of a retrieval run) when that view is current, that is, saved at the run's last position.
A run that changed after it finished (a rejudge added a scorer) or has not finished is folded
from its events, so the score shown is always what `benchledger show RUN` shows: accuracy under
the run's headline scorer (its first that meets the benchmark's protocol), or the benchmark's own overall number where
its adapter declares one (LoCoMo's token F1, Memora's FAMA), or recall@k.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from benchledger.ledger.recorder import EventReader
from benchledger.ledger.runs import RunSummary
from benchledger.adapters.benchmarks.registry import folds_for_benchmark
from benchledger.orchestration.reports import report_of
from benchledger.projections.retrieval import RETRIEVAL_VERSION, retrieval_metrics
from benchledger.projections.state import fold_run
from benchledger.projections.views import RETRIEVAL_VIEW, SCORECARD_VIEW, scorecard_version

__all__ = ["RunRow", "run_rows"]


class RunRow(BaseModel):
    """One run: what ran, how it ended, and its headline metric."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    started_at: str
    benchmark: str | None
    subset: str | None
    """GroupMemBench domain, LoCoMo or LongMemEval file stem, Memora split."""
    mode: str
    """qa or retrieval."""
    memory: str | None
    k: int | None
    agent_model: str | None
    """None for a retrieval run (it asks no model)."""
    judge_model: str | None
    protocol: str | None
    status: str
    """completed, aborted or unfinished."""
    metric: str
    """What `score` measures: accuracy (over judged questions), the benchmark's own overall number
    where its adapter declares one ("LoCoMo token F1", "Memora FAMA"), or recall@k."""
    score: float | None
    scorer_id: str | None
    """The scorer `score` comes from (None for a retrieval run)."""
    strict_accuracy: float | None = None
    """Correct over planned questions (None for a retrieval run): what an unfinished run shows, so a
    partial run cannot look better than it is."""
    failed: int
    """Questions with an unresolved operational failure (a retrieval run: questions not recalled)."""
    events: int


def _from_scorecard(summary: RunSummary, value: dict[str, Any]) -> dict[str, Any]:
    return {"k": value.get("k"), "agent_model": value.get("agent_model"), "judge_model": value.get("judge_model"),
            "protocol": value.get("protocol"), "status": value.get("run_status", "unfinished"),
            "metric": value.get("metric", "accuracy"), "score": value.get("score", value.get("accuracy")),
            "scorer_id": value.get("scorer_id"), "strict_accuracy": value.get("strict_accuracy"),
            "failed": value.get("failed", 0)}


def _from_metrics(summary: RunSummary, metrics: dict[str, Any]) -> dict[str, Any]:
    return {"k": metrics.get("k"), "agent_model": None, "judge_model": None, "protocol": None,
            "status": summary.finished or "unfinished", "metric": f"recall@{metrics.get('k')}",
            "score": metrics.get("recall"), "scorer_id": None, "failed": metrics.get("not_recalled", 0)}


def _current_view(reader: EventReader, summary: RunSummary) -> tuple[str, dict[str, Any]] | None:
    folds = folds_for_benchmark(summary.benchmark) if summary.benchmark else None
    scorecard = scorecard_version(folds.conditions, folds.sections, folds.kind) if folds else None
    current = {SCORECARD_VIEW: scorecard, RETRIEVAL_VIEW: RETRIEVAL_VERSION}
    for name, version, position, value in reader.stored_views(summary.run_id):
        # a view an older projection saved may lack what this one reports: fold the events instead
        if current.get(name) == version and position == summary.events and isinstance(value, dict):
            return name, value
    return None


def _folded(reader: EventReader, summary: RunSummary) -> dict[str, Any]:
    events = reader.events(summary.run_id)
    state = fold_run(summary.run_id, events)
    if state.started is None:
        return {"k": None, "agent_model": None, "judge_model": None, "protocol": None,
                "status": summary.finished or "unfinished", "metric": "accuracy", "score": None,
                "scorer_id": None, "failed": 0}
    if state.mode == "retrieval":
        return _from_metrics(summary, retrieval_metrics(events))
    return _from_scorecard(summary, report_of(state).model_dump(mode="json"))


def run_rows(reader: EventReader) -> list[RunRow]:
    """Every run on the ledger, newest first."""
    rows = []
    for summary in reader.runs():
        view = _current_view(reader, summary)
        if view is None:
            values = _folded(reader, summary)
        elif view[0] == RETRIEVAL_VIEW:
            values = _from_metrics(summary, view[1])
        else:
            values = _from_scorecard(summary, view[1])
        rows.append(RunRow(run_id=summary.run_id, started_at=summary.started_at, benchmark=summary.benchmark,
                           subset=summary.subset, mode=summary.mode, memory=summary.memory,
                           events=summary.events, **values))
    return rows
