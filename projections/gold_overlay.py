"""Corrected gold beside the official gold: a run's score against an overlay, never in place of it.

An overlay names, for some of a run's questions, a replacement gold answer or a reason to leave the
question out (its record says the question is wrong, cannot be answered, or is contested). The
released gold is never touched: `rejudge --gold-overlay` records the audited scorer's verdicts on
the recorded answers against each replacement as a `gold-overlay` audit segment, and this fold
reads them beside the scorer's own verdicts:

| question | official score | corrected score |
|---|---|---|
| not in the overlay | its verdict | the same verdict |
| replaced | its verdict (against the released gold) | the overlay verdict (against the replacement) |
| left out | its verdict | not counted (counted apart, by reason) |

The ceiling of a kind is what a perfect system scores under the official gold if every gold the
overlay corrects or leaves out costs it the point: (planned − corrected − left out) / planned. A
kind whose official accuracy exceeds its ceiling is flagged: its score is then partly bought by
matching wrong gold. The whole is labelled corrected-gold and diagnostic, wherever it is shown.

The overlay file format (`benchledger-gold-overlay/1`), for overlays other than the LoCoMo audit's
`errors.json` (read by `adapters.benchmarks.locomo.audit_files`):

    {"format": "benchledger-gold-overlay/1", "source": "who corrected it, where",
     "entries": [{"question_id": "<the run's id>", "gold": "<replacement answer>"},
                 {"question_id": "<the run's id>", "exclude": "premise_error|not_determinable|contested|<reason>"}]}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict

from benchledger.errors import BadInput
from benchledger.ledger.events import AuditStarted, PlantJudged
from benchledger.projections.state import RunState
from benchledger.projections.stats import wilson_interval

__all__ = ["GOLD_OVERLAY_VERSION", "OVERLAY_FORMAT", "GoldOverlay", "KindCorrection", "CorrectedGold",
           "parse_overlay", "corrected_golds"]

GOLD_OVERLAY_VERSION = 1
OVERLAY_FORMAT = "benchledger-gold-overlay/1"


class GoldOverlay(NamedTuple):
    """Replacements and exclusions by the run's question ids, and where they came from."""

    sha256: str
    label: str
    replacements: dict[str, str]
    excluded: dict[str, list[str]]
    """reason -> question ids."""


def parse_overlay(value: Any, *, path: Path, sha256: str, line_of: Any) -> GoldOverlay:
    """A `benchledger-gold-overlay/1` document; BadInput naming file, line and field otherwise."""
    if not isinstance(value, dict) or value.get("format") != OVERLAY_FORMAT:
        raise BadInput(f"not a gold overlay: expected {{\"format\": \"{OVERLAY_FORMAT}\", ...}} or the LoCoMo "
                       "audit's errors.json", file=str(path), line=1, field="format")
    entries = value.get("entries")
    if not isinstance(entries, list):
        raise BadInput("expected a list", file=str(path), line=line_of(("entries",)), field="entries")
    replacements: dict[str, str] = {}
    excluded: dict[str, list[str]] = {}
    for index, entry in enumerate(entries):
        where = f"entries[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("question_id"), str):
            raise BadInput("missing or not a string", file=str(path), line=line_of(("entries", index)),
                           field=f"{where}.question_id")
        gold, reason = entry.get("gold"), entry.get("exclude")
        given = [v for v in (gold, reason) if v is not None]
        if len(given) != 1 or not isinstance(given[0], str) or not given[0].strip():
            raise BadInput("give exactly one of a non-empty gold or exclude", file=str(path),
                           line=line_of(("entries", index)), field=where)
        qid = entry["question_id"]
        if qid in replacements or any(qid in ids for ids in excluded.values()):
            raise BadInput(f"question {qid} appears twice", file=str(path), line=line_of(("entries", index)),
                           field=f"{where}.question_id")
        if isinstance(gold, str):
            replacements[qid] = gold.strip()
        else:
            excluded.setdefault(str(reason).strip(), []).append(qid)
    source = value.get("source") if isinstance(value.get("source"), str) else ""
    return GoldOverlay(sha256, f"{path.name}{' (' + source + ')' if source else ''} (not a pinned overlay)",
                       replacements, excluded)


class KindCorrection(BaseModel):
    model_config = ConfigDict(frozen=True)

    planned: int
    official_judged: int
    official_correct: int
    official_accuracy: float | None
    corrected: int
    """Questions whose gold the overlay replaces."""
    left_out: int
    """Questions the overlay leaves out of the corrected score."""
    corrected_judged: int
    corrected_correct: int
    corrected_accuracy: float | None
    corrected_ci_low: float | None
    corrected_ci_high: float | None
    ceiling: float | None
    """(planned - corrected - left out) / planned: a perfect system's official accuracy."""
    exceeds_ceiling: bool
    """The official accuracy is above the ceiling (partly bought by matching wrong gold)."""
    flips: dict[str, int]
    """Replaced questions whose verdict changed: "correct->incorrect", "incorrect->correct"."""
    missing: int
    """Replaced questions with no overlay verdict yet (a failed or interrupted call): not counted."""
    official_mean_score: float | None = None
    corrected_mean_score: float | None = None
    """Where the scorer gives a number per answer (LoCoMo's token F1): its mean, official and corrected."""


