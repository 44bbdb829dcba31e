"""Third-party checks of a run, folded for the report: what each `verify --against-source` and
`verify --spot-check` found, beside the score and never inside it.

Pure: folds `RunState.checks` (the `SourceChecked` and `SpotChecked` events, which the score, the
conditions and `publishable` never read) into one `RunCheck` per check. The rules:

| check | counted | agreement |
|---|---|---|
| against-source | each recorded release file | agrees / differs / unreachable / no-source, per file |
| spot-check | each request sent again that got a reply | agreeing replies / replies, with a 95% Wilson interval, answers and verdicts apart |

A failed call is no reply (counted as failed, never as a disagreement). Answers agree when their text
is the same once case, spacing and punctuation are set aside; verdicts when they are the same verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from benchledger.ledger.events.checks import SourceChecked, SpotChecked
from benchledger.projections.stats import wilson_interval

__all__ = ["CHECKS_VERSION", "Agreement", "Disagreement", "RunCheck", "run_checks", "agreement"]

CHECKS_VERSION = 1

_SHOWN = 5
"""Files not agreeing kept per check (a spot check: disagreements per stage) for the scorecard; the events hold them all."""


class Agreement(BaseModel):
    """How many replies agreed with what the run recorded."""

    model_config = ConfigDict(frozen=True)

    agree: int
    replies: int
    """Requests that got a reply (failures left out)."""
    failed: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None


class Disagreement(BaseModel):
    model_config = ConfigDict(frozen=True)

    item: str
    """A question and stage (`q12 judge`), or a release file."""
    recorded: str
    again: str
    """What the source or provider gave now (or why nothing could be read)."""


class RunCheck(BaseModel):
    """One check of the run, as the report shows it."""

    model_config = ConfigDict(frozen=True)

    check_id: str
    kind: Literal["against-source", "spot-check"]
    checked_by: str
    checked_at: str
    checked_with: str
    against: str
    """The source's base URLs, or the endpoint the requests went to."""
    counts: dict[str, int]
    """against-source: files by status; spot-check: the draw (asked, drawn, population, seed)."""
    answers: Agreement | None = None
    verdicts: Agreement | None = None
    disagreements: list[Disagreement]
    """The first few items that do not agree (see `_SHOWN`; a spot check's verdicts first, then its answers)."""


def agreement(agrees: Sequence[bool | None]) -> Agreement:
    """Agreement over replies (None: the call failed), with its 95% Wilson interval."""
    replies = [a for a in agrees if a is not None]
    agree = sum(1 for a in replies if a)
    low, high = wilson_interval(agree, len(replies)) if replies else (None, None)
    return Agreement(agree=agree, replies=len(replies), failed=len(agrees) - len(replies),
                     rate=agree / len(replies) if replies else None, ci_low=low, ci_high=high)


def _source(event: SourceChecked) -> RunCheck:
    counts: dict[str, int] = {}
    for file in event.files:
        counts[file.status] = counts.get(file.status, 0) + 1
    off = [Disagreement(item=f.path, recorded=f.recorded_sha256, again=f"{f.status}: {f.detail}" if f.detail else f.status)
           for f in event.files if f.status != "agrees"]
    return RunCheck(check_id=event.check_id, kind="against-source", checked_by=event.checked_by,
                    checked_at=event.checked_at, checked_with=event.checked_with,
                    against=f"github raw {event.github_raw}, hub {event.hub}", counts=counts,
                    disagreements=off[:_SHOWN])


def _spot(event: SpotChecked) -> RunCheck:
    endpoint = event.endpoint
    against = "offline" if endpoint is None else (endpoint.base_url or "the openai SDK's default endpoint")
    drawn = len({item.question_id for item in event.items})
    off = [[Disagreement(item=f"{item.question_id} {item.stage}", recorded=item.recorded,
                         again=item.again if item.agrees is not None else f"failed: {item.error}")
            for item in event.items if item.agrees is not True and item.stage == stage][:_SHOWN]
           for stage in ("judge", "answer")]
    return RunCheck(check_id=event.check_id, kind="spot-check", checked_by=event.checked_by,
                    checked_at=event.checked_at, checked_with=event.checked_with,
                    against=f"{against} (agent {event.agent_model}, judge {event.judge_model}, scorer {event.scorer_id})",
                    counts={"asked": event.asked, "drawn": drawn, "population": event.population, "seed": event.seed},
                    answers=agreement([i.agrees for i in event.items if i.stage == "answer"]),
                    verdicts=agreement([i.agrees for i in event.items if i.stage == "judge"]),
                    disagreements=off[0] + off[1])


def run_checks(checks: Sequence[SourceChecked | SpotChecked]) -> list[RunCheck]:
    """Every check of the run, in the order they were recorded."""
    return [_source(event) if isinstance(event, SourceChecked) else _spot(event) for event in checks]
