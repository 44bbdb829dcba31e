"""Memora's publishable conditions: every persona and question of the split, the official answer and
judge prompts, the official three-judge vote by the judges the README names, no failures.

Memora scores a run over a split's personas (Table 3 averages per-persona reports), so a run that
names some personas, limits questions or leaves a task out is diagnostic. The judges are
configurable (`--judge-models`); only the official trio (`prompts.OFFICIAL_JUDGES`) is publishable.

`official_release`: every file of the split's personas is pinned (`pins.json.gz`), so the files read
must be exactly the split's released files, each at its pin, wherever they came from.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchledger.adapters.benchmarks.memora.official import MAJORITY_METHOD
from benchledger.adapters.benchmarks.memora.prompts import OFFICIAL_JUDGES, TEMPLATE_SHA256
from benchledger.adapters.benchmarks.memora.source import PINS
from benchledger.ledger.events import ReleaseFile
from benchledger.projections.publishable import (
    Check, Condition, official_judges, official_prompts, official_scorer, real_models, run_config,
    unsampled_questions, zero_failures,
)
from benchledger.projections.state import RunState
from benchledger.projections.tallies import KindTally

from benchledger.projections.releases import official_release

__all__ = ["CONDITIONS"]


def _whole(state: RunState, files: Sequence[ReleaseFile]) -> str | None:
    split = run_config(state).subset
    released = {pin.path for pin in PINS.pins() if pin.role == "release" and pin.path.startswith(f"{split}/")}
    read = {file.path for file in files}
    if strays := sorted(read - released):
        return f"{strays[0]} is not a file of the official Memora release ({split} split)"
    if read != released:
        personas = {path.split("/")[1] for path in released}
        seen = {path.split("/")[1] for path in read}
        return (f"{len(seen)} of {len(personas)} Memora personas of the {split} split"
                if seen != personas else f"{len(released - read)} file(s) of the {split} split were not read")
    return None


def all_personas(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    chosen = getattr(run_config(state).selection, "personas", ()) or ()
    if chosen:
        return Condition(name="all_personas", met=False,
                         reason=f"personas chosen: {', '.join(chosen)} (Table 3 averages every persona of the split)")
    return Condition(name="all_personas", met=True, reason="every persona of the split")


CONDITIONS: tuple[Check, ...] = (
    official_release("Memora", PINS, _whole), all_personas, unsampled_questions(), real_models, official_prompts(TEMPLATE_SHA256, "Memora"),
    official_scorer(MAJORITY_METHOD, "Memora's official three-judge vote"),
    official_judges(tuple(OFFICIAL_JUDGES.values()), "the judges Memora's README names"), zero_failures,
)
