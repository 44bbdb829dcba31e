"""Per-kind tallies under a versioned scoring rule.

A scoring rule says how a verdict counts. Rule 1 ("released") is the published harness's: an
unclear verdict is judged but not correct. Rule 2 ("unclear-excluded") leaves unclear verdicts out
of the accuracy denominator. Changing a rule is a new version; replay re-folds old runs under it.
Failed and pending questions are never counted as wrong: accuracy is over judged questions, and
strict accuracy (correct over planned) shows what a partial run hides.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from benchledger.projections.state import RunState
from benchledger.projections.stats import wilson_interval

__all__ = ["SCORING_RULES", "CURRENT_SCORING_RULE", "KindTally", "tally"]

SCORING_RULES: dict[int, str] = {
    1: "released: unclear verdicts count as judged and not correct",
    2: "unclear-excluded: unclear verdicts are left out of accuracy",
}
CURRENT_SCORING_RULE = 1


class KindTally(BaseModel):
    model_config = ConfigDict(frozen=True)

    planned: int
    answered: int
    judged: int
    correct: int
    incorrect: int
    unclear: int
    failed: int
    pending: int
    accuracy: float | None
    """correct / scored (scored = judged, or judged - unclear under rule 2); None if nothing scored."""
    ci_low: float | None
    ci_high: float | None
    strict_accuracy: float | None
    """correct / planned."""


@dataclass
class _Counts:
    planned: int = 0
    answered: int = 0
    judged: int = 0
    correct: int = 0
    incorrect: int = 0
    unclear: int = 0
    failed: int = 0
    pending: int = 0

    def freeze(self, rule: int) -> KindTally:
        scored = self.judged - (self.unclear if rule == 2 else 0)
        acc = self.correct / scored if scored else None
        low, high = wilson_interval(self.correct, scored) if scored else (None, None)
        strict = self.correct / self.planned if self.planned else None
        return KindTally(**self.__dict__, accuracy=acc, ci_low=low, ci_high=high, strict_accuracy=strict)


def tally(state: RunState, scorer_id: str | None, rule: int = CURRENT_SCORING_RULE) -> tuple[KindTally, dict[str, KindTally]]:
    """Overall and per-kind tallies for one scorer."""
    if rule not in SCORING_RULES:
        raise ValueError(f"unknown scoring rule {rule}; known: {sorted(SCORING_RULES)}")
    overall, by_kind = _Counts(), dict[str, _Counts]()
    for question in state.questions.values():
        kind = by_kind.setdefault(question.planned.kind, _Counts())
        for counts in (overall, kind):
            counts.planned += 1
            counts.answered += question.answered is not None
            status = question.status(scorer_id)
            if status == "judged" and scorer_id is not None:  # only a scorer judges
                verdict = question.judged[scorer_id].verdict
                counts.judged += 1
                setattr(counts, verdict, getattr(counts, verdict) + 1)
            elif status == "failed":
                counts.failed += 1
            else:
                counts.pending += 1
    return overall.freeze(rule), {k: v.freeze(rule) for k, v in by_kind.items()}
