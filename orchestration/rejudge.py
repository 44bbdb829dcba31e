"""Rejudge: judge a run's recorded answers again under a new scorer, with no answer-model call.

The questions, gold answers and released prompts come from the ledger itself (QuestionsPlanned and
the prompt blobs saved at RunStarted), so rejudging needs neither the corpus nor the memory system.
The new Judged events carry the new scorer id; the old ones stay, and reports pick a scorer.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from benchledger.adapters.benchmarks.base import Criterion, Dataset, Prompts, Question
from benchledger.adapters.models.factory import build_models
from benchledger.adapters.models.offline import OFFLINE_ANSWERER
from benchledger.errors import BadInput, ConcurrencyConflict
from benchledger.ledger.events import ScorerStarted
from benchledger.orchestration.ownership import run_writer
from benchledger.orchestration.questions import QuestionJob, ask_questions
from benchledger.adapters.models.response_cache import ledger_cache
from benchledger.projections.state import RunState, fold_run

__all__ = ["dataset_from_plan", "rejudge_run"]


def _prompts(ledger, state: RunState) -> Prompts | None:
    hashes = state.started.config.reference_prompt_hashes
    if not hashes:
        return None
    return Prompts(agent_system=ledger.get_blob(hashes["agent_system"]).decode(),
                   judge_system=ledger.get_blob(hashes["judge_system"]).decode())


def dataset_from_plan(ledger, state: RunState) -> Dataset:
    """A corpus-free Dataset holding the run's planned questions and its release prompts."""
    cfg = state.started.config
    questions = tuple(
        Question(question_id=p.question_id, kind=p.kind, text=p.text, asking_user=p.asking_user, gold=p.gold,
                 abstention=p.abstention, scope_key=p.scope_key, evidence=p.evidence,
                 question_time=datetime.fromisoformat(p.question_time) if p.question_time else None,
                 criteria=tuple(Criterion(**c) for c in p.criteria))
        for p in state.plan.questions
    )
    return Dataset(benchmark=cfg.benchmark, subset=cfg.subset, adapter_version=state.corpus.adapter_version,
                   source=cfg.corpus_path, scopes={}, questions=questions, prompts=_prompts(ledger, state))


def _rejudge_run(ledger, run_id: str, *, judge_model: str | None = None, protocol: str | None = None,
                 base_url: str | None = None, api_key_env: str | None = None, concurrency: int | None = None,
                 max_attempts: int = 6, continue_scorer: str | None = None,
                 redact: Callable[[str], str] = lambda s: s,
                 progress: Callable[[str, int, int], None] = lambda *a: None) -> str:
    """Append a scorer's verdicts on every recorded answer; returns its id.

    A new scorer by default; `continue_scorer` finishes an existing one (an interrupted rejudge)
    with the judge and protocol it recorded, judging only what it has not judged yet.
    """
    state = fold_run(run_id, ledger.events(run_id))
    if state.started is None or state.plan is None or state.corpus is None:
        raise BadInput(f"run {run_id} has no recorded plan to rejudge", field="run")
    state.require_answers("rejudge")
    cfg = state.started.config
    dataset = dataset_from_plan(ledger, state)
    if continue_scorer is not None:
        if continue_scorer not in state.scorers:
            raise BadInput(f"run {run_id} has no scorer {continue_scorer!r} (its scorers: "
                           f"{', '.join(state.scorers) or 'none'})", field="continue")
        if judge_model or protocol:
            raise BadInput("--continue uses the scorer's recorded judge and protocol; drop --judge-model "
                           "and --protocol", field="continue")
        recorded = state.scorers[continue_scorer]
        judge_model = None if recorded.offline else recorded.judge_model
        protocol = recorded.protocol
    protocol = protocol or cfg.protocol
    judge_name = judge_model or (None if cfg.judge_model.startswith("offline-") else cfg.judge_model)
    _, judge = build_models(
        agent_model=OFFLINE_ANSWERER, judge_model=judge_name, protocol=protocol,  # type: ignore[arg-type]
        base_url=base_url or cfg.base_url, api_key_env=api_key_env or cfg.extra.get("api_key_env", "OPENAI_API_KEY"),
        cache=ledger_cache(ledger), max_attempts=max_attempts, prompts=dataset.prompts)
    scorer_id = continue_scorer or f"s{len(state.scorers) + 1}"
    if continue_scorer is None:
        started = ledger.append(run_id, [ScorerStarted(
            scorer_id=scorer_id, judge_model=judge.name, protocol=protocol,
            prompt_hash=(getattr(judge, "prompt_hashes", {}) or {}).get("judge_system", ""),
            offline=judge.offline)])
        if not started:  # the id was taken meanwhile: never file this judge's verdicts under another's
            raise ConcurrencyConflict(f"scorer {scorer_id} of run {run_id} was started by another process; retry")
        state = fold_run(run_id, ledger.events(run_id))
    earlier = [f.attempt for q in state.questions.values() for f in q.failures if f.scorer_id == scorer_id]
    job = QuestionJob(ledger=ledger, run_id=run_id, dataset=dataset, memory=None, answer_model=None,  # type: ignore[arg-type]
                      judge_model=judge, scorer_id=scorer_id, k=cfg.k, token_budget=cfg.token_budget,
                      concurrency=concurrency or cfg.concurrency,
                      attempt=max([len(state.resumes) + 1, *(a + 1 for a in earlier)]),
                      redact=redact, progress=progress, judge_only=True)
    ask_questions(job, state)
    return scorer_id


def rejudge_run(ledger, run_id: str, **kwargs) -> str:
    """Append a scorer's verdicts on every recorded answer, holding the run's writer lock."""
    with run_writer(ledger, run_id):
        return _rejudge_run(ledger, run_id, **kwargs)
