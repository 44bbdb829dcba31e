"""The report: one value folded from a run's events, rendered as JSON or as a scorecard.

The report names the scorer it used (unless asked: the run's headline scorer, its first that meets
the benchmark's protocol, see `projections.headline`) and lists every other in one line, with the
scoring rule and the version of every projection, so two people folding the same events get the
same bytes.

Benchmark-specific fields are optional and left out of the dump when absent, so a report (and the
scorecard view saved with it) of any other benchmark is byte for byte what it was before them:
`fama` is set when planned questions carry Memora criteria (FAMA per question and per category,
folded with `projections.fama` from the scorer's `Judged.criteria`), and `sections` holds what a
benchmark's own folds add: its official statistics, printed as its official code prints them.
Those folds are the benchmark adapter's declaration (`Benchmark.sections`), passed in like its
publishable conditions, so this module knows no benchmark's rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from benchledger.errors import UnknownScorer, UnknownScoringRule
from benchledger.projections.corpus_state import CORPUS_STATE_VERSION, CorpusState, corpus_state
from benchledger.projections.memory_costs import memory_costs_summary
from benchledger.projections.fama import FAMA_VERSION, aggregate, score_question
from benchledger.projections.headline import Evaluation, ScorerLine, evaluation, scorer_verdicts
from benchledger.projections.gold_overlay import GOLD_OVERLAY_VERSION, CorrectedGold, corrected_golds
from benchledger.projections.checks import CHECKS_VERSION, RunCheck, run_checks
from benchledger.projections.judge_audit import JUDGE_AUDIT_VERSION, JudgeAudit, judge_audits
from benchledger.projections.publishable import PUBLISHABLE_VERSION, Check, Condition, evaluate_conditions
from benchledger.projections.releases import release_line
from benchledger.projections.state import FOLD_VERSION, RunState, Segment, fold_run
from benchledger.values import BenchmarkKind, Usage
from benchledger.projections.tallies import CURRENT_SCORING_RULE, SCORING_RULES, KindTally, tally
from benchledger.tables import fitted_to

__all__ = ["PROJECTION_VERSIONS", "REPORT_VERSION", "FailureRow", "SegmentRow", "Report", "Section", "SectionFold",
           "build_report", "report_from_state"]

REPORT_VERSION = 13
"""The core report's number as the report lists it among its projections' versions. A saved view does not
rest on it: the view's version is derived from the code (`projections.report_digest`: the core report's
code and shape, and the run's benchmark's conditions, sections and kind), so a change nobody bumps for
still makes older views stale (`projections.views.scorecard_version`), never tampering."""
PROJECTION_VERSIONS = {
    "fold": FOLD_VERSION, "corpus_state": CORPUS_STATE_VERSION, "publishable": PUBLISHABLE_VERSION,
    "report": REPORT_VERSION,
}


class FailureRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    stage: str
    question_id: str | None
    kind: str | None
    error_class: str
    message: str
    attempt: int


class SegmentRow(BaseModel):
    """One segment of the run as the report shows it: where its calls went and what answered."""

    model_config = ConfigDict(frozen=True)

    label: str
    endpoint: str
    """The base URL (credentials stripped), "openai default", "offline", or "not recorded"."""
    api_key_env: str | None
    agent_model: str | None
    judge_model: str | None
    reported_models: list[str]
    """Models the endpoint reported for this segment's answers and verdicts."""
    memory: str | None
    """The memory system as "name version [url]" (None when the segment asked no memory)."""


