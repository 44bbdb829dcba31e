"""What `compare` folds, read from the ledger: each run checked and folded, its report, its context format.

The context format is measured, not assumed: the share of the recalled candidates (as the memory
returned them, the blob `ContextRecalled.candidates_hash` names) that carry a timestamp, which the
passage shown to the answer model then prints ("timestamps", "no timestamps", "mixed (N%)"; "not
recorded" for rows before candidates were kept). A sample of `CONTEXT_SAMPLE` answered questions
is read, in plan order, so the measure is stable and cheap.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from benchledger.adapters.memory.registry import comparison_role
from benchledger.ledger.recorder import EventReader
from benchledger.orchestration.recorded import recorded_run
from benchledger.orchestration.reports import report_of
from benchledger.projections.compare import CompareInput, Comparison, Role, compare_runs
from benchledger.projections.diff import pick_scorer
from benchledger.projections.prices import PriceTable
from benchledger.projections.state import RunState

__all__ = ["CONTEXT_SAMPLE", "context_format", "compare_recorded", "memory_role"]

CONTEXT_SAMPLE = 50


def context_format(reader: EventReader, state: RunState) -> str:
    """Whether the run's recalled passages carried timestamps (see the module docstring)."""
    stamped = total = 0
    sampled = 0
    for question in state.questions.values():
        recalled = question.recalled
        if recalled is None or question.answered is None or not recalled.candidates_hash:
            continue
        for candidate in json.loads(reader.get_blob(recalled.candidates_hash)):
            document = candidate.get("document") or {}
            stamped += bool(candidate.get("timestamp") or document.get("timestamp"))
            total += 1
        sampled += 1
        if sampled >= CONTEXT_SAMPLE:
            break
    if total == 0:
        return "not recorded"
    if stamped == total:
        return "timestamps"
    if stamped == 0:
        return "no timestamps"
    return f"mixed ({round(100 * stamped / total)}% with timestamps)"


def memory_role(state: RunState) -> Role:
    """How compare draws the run: as its memory system declares itself (floor, ceiling or a system)."""
    return comparison_role(state.started.config.settings.memory) if state.started is not None else "system"


def compare_recorded(reader: EventReader, run_refs: Sequence[str], *, scorers: Sequence[str | None] = (),
                     allow_differences: bool = False, prices: PriceTable | None = None) -> Comparison:
    """Read each run `run_refs` names, verified and folded (`recorded_run`), then compare them (with
    `prices`, in dollars too)."""
    inputs = []
    for index, run_ref in enumerate(run_refs):
        state = recorded_run(reader, run_ref).state
        state.require_answers("compare")
        scorer = pick_scorer(state, scorers[index] if index < len(scorers) else None)
        default = state.default_scorer
        official = report_of(state) if default is not None and state.scorers[default].official \
            and not state.unjudged(default) else None
        inputs.append(CompareInput(state, report_of(state, scorer_id=scorer), context_format(reader, state), official,
                                   memory_role(state)))
    return compare_runs(inputs, allow_differences=allow_differences, prices=prices)
