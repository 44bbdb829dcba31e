"""Rejudge: judge a run's recorded answers again under a new scorer, with no answer-model call.

The questions, gold answers and released prompts come from the ledger itself (QuestionsPlanned and
the prompt blobs saved at RunStarted), so rejudging needs neither the corpus nor the memory system.
The new Judged events carry the new scorer id; the old ones stay, and reports pick a scorer.
"""

from __future__ import annotations

import structlog

from benchledger.adapters.benchmarks.base import Dataset, Prompts, ReleaseFacts
from benchledger.adapters.models.factory import build_models
from benchledger.adapters.models.offline import OFFLINE_ANSWERER
from benchledger.adapters.models.probe import probe_endpoint
from benchledger.adapters.models.response_cache import ledger_cache
from benchledger.callbacks import Progress, Redact, no_progress, no_redaction
from benchledger.errors import BadInput, ConcurrencyConflict
from benchledger.ledger.events import ScorerContinued, ScorerStarted
from benchledger.ledger.recorder import Recorder
from benchledger.orchestration.asker import QuestionAsker, QuestionJob
from benchledger.orchestration.ownership import run_writer
from benchledger.orchestration.session import endpoint_of
from benchledger.projections.state import RunState, fold_run
from benchledger.settings import Protocol

__all__ = ["dataset_from_plan", "rejudge_run"]

log = structlog.get_logger("benchledger.rejudge")


def _prompts(ledger: Recorder, state: RunState) -> Prompts | None:
    assert state.started is not None
    hashes = state.started.config.reference_prompt_hashes
    if not hashes:
        return None
    return Prompts(agent_system=ledger.get_blob(hashes["agent_system"]).decode(),
                   judge_system=ledger.get_blob(hashes["judge_system"]).decode())


def dataset_from_plan(ledger: Recorder, state: RunState) -> Dataset:
    """A corpus-free Dataset holding the run's planned questions and its release prompts."""
    assert state.started is not None and state.plan is not None and state.corpus is not None
    cfg = state.started.config
    return Dataset(benchmark=cfg.benchmark, subset=cfg.subset, adapter_version=state.corpus.adapter_version,
                   source=cfg.corpus_path, scopes={}, questions=state.plan.questions,
                   prompts=_prompts(ledger, state), selection=cfg.selection,
                   release=ReleaseFacts(documents_available=state.corpus.documents_available,
                                        questions_available=state.plan.available,
                                        kinds_available=state.plan.kinds_available))


def _rejudge_run(ledger: Recorder, run_id: str, *, judge_model: str | None = None,
                 protocol: Protocol | None = None, base_url: str | None = None, api_key_env: str | None = None,
                 concurrency: int | None = None, max_attempts: int | None = None,
                 continue_scorer: str | None = None, redact: Redact = no_redaction,
                 progress: Progress = no_progress) -> str:
    """Append a scorer's verdicts on every recorded answer; returns its id.

    A new scorer by default; `continue_scorer` finishes an existing one (an interrupted rejudge)
    with the judge and protocol it recorded, judging only what it has not judged yet. Settings not
    given are the run's recorded ones.
    """
    state = fold_run(run_id, ledger.events(run_id))
    if state.started is None or state.plan is None or state.corpus is None:
        raise BadInput(f"run {run_id} has no recorded plan to rejudge", field="run")
    state.require_answers("rejudge")
    recorded = state.started.config.settings
    dataset = dataset_from_plan(ledger, state)
    if continue_scorer is not None:
        if continue_scorer not in state.scorers:
            raise BadInput(f"run {run_id} has no scorer {continue_scorer!r} (its scorers: "
                           f"{', '.join(state.scorers) or 'none'})", field="continue")
        if judge_model or protocol:
            raise BadInput("--continue uses the scorer's recorded judge and protocol; drop --judge-model "
                           "and --protocol", field="continue")
        scorer = state.scorers[continue_scorer]
        judge_model = None if scorer.offline else scorer.judge_model
        protocol = scorer.protocol  # type: ignore[assignment]
    settings = recorded.with_changes(base_url=base_url, api_key_env=api_key_env, max_attempts=max_attempts)
    _, judge = build_models(
        agent_model=OFFLINE_ANSWERER, judge_model=judge_model or recorded.judge_model or recorded.agent_model,
        protocol=protocol or recorded.protocol or "typed",  # type: ignore[arg-type]
        base_url=settings.base_url, api_key_env=settings.api_key_env,
        cache=ledger_cache(ledger), timeout=settings.timeout,
        max_attempts=settings.max_attempts, backoff_base=settings.backoff_base,
        prompts=dataset.prompts)
    endpoint = None if judge.offline else endpoint_of(settings)
    if not judge.offline:
        probe_endpoint(settings.base_url, settings.api_key_env)
    scorer_id = continue_scorer or f"s{len(state.scorers) + 1}"
    earlier = [f.attempt for q in state.questions.values() for f in q.failures if f.scorer_id == scorer_id]
    attempt = max([len(state.resumes) + 1, *(a + 1 for a in earlier)])
    if continue_scorer is None:
        started = ledger.append(run_id, [ScorerStarted(
            scorer_id=scorer_id, judge_model=judge.name, protocol=protocol or recorded.protocol or "typed",
            prompt_hash=(getattr(judge, "prompt_hashes", {}) or {}).get("judge_system", ""),
            offline=judge.offline, endpoint=endpoint)])
        if not started:  # the id was taken meanwhile: never file this judge's verdicts under another's
            raise ConcurrencyConflict(f"scorer {scorer_id} of run {run_id} was started by another process; retry")
    else:
        continued = sum(1 for s in ledger.events(run_id, types=["ScorerContinued"])
                        if getattr(s.event, "scorer_id", None) == scorer_id)
        attempt = max(attempt, continued + 2)
        ledger.append(run_id, [ScorerContinued(scorer_id=scorer_id, attempt=attempt, endpoint=endpoint)])
    state = fold_run(run_id, ledger.events(run_id))
    job = QuestionJob(ledger=ledger, run_id=run_id, dataset=dataset, memory=None, answer_model=None,
                      judge_model=judge, scorer_id=scorer_id, k=recorded.k, token_budget=recorded.token_budget,
                      concurrency=concurrency or recorded.concurrency, attempt=attempt,
                      redact=redact, progress=progress, judge_only=True)
    QuestionAsker(job).run(state)
    return scorer_id


def rejudge_run(ledger: Recorder, run_id: str, **kwargs: object) -> str:
    """Append a scorer's verdicts on every recorded answer, holding the run's writer lock."""
    with run_writer(ledger, run_id):
        return _rejudge_run(ledger, run_id, **kwargs)  # type: ignore[arg-type]