class Section(BaseModel):
    """One benchmark's own statistics in a report, as its official code computes and prints them."""

    model_config = ConfigDict(frozen=True)

    name: str
    """The section's id ("locomo.official", "memora.fama", ...)."""
    title: str
    """One line saying what the numbers are and which scorer and rule produced them."""
    scorer_id: str | None = None
    """The scorer whose verdicts the section folds (None when it folds recalls only)."""
    official: bool = False
    """True when these are the benchmark's own numbers for its official scorer."""
    values: dict[str, Any]
    """The numbers, for --json and exports."""
    lines: list[str]
    """The section as printed (the official printout where the benchmark has one)."""
    headline: float | None = None
    """The benchmark's own overall number for this scorer (0-1), where it is not the share of
    correct verdicts: LoCoMo's mean token F1 over every category, Memora's FAMA / 100."""
    headline_metric: str | None = None
    """What `headline` measures, in a few words ("LoCoMo token F1", "Memora FAMA")."""


SectionFold = Callable[[RunState, "str | None"], "Section | None"]
"""(run state, the report's scorer) -> the benchmark's section, or None when it has nothing to say."""


class Report(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_id: str
    """The run's id."""
    benchmark: str | None
    """The benchmark's name as the run recorded it ("GroupMemBench"); None without a RunStarted."""
    kind: BenchmarkKind | None = None
    """What the benchmark scores, as its adapter declares it (recall, answer, action); None when no adapter
    is installed. An action benchmark's score is never a retrieval figure."""
    subset: str | None
    """GroupMemBench domain, LoCoMo or LongMemEval file stem, Memora split."""
    fingerprint: str | None
    """The release's corpus fingerprint (CorpusFingerprinted); None until recorded."""
    status: Literal["publishable", "diagnostic"]
    """"publishable" when every condition is met, else "diagnostic"."""
    publishable: bool
    """True when every condition in `conditions` is met."""
    conditions: list[Condition]
    """The benchmark's publishable conditions, each met or not with its reason, in order."""
    score: float | None = None
    """The run's headline number (what `runs` lists): the benchmark's own overall number for the
    scorer where its adapter declares one (a section's `headline`), else `accuracy`."""
    metric: str = "accuracy"
    """What `score` measures: "accuracy" (over judged questions) or the section's `headline_metric`."""
    accuracy: float | None
    """Correct verdicts over judged questions (for a graded scorer such as LoCoMo's token F1, a
    verdict is correct only at the full score; `score` is then the benchmark's own number)."""
    ci_low: float | None
    """Lower bound of the Wilson 95% interval around `accuracy`."""
    ci_high: float | None
    """Upper bound of the Wilson 95% interval around `accuracy`."""
    strict_accuracy: float | None
    """Correct verdicts over planned questions (an unjudged question counts as not correct)."""
    total: int
    """Planned questions."""
    answered: int
    """Planned questions with a recorded answer."""
    judged: int
    """Answered questions this scorer judged."""
    correct: int
    """Questions this scorer judged correct (under the scoring rule)."""
    incorrect: int
    """Questions this scorer judged incorrect."""
    unclear: int
    """Questions this scorer judged unclear (rule 1: judged, not correct; rule 2: left out of accuracy)."""
    failed: int
    """Questions whose latest failure no later success resolved (operational, never wrong answers)."""
    pending: int
    """Questions neither judged nor failed (a run still going, or stopped)."""
    by_kind: dict[str, KindTally]
    """The same tallies per question kind."""
    agent_model: str | None
    """The model that answered, as the run was configured."""
    judge_model: str | None
    """This scorer's judge model (the run's configured one when the scorer is unknown)."""
    offline_models: bool
    """True when the run used the deterministic offline models (always diagnostic)."""
    scorer_id: str | None
    """The scorer this report counts (the run's default scorer unless one was asked for)."""
    scorers: list[str]
    """Every scorer the run holds, in start order."""
    scorer_lines: list[ScorerLine] = []
    """Every scorer in one line each (judge, when added, headline number, its own failures), the one the
    report leads with marked (`projections.headline`: the first that meets the benchmark's protocol)."""
    scoring_rule: int
    """The scoring rule the tallies used (`projections.tallies.SCORING_RULES`)."""
    memory: str | None
    """The memory system under test, by its registered name."""
    memory_version: str | None
    """The memory system's version as the run recorded it."""
    memory_options: dict[str, str] = {}
    """The memory system's recorded options (mem0's infer, granularity, models, ...)."""
    memory_model: str | None = None
    """The model the memory system itself reported using, if any."""
    memory_calls: dict[str, Any] | None = None
    """The memory's own model calls from its MemoryModelCalled events: per stage calls, tokens, seconds."""
    pacing: list[dict[str, Any]] = []
    """Each segment's `EndpointPaced` (how its model calls were paced at the endpoint), as recorded."""
    tokens_by_stage: dict[str, dict[str, int]] = {}
    """answer, judge (the report's scorer), memory: {calls, prompt_tokens, completion_tokens} as the
    endpoint reported them (a cached reply counts what it first cost); `impossible`, only where some
    did, counts calls whose reply claimed a negative count (their tokens are left out of the sums)."""
    forecast_by_stage: dict[str, dict[str, int]] = {}
    """answer, judge: {calls, prompt_tokens, completion_tokens} as forecast before the run (RunForecast)."""
    protocol: str | None
    """The scorer's protocol (the run's, unless a rejudge used another)."""
    base_url: str | None = None
    """The OpenAI-compatible endpoint the run's models were asked at (None: the SDK default or offline)."""
    release: str = ""
    """The release the run read, in one line a third party can check it by (`projections.releases`)."""
    k: int | None
    """How many candidates recall asked the memory for."""
    token_budget: int | None
    """The packed context's token budget."""
    corpus_state: CorpusState
    """Documents imported vs expected and chunks pending, per scope (`projections.corpus_state`)."""
    run_status: str
    """completed, aborted or unfinished."""
    run_reason: str
    """Why the run finished as it did (empty while unfinished)."""
    failures: list[FailureRow]
    """Unresolved operational failures."""
    failures_by_error: dict[str, int]
    """Unresolved failures counted by error class, most common first."""
    failures_retried: int
    """Failures bearing on this scorer that a later success of their own stage resolved (a retry or a
    resume; a judge failure only by a verdict of its own scorer)."""
    ledger_head: str | None
    """The hash of the run's last event: the report is of the run as it stood there."""
    events: int
    """How many events were folded into it."""
    last_seq: int
    """The ledger seq of the last event folded."""
    projection_versions: dict[str, int]
    """The version of each fold that made it (and the scoring rule): a change re-folds."""
    segments: list[SegmentRow] = []
    """Every segment of the run (start, resumes, scorers) with its endpoint and models."""
    answers_from_cache: int = 0
    """Counted answers served by the ledger's response cache (no new model call)."""
    verdicts_from_cache: int = 0
    """This scorer's counted verdicts served by the ledger's response cache."""
    recalled_items: int = 0
    """Candidates recalled across the run's questions."""
    recalled_not_verbatim: int = 0
    """Recalled document candidates whose text does not occur in the ingested document they name."""
    recalled_fields_changed: int = 0
    """Recalled document candidates with a structural field (author, topic, time, ...) other than ingested."""
    recalled_derived: int = 0
    """Recalled candidates of derived text (fact, summary, ...), attributed to the documents they name."""
    recalled_unattributed: int = 0
    """Derived candidates naming no document: they count toward no evidence."""
    discarded_verdicts: int = 0
    """Verdicts on an answer other than the recorded one (a writer that lost a race); never counted."""
    recalls: int = 0
    """Questions recalled (each recall once)."""
    recalls_over_budget: int = 0
    """Recalls the memory returned past k or the token budget, which benchledger held to them."""
    truncated_candidates: int = 0
    """Candidates cut from those recalls (`ContextRecalled.truncated_candidates`, summed)."""
    truncated_tokens: int = 0
    """Their estimated tokens, summed."""
    fama: dict[str, Any] | None = None
    """Memora: FAMA overall, `by_category` and per question (`questions`), for this scorer."""
    sections: list[Section] | None = None
    """The benchmark's own statistics (its declared folds); None when it declares none."""
    judge_audits: list[JudgeAudit] | None = None
    """`audit judge` segments: per plant kind, the judge's false-accept / false-reject rate (never in
    the score); None when the run has none."""
    corrected_gold: list[CorrectedGold] | None = None
    """`rejudge --gold-overlay` segments: official and corrected-gold score, ceilings per kind (diagnostic,
    never the official score); None when the run has none."""
    checks: list[RunCheck] | None = None
    """Third-party checks appended to the run (`verify --against-source`, `verify --spot-check`): what
    each found, never in the score or the conditions; None when the run has none."""

    @model_serializer(mode="wrap")
    def _leave_out_absent_benchmark_fields(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        for name in ("fama", "sections", "judge_audits", "corrected_gold", "checks"):
            if isinstance(data, dict) and data.get(name, 0) is None:
                del data[name]
        return data


def _tokens_by_stage(state: RunState, scorer: str | None) -> dict[str, dict[str, int]]:
    """The tokens each stage's recorded calls used (stages with no recorded model call are left out)."""
    usages = {
        "answer": [q.answered.usage for q in state.questions.values() if q.answered is not None],
        "judge": [q.judged[scorer].usage for q in state.questions.values() if scorer in q.judged],
        "memory": [call.usage for call in state.memory_calls],
    }
    return {stage: _token_sums(used) for stage, used in usages.items()
            if any(u.prompt_tokens or u.completion_tokens for u in used)}


def _token_sums(used: list[Usage]) -> dict[str, int]:
    """Calls and tokens of one stage; a call claiming an impossible count is counted, its tokens are not."""
    counted = [u for u in used if not u.impossible]
    sums = {"calls": len(used), "prompt_tokens": sum(u.prompt_tokens for u in counted),
            "completion_tokens": sum(u.completion_tokens for u in counted)}
    if len(counted) < len(used):
        sums["impossible"] = len(used) - len(counted)
    return sums


def build_report(run_id: str, stored_events: Iterable[Any], *, conditions: Sequence[Check],
                 scorer_id: str | None = None, scoring_rule: int = CURRENT_SCORING_RULE,
                 sections: Sequence[SectionFold] = (), kind: BenchmarkKind | None = None) -> Report:
    """Fold a run's stored events into its report under its benchmark's conditions. Pure."""
    return report_from_state(fold_run(run_id, stored_events), conditions=conditions, scorer_id=scorer_id,
                             scoring_rule=scoring_rule, sections=sections, kind=kind)


def report_from_state(state: RunState, *, conditions: Sequence[Check], scorer_id: str | None = None,
                      scoring_rule: int = CURRENT_SCORING_RULE, sections: Sequence[SectionFold] = (),
                      kind: BenchmarkKind | None = None) -> Report:
    """The report of a folded run (under its headline scorer unless one is asked for); `conditions`,
    `sections` and `kind` are its benchmark's declarations. `UnknownScorer` / `UnknownScoringRule` (exit 2,
    translated by the CLI like every BadInput) when the run has no such scorer or the rule is unknown.

    The sections' tables are laid out at full width whatever the terminal's (a report is saved as a
    view and digested: it must not depend on who folded it where); the scorecard fits them on show."""
    with fitted_to(None):
        return _report_from_state(state, conditions=conditions, scorer_id=scorer_id, scoring_rule=scoring_rule,
                                  sections=sections, kind=kind)


def _report_from_state(state: RunState, *, conditions: Sequence[Check], scorer_id: str | None,
                       scoring_rule: int, sections: Sequence[SectionFold], kind: BenchmarkKind | None) -> Report:
    if scoring_rule not in SCORING_RULES:
        raise UnknownScoringRule(scoring_rule, known=tuple(sorted(SCORING_RULES)))
    if scorer_id is not None and scorer_id not in state.scorers:
        raise UnknownScorer(state.run_id, scorer_id, known=tuple(state.scorers))
    evaluated: dict[str, Evaluation] = {}
    plain = evaluation(state, conditions, sections, scoring_rule)

    def evaluate(scorer: str) -> Evaluation:
        if scorer not in evaluated:
            evaluated[scorer] = plain(scorer)
        return evaluated[scorer]

    verdicts = scorer_verdicts(state, evaluate)
    scorer = scorer_id or verdicts.headline
    overall, by_kind = tally(state, scorer, scoring_rule)
    if scorer is None:
        met = evaluate_conditions(state, overall, scorer, conditions)
        folded = [section for fold in sections if (section := fold(state, scorer)) is not None]
    else:
        _, met, folded = evaluate(scorer)
    publishable = all(c.met for c in met)
    failures = _unresolved_failures(state, scorer)
    cfg = state.started.config if state.started else None
    fama = _fama(state, scorer)
    judge_model = state.scorers[scorer].judge_model if scorer in state.scorers else (cfg.judge_model if cfg else None)
    finished = state.finished
    audits = judge_audits(state.audit_events, {qid: q.planned.kind for qid, q in state.questions.items()}) \
        if state.audit_events else []
    overlays = corrected_golds(state) if state.audit_events else []
    headline = next((section for section in folded
                     if section.scorer_id == scorer and section.headline is not None), None)
    return Report(
        run_id=state.run_id,
        benchmark=cfg.benchmark if cfg else None,
        kind=kind,
        subset=cfg.subset if cfg else None,
        fingerprint=state.corpus.fingerprint if state.corpus else None,
        status="publishable" if publishable else "diagnostic",
        publishable=publishable,
        conditions=met,
        score=overall.accuracy if headline is None else headline.headline,
        metric="accuracy" if headline is None else headline.headline_metric or headline.name,
        accuracy=overall.accuracy, ci_low=overall.ci_low, ci_high=overall.ci_high,
        strict_accuracy=overall.strict_accuracy,
        total=overall.planned, answered=overall.answered, judged=overall.judged,
        correct=overall.correct, incorrect=overall.incorrect, unclear=overall.unclear,
        failed=overall.failed, pending=overall.pending,
        by_kind=by_kind,
        agent_model=cfg.agent_model if cfg else None,
        judge_model=judge_model,
        offline_models=bool(cfg and cfg.offline_models),
        scorer_id=scorer,
        scorers=list(state.scorers),
        scorer_lines=verdicts.lines,
        scoring_rule=scoring_rule,
        memory=cfg.memory if cfg else None,
        memory_version=cfg.memory_version if cfg else None,
        memory_options=dict(cfg.settings.memory_options) if cfg else {},
        memory_model=cfg.memory_model if cfg else None,
        memory_calls=memory_costs_summary(state),
        pacing=[event.model_dump(exclude={"type", "schema_version"}) for event in state.pacing],
        tokens_by_stage=_tokens_by_stage(state, scorer),
        forecast_by_stage={stage: f.model_dump() for stage, f in state.forecast.stages.items()}
        if state.forecast is not None else {},
        protocol=state.scorers[scorer].protocol if scorer in state.scorers else (cfg.settings.protocol if cfg else None),
        base_url=cfg.settings.base_url if cfg else None,
        release=release_line(cfg.release_files) if cfg else "",
        k=cfg.settings.k if cfg else None,
        token_budget=cfg.settings.token_budget if cfg else None,
        corpus_state=corpus_state(state),
        run_status=finished.status if finished else "unfinished",
        run_reason=finished.reason if finished else "",
        failures=failures,
        failures_by_error=dict(Counter(f.error_class for f in failures).most_common()),
        failures_retried=state.resolved_failures(scorer),
        ledger_head=state.head,
        events=state.events,
        last_seq=state.last_seq,
        projection_versions={**PROJECTION_VERSIONS, "scoring_rule": scoring_rule,
                             **({"fama": FAMA_VERSION} if fama is not None else {}),
                             **({"judge_audit": JUDGE_AUDIT_VERSION} if audits else {}),
                             **({"gold_overlay": GOLD_OVERLAY_VERSION} if overlays else {}),
                             **({"checks": CHECKS_VERSION} if state.checks else {})},
        segments=[_segment_row(segment) for segment in state.segments],
        answers_from_cache=sum(1 for q in state.questions.values() if q.answered and q.answered.cache_hit),
        verdicts_from_cache=sum(1 for q in state.questions.values()
                                if scorer in q.judged and q.judged[scorer].cache_hit),
        recalled_items=sum(len(q.recalled.items) for q in state.questions.values() if q.recalled),
        recalled_not_verbatim=sum(1 for q in state.questions.values() if q.recalled
                                  for item in q.recalled.items if item.verbatim is False),
        recalled_fields_changed=sum(1 for q in state.questions.values() if q.recalled
                                    for item in q.recalled.items if item.changed_fields),
        recalled_derived=sum(1 for q in state.questions.values() if q.recalled
                             for item in q.recalled.items if item.kind != "document"),
        recalled_unattributed=sum(1 for q in state.questions.values() if q.recalled
                                  for item in q.recalled.items if not item.named()),
        discarded_verdicts=sum(len(q.discarded) for q in state.questions.values()),
        **_over_budget(state),
        fama=fama,
        sections=folded or None,
        judge_audits=audits or None,
        corrected_gold=overlays or None,
        checks=run_checks(state.checks) or None,
    )


def _over_budget(state: RunState) -> dict[str, int]:
    """How many recalls benchledger held to k and the budget, and what it cut (`orchestration.context`)."""
    recalled = [q.recalled for q in state.questions.values() if q.recalled is not None]
    return {"recalls": len(recalled),
            "recalls_over_budget": sum(1 for r in recalled if r.truncated_candidates),
            "truncated_candidates": sum(r.truncated_candidates for r in recalled),
            "truncated_tokens": sum(r.truncated_tokens for r in recalled)}


def _segment_row(segment: Segment) -> SegmentRow:
    if segment.offline:
        endpoint = "offline"
    elif segment.endpoint is None:
        endpoint = "not recorded"
    else:
        endpoint = segment.endpoint.base_url or "openai default"
    memory = segment.memory
    shown = None if memory is None else " ".join(p for p in (memory.name, memory.version, memory.url or "") if p)
    return SegmentRow(label=segment.label, endpoint=endpoint,
                      api_key_env=segment.endpoint.api_key_env if segment.endpoint and not segment.offline else None,
                      agent_model=segment.agent_model, judge_model=segment.judge_model,
                      reported_models=sorted(segment.reported_models), memory=shown)


def _fama(state: RunState, scorer: str | None) -> dict[str, Any] | None:
    """FAMA of the judged questions that carry criteria; None when no planned question has any."""
    if not any(q.planned.criteria for q in state.questions.values()):
        return None
    rows, questions = [], {}
    for question in state.questions.values():
        judged = question.judged.get(scorer) if scorer else None
        if judged is None or not question.planned.criteria:
            continue
        score = score_question(question.planned.criteria, judged.criteria)
        rows.append((question.planned.kind, score))
        if score is not None:
            questions[question.planned.question_id] = {
                "kind": question.planned.kind, "fama": score.fama, "mpa": score.mpa, "faa": score.faa,
                "weight": score.weight, "criteria": dict(judged.criteria)}
    return {**aggregate(rows), "questions": questions}


def _unresolved_failures(state: RunState, scorer: str | None) -> list[FailureRow]:
    rows = [
        FailureRow(stage=f.stage, question_id=None, kind=None, error_class=f.error_class,
                   message=f.message, attempt=f.attempt)
        for f in state.unresolved_run_failures
    ]
    for question in state.questions.values():
        failure = question.unresolved_failure(scorer)
        if failure is not None:
            rows.append(FailureRow(stage=failure.stage, question_id=question.planned.question_id,
                                   kind=question.planned.kind, error_class=failure.error_class,
                                   message=failure.message, attempt=failure.attempt))
    return rows
