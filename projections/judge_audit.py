"""The judge audit's fold: per plant kind, how often the run's judge gave a planted answer the wrong verdict.

Pure: folds a run's audit events (`RunState.audit_events`, which the score never reads) into one
`JudgeAudit` per `audit judge` segment. The rules, per plant kind:

| plant deserves | error | rate |
|---|---|---|
| incorrect (a wrong, vague or refusing answer) | false accept: the judge said correct | false accepts / verdicts |
| correct (the gold restated) | false reject: the judge said incorrect | false rejects / verdicts |

An "unclear" verdict is neither (it has its own column); an operational failure is no verdict.
Each rate carries a 95% Wilson interval, and is broken down by the question's kind as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from benchledger.ledger.events import AuditContinued, AuditStarted, PlantFailed, PlantJudged
from benchledger.projections.stats import wilson_interval

__all__ = ["JUDGE_AUDIT_VERSION", "PlantRate", "PlantKindRow", "JudgeAudit", "judge_audits", "plant_rate"]

JUDGE_AUDIT_VERSION = 1


class PlantRate(BaseModel):
    """How often one group of plants got the wrong verdict."""

    model_config = ConfigDict(frozen=True)

    verdicts: int
    """Plants the judge gave a verdict on (unclear included)."""
    wrong: int
    """Verdicts the plants do not deserve (a false accept or a false reject)."""
    unclear: int
    rate: float | None
    """wrong / verdicts (None without verdicts)."""
    ci_low: float | None
    ci_high: float | None
    mean_score: float | None = None
    """The mean of the scorer's own number over these plants, where its rule gives one (LoCoMo's token F1)."""


class PlantKindRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    plant_kind: str
    expected: Literal["correct", "incorrect"]
    error: Literal["false accept", "false reject"]
    overall: PlantRate
    failed: int
    """Plants whose judge call failed operationally (no verdict)."""
    by_question_kind: dict[str, PlantRate]


class JudgeAudit(BaseModel):
    """One `audit judge` segment as the scorecard, `show --json` and the export carry it."""

    model_config = ConfigDict(frozen=True)

    audit_id: str
    scorer_id: str
    judge_model: str
    method: str
    protocol: str
    endpoint: str
    """The base URL its calls went to, "offline", "no model (a rule)" or "openai default"."""
    source: str
    source_label: str
    source_sha256: str
    plants_version: int
    reference_rate: float | None = None
    """The share of these plants the file's own recorded judges accepted (None: derived, or unscored file)."""
    reference_judgments: int = 0
    planned: int
    judged: int
    failed: int
    skipped: dict[str, int]
    kinds: list[PlantKindRow]


def plant_rate(verdicts: Sequence[str], expected: str, scores: Sequence[float | None] = ()) -> PlantRate:
    """The wrong-verdict rate of plants that deserve `expected`, given the judge's verdicts (and scores)."""
    numbers = [s for s in scores if s is not None]
    wrong_verdict = "correct" if expected == "incorrect" else "incorrect"
    wrong = sum(1 for v in verdicts if v == wrong_verdict)
    n = len(verdicts)
    low, high = wilson_interval(wrong, n) if n else (None, None)
    return PlantRate(verdicts=n, wrong=wrong, unclear=sum(1 for v in verdicts if v == "unclear"),
                     rate=wrong / n if n else None, ci_low=low, ci_high=high,
                     mean_score=sum(numbers) / len(numbers) if numbers else None)


def _endpoint(started: AuditStarted) -> str:
    if started.model_free:
        return "no model (a rule)"
    if started.offline:
        return "offline"
    if started.endpoint is None:
        return "not recorded"
    return started.endpoint.base_url or "openai default"


def judge_audits(events: Sequence[AuditStarted | AuditContinued | PlantJudged | PlantFailed],
                 kind_of: dict[str, str]) -> list[JudgeAudit]:
    """Every `audit judge` segment's rates (`kind_of`: question id -> its kind). The first verdict
    per plant counts; a later one under the same plant id is never read."""
    started = {e.audit_id: e for e in events if isinstance(e, AuditStarted) and e.audit == "judge"}
    verdicts: dict[str, dict[str, PlantJudged]] = {audit: {} for audit in started}
    failures: dict[str, dict[str, PlantFailed]] = {audit: {} for audit in started}
    for event in events:
        if isinstance(event, PlantJudged) and event.audit_id in started:
            verdicts[event.audit_id].setdefault(event.plant_id, event)
        elif isinstance(event, PlantFailed) and event.audit_id in started:
            failures[event.audit_id].setdefault(event.plant_id, event)
    return [_audit(start, verdicts[audit_id], failures[audit_id], kind_of) for audit_id, start in started.items()]


def _audit(started: AuditStarted, verdicts: dict[str, PlantJudged], failures: dict[str, PlantFailed],
           kind_of: dict[str, str]) -> JudgeAudit:
    groups: dict[str, list[PlantJudged]] = {}
    for judged in verdicts.values():
        groups.setdefault(judged.plant_kind, []).append(judged)
    failed_by_kind: dict[str, int] = {}
    unresolved = [f for plant_id, f in failures.items() if plant_id not in verdicts]
    for failure in unresolved:
        failed_by_kind[failure.plant_kind] = failed_by_kind.get(failure.plant_kind, 0) + 1
    rows = []
    for plant_kind in sorted(set(groups) | set(failed_by_kind)):
        plants = groups.get(plant_kind, [])
        expected: Literal["correct", "incorrect"] = \
            "correct" if plants and plants[0].expected == "correct" else "incorrect"
        by_question: dict[str, list[PlantJudged]] = {}
        for plant in plants:
            by_question.setdefault(kind_of.get(plant.question_id, "?"), []).append(plant)
        rows.append(PlantKindRow(
            plant_kind=plant_kind, expected=expected,
            error="false reject" if expected == "correct" else "false accept",
            overall=plant_rate([p.verdict for p in plants], expected, [p.score for p in plants]),
            failed=failed_by_kind.get(plant_kind, 0),
            by_question_kind={kind: plant_rate([p.verdict for p in group], expected, [p.score for p in group])
                              for kind, group in sorted(by_question.items())}))
    return JudgeAudit(
        audit_id=started.audit_id, scorer_id=started.scorer_id, judge_model=started.judge_model,
        method=started.method, protocol=started.protocol, endpoint=_endpoint(started), source=started.source,
        source_label=started.source_label, source_sha256=started.source_sha256,
        plants_version=started.plants_version, reference_rate=started.reference_rate,
        reference_judgments=started.reference_judgments, planned=started.planned, judged=len(verdicts),
        failed=len(unresolved), skipped=dict(started.skipped), kinds=rows)
