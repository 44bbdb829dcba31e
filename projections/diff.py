"""Diff of two runs: paired accuracy over the questions both runs judged, and what flipped.

Two runs are compared question by question (by id), so the statistics are paired: the difference
(b - a) gets a seeded percentile bootstrap interval and an exact McNemar p-value from the
discordant pairs. Only questions judged in both runs are scored; a question failed or pending in
either run is listed as excluded, never counted as wrong. A verdict counts as correct only when
it is "correct" (scoring rule 1: unclear is not correct).

Runs over different corpora (fingerprints) or different planned questions are not comparable;
`diff_runs` refuses them unless `allow_different`, and then the result carries the flags.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from dataclasses import dataclass

from benchledger.errors import BadInput
from benchledger.projections.config_diff import ConfigDifference, config_differences
from benchledger.projections.state import QuestionState, RunState
from benchledger.projections.stats import mcnemar_exact, paired_bootstrap_diff

__all__ = [
    "DIFF_VERSION", "BOOTSTRAP_SEED", "BOOTSTRAP_RESAMPLES", "DiffSlice", "ExcludedQuestion",
    "RunDiff", "diff_runs", "pick_scorer", "PlanComparison", "compare_plans",
]

DIFF_VERSION = 1
BOOTSTRAP_SEED = 0
BOOTSTRAP_RESAMPLES = 2000


class DiffSlice(BaseModel):
    """Paired comparison over one kind (or all kinds)."""

    model_config = ConfigDict(frozen=True)

    paired: int
    """Questions judged in both runs."""
    correct_a: int
    correct_b: int
    accuracy_a: float | None
    accuracy_b: float | None
    difference: float | None
    """accuracy_b - accuracy_a over the paired questions."""
    ci_low: float | None
    """95% paired bootstrap interval of the difference (seeded)."""
    ci_high: float | None
    mcnemar_p: float | None
    """Two-sided exact McNemar p-value from the discordant pairs."""
    correct_to_wrong: list[str]
    """Question ids correct in run a and not in run b."""
    wrong_to_correct: list[str]
    """Question ids not correct in run a and correct in run b."""


class ExcludedQuestion(BaseModel):
    model_config = ConfigDict(frozen=True)

    question_id: str
    kind: str
    status_a: str
    """judged, failed, answered, recalled, pending, or absent (not planned in that run)."""
    status_b: str


class RunDiff(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_a: str
    run_b: str
    config: list[ConfigDifference]
    """Configuration and provenance fields that differ between the runs (B's value against A's)."""
    scorer_a: str | None
    scorer_b: str | None
    fingerprint_a: str | None
    fingerprint_b: str | None
    different_corpora: bool
    different_questions: bool
    only_in_a: list[str]
    """Planned in run a only (never scored)."""
    only_in_b: list[str]
    changed_questions: list[str]
    """Planned in both under the same id but with different text, gold or kind."""
    overall: DiffSlice
    by_kind: dict[str, DiffSlice]
    excluded: list[ExcludedQuestion]
    """Questions planned in both runs but not judged in both: never scored."""
    bootstrap_seed: int
    bootstrap_resamples: int
    diff_version: int


def pick_scorer(state: RunState, scorer_id: str | None, *, option: str = "scorer") -> str | None:
    """The asked scorer (checked), or the run's headline scorer (its first that meets the protocol); None when never judged."""
    state.require_answers("score")
    if scorer_id is None:
        return state.default_scorer
    if scorer_id not in state.scorers:
        known = ", ".join(state.scorers) or "none"
        raise BadInput(f"run {state.run_id} has no scorer {scorer_id!r} (its scorers: {known})", field=option)
    return scorer_id


@dataclass(frozen=True)
class PlanComparison:
    """Whether two runs saw the same corpus and planned the same questions."""

    fingerprint_a: str | None
    fingerprint_b: str | None
    only_in_a: list[str]
    only_in_b: list[str]
    shared: list[str]
    changed: list[str]
    """Planned in both under the same id but with different text, gold or kind."""

    @property
    def different_corpora(self) -> bool:
        return self.fingerprint_a is None or self.fingerprint_a != self.fingerprint_b

    @property
    def different_questions(self) -> bool:
        return bool(self.only_in_a or self.only_in_b or self.changed)


def compare_plans(state_a: RunState, state_b: RunState, *, allow_different: bool) -> PlanComparison:
    """Compare two runs' corpora and plans; BadInput when they differ, unless `allow_different`."""
    ids_a, ids_b = state_a.questions.keys(), state_b.questions.keys()
    shared = [q for q in ids_a if q in ids_b]
    plans = PlanComparison(
        fingerprint_a=state_a.corpus.fingerprint if state_a.corpus else None,
        fingerprint_b=state_b.corpus.fingerprint if state_b.corpus else None,
        only_in_a=[q for q in ids_a if q not in ids_b], only_in_b=[q for q in ids_b if q not in ids_a],
        shared=shared,
        changed=[q for q in shared if _identity(state_a.questions[q]) != _identity(state_b.questions[q])])
    if not allow_different:
        _refuse_if_different(state_a, state_b, plans)
    return plans


