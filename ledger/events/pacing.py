"""How a run segment's model calls were paced at their endpoint: one event per segment that asked.

The scheduler that admits every answer and judge call to the endpoint, and the memory system's
own calls when they go to the same endpoint (`adapters.models.scheduler`), summarises its decisions when the segment's questions are asked:
the calls it admitted, the 429s and timeouts among them, how many calls waited for a slot, a
provider's advertised budget or a Retry-After and for how long, peak and mean calls in flight,
and where its adaptive limit ended. These are facts about speed, never about a score: nothing in
a verdict depends on them, and they differ between two runs of the same questions.
"""

from __future__ import annotations

from typing import Literal

from benchledger.ledger.events.base import Event
from benchledger.ledger.events.declaration import OPEN_RUN_ONLY, declare

__all__ = ["EndpointPaced"]


@declare(key=lambda e: f"pacing:{e.attempt}", blobs=(), sealing=OPEN_RUN_ONLY, fold="paced")
class EndpointPaced(Event):
    """What the endpoint's scheduler decided while one segment of the run asked its questions."""

    type: Literal["EndpointPaced"] = "EndpointPaced"
    """The event type."""
    attempt: int = 1
    """The segment: 1 for the run's start, then each resume's attempt."""
    pacing: Literal["adaptive", "fixed"]
    """adaptive: the limit moved (AIMD, the provider's headers, Retry-After); fixed: `--concurrency` always."""
    ceiling: int
    """`--concurrency`: the most calls the limit may allow."""
    calls: int
    """HTTP attempts admitted (retries included; cache hits never reach the scheduler)."""
    refused: int
    """Attempts the endpoint refused with HTTP 429."""
    timeouts: int
    """Attempts that timed out."""
    waited: int
    """Attempts that could not start at once (all slots busy, the budget spent, or a Retry-After)."""
    wait_seconds: float
    """Seconds those attempts waited, summed."""
    peak_in_flight: int
    """The most attempts in flight at once."""
    mean_in_flight: float
    """Attempts in flight, averaged over time from the first start to the last end."""
    final_limit: int
    """The limit on calls in flight when the segment ended."""
    cuts: int
    """Times a 429 or a timeout halved the limit."""
