"""What a run was forecast to spend before it asked anything: calls and tokens per stage.

Recorded at the start of a run begun from the command line (`run ... ` prints the same figures in
its first lines; `--dry-run` prints them and stops), so the scorecard can set the actual tokens
per stage beside the forecast. Prompt tokens are estimated (characters / 4 of the messages the
run's own models build, over a stand-in context: see `orchestration.forecast`); completion tokens
are the calls' limits, an upper bound. The memory system's own calls are not forecast.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from benchledger.ledger.events.base import Event
from benchledger.ledger.events.declaration import OPEN_RUN_ONLY, declare

__all__ = ["RunForecast", "StageForecast"]


class StageForecast(BaseModel):
    """One stage's forecast."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    calls: int
    """Model calls the stage would make (one per question and scorer; retries not included)."""
    prompt_tokens: int
    """Estimated prompt tokens of those calls."""
    completion_tokens: int
    """The calls' completion limits, summed: the most they can cost (0 when they set none)."""


@declare(key=lambda e: "run:forecast", blobs=(), sealing=OPEN_RUN_ONLY, fold="forecast")
class RunForecast(Event):
    """The calls and tokens the run's answer and judge stages were forecast to spend."""

    type: Literal["RunForecast"] = "RunForecast"
    """The event type."""
    questions: int
    """Questions forecast (the run's selected questions)."""
    stages: dict[str, StageForecast]
    """answer, judge -> its forecast."""