def diff_runs(state_a: RunState, state_b: RunState, *, scorer_a: str | None = None,
              scorer_b: str | None = None, allow_different: bool = False,
              resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> RunDiff:
    """Compare run b against run a over the questions both judged. Pure and reproducible."""
    scorer_a = pick_scorer(state_a, scorer_a, option="scorer_a")
    scorer_b = pick_scorer(state_b, scorer_b, option="scorer_b")
    plans = compare_plans(state_a, state_b, allow_different=allow_different)
    only_a, only_b, shared = plans.only_in_a, plans.only_in_b, plans.shared

    pairs: list[tuple[str, str, int, int]] = []  # (kind, question id, correct in a, correct in b)
    excluded = []
    for qid in shared:
        qa, qb = state_a.questions[qid], state_b.questions[qid]
        status_a, status_b = qa.status(scorer_a), qb.status(scorer_b)
        kind = qa.planned.kind
        if status_a != "judged" or status_b != "judged":
            excluded.append(ExcludedQuestion(question_id=qid, kind=kind, status_a=status_a, status_b=status_b))
            continue
        assert scorer_a is not None and scorer_b is not None  # both questions are judged, so both scorers exist
        pairs.append((kind, qid, _correct(qa, scorer_a), _correct(qb, scorer_b)))
    excluded += [ExcludedQuestion(question_id=q, kind=state_a.questions[q].planned.kind,
                                  status_a=state_a.questions[q].status(scorer_a), status_b="absent")
                 for q in only_a]
    excluded += [ExcludedQuestion(question_id=q, kind=state_b.questions[q].planned.kind,
                                  status_a="absent", status_b=state_b.questions[q].status(scorer_b))
                 for q in only_b]
    kinds = sorted({state_a.questions[q].planned.kind for q in shared})
    return RunDiff(
        run_a=state_a.run_id, run_b=state_b.run_id,
        config=config_differences(state_a.started, state_b.started), scorer_a=scorer_a, scorer_b=scorer_b,
        fingerprint_a=plans.fingerprint_a, fingerprint_b=plans.fingerprint_b,
        different_corpora=plans.different_corpora, different_questions=plans.different_questions,
        only_in_a=only_a, only_in_b=only_b, changed_questions=plans.changed,
        overall=_slice([p[1:] for p in pairs], resamples, seed),
        by_kind={kind: _slice([p[1:] for p in pairs if p[0] == kind], resamples, seed) for kind in kinds},
        excluded=excluded, bootstrap_seed=seed, bootstrap_resamples=resamples, diff_version=DIFF_VERSION,
    )


def _identity(question: QuestionState) -> tuple[str, str, str]:
    planned = question.planned
    return planned.kind, planned.text, planned.gold


def _correct(question: QuestionState, scorer: str) -> int:
    return int(question.judged[scorer].verdict == "correct")


def _slice(rows: list[tuple[str, int, int]], resamples: int, seed: int) -> DiffSlice:
    n = len(rows)
    a = [x for _, x, _ in rows]
    b = [y for _, _, y in rows]
    correct_to_wrong = [qid for qid, x, y in rows if x and not y]
    wrong_to_correct = [qid for qid, x, y in rows if y and not x]
    if n == 0:
        return DiffSlice(paired=0, correct_a=0, correct_b=0, accuracy_a=None, accuracy_b=None, difference=None,
                         ci_low=None, ci_high=None, mcnemar_p=None, correct_to_wrong=[], wrong_to_correct=[])
    difference, low, high = paired_bootstrap_diff(a, b, resamples=resamples, seed=seed)
    return DiffSlice(
        paired=n, correct_a=sum(a), correct_b=sum(b), accuracy_a=sum(a) / n, accuracy_b=sum(b) / n,
        difference=difference, ci_low=low, ci_high=high,
        mcnemar_p=mcnemar_exact(len(correct_to_wrong), len(wrong_to_correct)),
        correct_to_wrong=correct_to_wrong, wrong_to_correct=wrong_to_correct,
    )


def _refuse_if_different(state_a: RunState, state_b: RunState, plans: PlanComparison) -> None:
    problems = []
    if plans.different_corpora:
        problems.append(f"different corpora (fingerprint {_short(plans.fingerprint_a)} vs "
                        f"{_short(plans.fingerprint_b)})")
    if plans.different_questions:
        problems.append(f"different planned questions ({len(plans.only_in_a)} only in {state_a.run_id}, "
                        f"{len(plans.only_in_b)} only in {state_b.run_id}, {len(plans.changed)} changed)")
    if problems:
        raise BadInput(f"runs {state_a.run_id} and {state_b.run_id} are not comparable: "
                       + "; ".join(problems) + "; pass --allow-different to compare them anyway")


def _short(fingerprint: str | None) -> str:
    return fingerprint[:12] if fingerprint else "none"
