"""Mem2ActBench's publishable conditions: two that no run can meet today, and say why, and the usual ones.

- `official_release` (`projections.releases`, against the pin table): never met here. No file of the
  release has been seen by this project, so no pin can be known (every file is unpinned in
  `pins.json`); GitHub publishes no hash for a file; a fetch of the pinned commit records what
  arrived and its SHA-256, which proves only that those bytes came from there. The scorecard's
  release line names the bytes the run read, so a reader can compare them with a copy of their own.
- `official_protocol`: never met. The repository publishes no scorer, so a run is `protocol: as the
  paper describes it` (one tool call at temperature 0, scored by benchledger's stated rules), which
  no official code confirms: tokenisation, averaging and how unparseable output scores are the
  paper's gaps, filled here and written down.
- `unsampled_questions` (every task of every level of the split), `real_models` and
  `zero_operational_failures`, as every benchmark has them.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchledger.adapters.benchmarks.mem2actbench.source import PINS
from benchledger.ledger.events import ReleaseFile
from benchledger.projections.publishable import Check, Condition, names, real_models, unsampled_questions, zero_failures
from benchledger.projections.releases import official_release
from benchledger.projections.state import RunState
from benchledger.projections.tallies import KindTally

__all__ = ["CONDITIONS", "PAPER_PROTOCOL", "NO_PIN_HERE"]

PAPER_PROTOCOL = "protocol: as the paper describes it"


def _whole(state: RunState, files: Sequence[ReleaseFile]) -> str | None:
    planned, available = len(state.questions), state.plan.available if state.plan else 0
    return None if planned == available and planned else f"{planned:,} of {available:,} Mem2ActBench tasks of the split"


@names("official_protocol")
def official_protocol(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    return Condition(name="official_protocol", met=False, reason=(
        f"{PAPER_PROTOCOL}: the repository publishes no scorer, so the metrics are benchledger's reading of the "
        "paper (tokenisation, averaging and unparseable output are not stated there; "
        "docs/benchmarks/mem2actbench.md states the rules used)"))


_RELEASED = official_release("Mem2ActBench", PINS, _whole)
NO_PIN_HERE = "no pin can be known here: this project has seen no file of the release, and GitHub publishes no hash"


@names("official_release")
def release_condition(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    """The pin table's check, and why it cannot be met today."""
    checked = _RELEASED(state, overall, scorer)
    return checked if checked.met else Condition(name="official_release", met=False,
                                                  reason=f"{checked.reason}; {NO_PIN_HERE}")


CONDITIONS: tuple[Check, ...] = (release_condition, unsampled_questions(), real_models, official_protocol, zero_failures)