class CorrectedGold(BaseModel):
    """One `gold-overlay` audit as the scorecard and `show --json` carry it. Diagnostic, always."""

    model_config = ConfigDict(frozen=True)

    audit_id: str
    label: str
    """Always "corrected gold (diagnostic; never the official score)"."""
    scorer_id: str
    judge_model: str
    source: str
    source_label: str
    source_sha256: str
    pinned: bool
    """True when the overlay file is a pinned one (the LoCoMo audit's errors.json at its commit); an
    unpinned file is an overlay of unknown origin, and says so."""
    left_out_by_reason: dict[str, int]
    by_kind: dict[str, KindCorrection]
    overall: KindCorrection


_LABEL = "corrected gold (diagnostic; never the official score)"


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _kind(rows: Sequence[tuple[str, Any, PlantJudged | None, str]]) -> KindCorrection:
    """rows: (question id, the scorer's Judged or None, the overlay verdict or None, state) where state is
    kept, replaced or left_out."""
    planned = len(rows)
    official = [judged for _, judged, _, _ in rows if judged is not None]
    official_correct = sum(1 for j in official if j.verdict == "correct")
    corrected = sum(1 for *_, how in rows if how == "replaced")
    left_out = sum(1 for *_, how in rows if how == "left_out")
    counted, flips, missing = [], {"correct->incorrect": 0, "incorrect->correct": 0}, 0
    official_scores = [j.score for j in official if j.score is not None]
    corrected_scores: list[float] = []
    for _, judged, overlay, how in rows:
        if how == "left_out" or judged is None:
            continue
        if how == "replaced":
            if overlay is None:
                missing += 1
                continue
            if (judged.verdict == "correct") != (overlay.verdict == "correct"):
                flips["correct->incorrect" if judged.verdict == "correct" else "incorrect->correct"] += 1
            counted.append(overlay.verdict)
            if overlay.score is not None:
                corrected_scores.append(overlay.score)
        else:
            counted.append(judged.verdict)
            if judged.score is not None:
                corrected_scores.append(judged.score)
    correct = sum(1 for v in counted if v == "correct")
    low, high = wilson_interval(correct, len(counted)) if counted else (None, None)
    accuracy = official_correct / len(official) if official else None
    ceiling = (planned - corrected - left_out) / planned if planned else None
    return KindCorrection(
        planned=planned, official_judged=len(official), official_correct=official_correct,
        official_accuracy=accuracy, corrected=corrected, left_out=left_out, corrected_judged=len(counted),
        corrected_correct=correct, corrected_accuracy=correct / len(counted) if counted else None,
        corrected_ci_low=low, corrected_ci_high=high, ceiling=ceiling,
        exceeds_ceiling=accuracy is not None and ceiling is not None and accuracy > ceiling, flips=flips,
        missing=missing, official_mean_score=_mean(official_scores), corrected_mean_score=_mean(corrected_scores))


def _one(state: RunState, started: AuditStarted, verdicts: Mapping[str, PlantJudged]) -> CorrectedGold:
    left_out = {qid for ids in started.excluded.values() for qid in ids}
    replaced = set(started.replaced)
    rows_by_kind: dict[str, list[tuple[str, Any, PlantJudged | None, str]]] = {}
    every: list[tuple[str, Any, PlantJudged | None, str]] = []
    for qid, question in state.questions.items():
        how = "left_out" if qid in left_out else "replaced" if qid in replaced else "kept"
        row = (qid, question.judged.get(started.scorer_id), verdicts.get(qid), how)
        rows_by_kind.setdefault(question.planned.kind, []).append(row)
        every.append(row)
    return CorrectedGold(
        audit_id=started.audit_id, label=_LABEL, scorer_id=started.scorer_id, judge_model=started.judge_model,
        source=started.source, source_label=started.source_label, source_sha256=started.source_sha256,
        pinned=started.source_pinned,
        left_out_by_reason={reason: len(ids) for reason, ids in sorted(started.excluded.items())},
        by_kind={kind: _kind(rows) for kind, rows in sorted(rows_by_kind.items())}, overall=_kind(every))


def corrected_golds(state: RunState) -> list[CorrectedGold]:
    """Every `gold-overlay` audit of the run, folded beside its scorer's verdicts. The first overlay
    verdict per question counts."""
    started = {e.audit_id: e for e in state.audit_events if isinstance(e, AuditStarted) and e.audit == "gold-overlay"}
    verdicts: dict[str, dict[str, PlantJudged]] = {audit: {} for audit in started}
    for event in state.audit_events:
        if isinstance(event, PlantJudged) and event.audit_id in started:
            verdicts[event.audit_id].setdefault(event.question_id, event)
    return [_one(state, s, verdicts[audit_id]) for audit_id, s in started.items()
            if s.scorer_id in state.scorers]
