"""Rejudge: judge a run's recorded answers again under a new scorer, with no answer-model call.

The questions, gold answers and released prompts come from the ledger itself (QuestionsPlanned and
the prompt blobs saved at RunStarted), so rejudging needs neither the corpus nor the memory system.
The new Judged events carry the new scorer id; the old ones stay, and reports pick a scorer.

`--protocol official` rescores with the benchmark's official scorer (LoCoMo's token F1 asks no
model at all): its templates come from the run when it recorded them, else from the prompts folder
(checked by SHA-256), and are kept as blobs with the new scorer, so `--continue` needs no files.
"""

from __future__ import annotations

import structlog

from pathlib import Path

from benchledger.adapters.benchmarks.base import Dataset, Prompts, ReleaseFacts
from benchledger.adapters.benchmarks.registry import Benchmark, benchmark_for_run
from benchledger.adapters.models.base import JudgeModel, judge_asks_model
from benchledger.adapters.models.factory import build_models, model_context
from benchledger.adapters.models.offline import OFFLINE_ANSWERER
from benchledger.adapters.models.probe import probe_endpoint
from benchledger.adapters.models.response_cache import ledger_cache
from benchledger.callbacks import Progress, Redact, no_progress, no_redaction
from benchledger.errors import BadInput, ConcurrencyConflict
from benchledger.ledger.events import ScorerContinued
from benchledger.ledger.recorder import EventReader, Recorder
from benchledger.orchestration.asker import QuestionAsker, QuestionJob
from benchledger.orchestration.reports import refold_views
from benchledger.orchestration.scorers import scorer_started
from benchledger.orchestration.runner import model_endpoint
from benchledger.projections.state import RunState, fold_run
from benchledger.settings import DECLARED_PROTOCOLS, Overrides, Protocol, RunSettings

__all__ = ["dataset_from_plan", "judge_of_scorer", "recorded_templates", "rejudge_run", "save_views"]

log = structlog.get_logger("benchledger.rejudge")


def _prompts(reader: EventReader, state: RunState) -> Prompts | None:
    assert state.started is not None
    hashes = state.started.config.reference_prompt_hashes
    if not hashes:
        return None
    return Prompts(agent_system=reader.get_blob(hashes["agent_system"]).decode(),
                   judge_system=reader.get_blob(hashes["judge_system"]).decode())


def recorded_templates(reader: EventReader, benchmark: Benchmark, state: RunState,
                       hashes: dict[str, str] | None = None) -> dict[str, str] | None:
    """The official templates the run (or, with `hashes`, one scorer) recorded, read from blobs."""
    if benchmark.official is None or state.started is None:
        return None
    return benchmark.official.templates_from(
        state.started.config.prompt_hashes if hashes is None else hashes, reader.get_blob)


def _official_scorer(ledger: Recorder, benchmark: Benchmark, state: RunState, settings: RunSettings, *,
                     judge_model: str | None, judge_models: tuple[str, ...], prompts_dir: Path | None,
                     method: str | None, scorer_hashes: dict[str, str] | None, cached: bool = True) -> JudgeModel:
    """The benchmark's official scorer (or, continuing, the scorer of `method`) over its templates,
    asking at the endpoint `settings` name (answered from the ledger's response cache unless not `cached`)."""
    official = benchmark.official
    if official is None:
        raise BadInput(f"{benchmark.name} declares no official scorer of its own", field="protocol")
    assert state.started is not None
    wanted = method or official.official_method
    if wanted not in official.scorer_methods:
        raise BadInput(f"{benchmark.name}'s official protocol has no scorer {wanted!r}", field="continue")
    templates = (recorded_templates(ledger.reader, benchmark, state, scorer_hashes) if scorer_hashes else None) \
        or recorded_templates(ledger.reader, benchmark, state)
    if templates is None and wanted not in official.template_free_methods:
        templates = official.read_templates(
            prompts_dir or benchmark.default_prompts_dir(Path(state.started.config.corpus_path)))
    context = model_context(
        agent_model=OFFLINE_ANSWERER, judge_model=judge_model or settings.judge_model,
        judge_models=judge_models or settings.judge_models, calls=settings.model_calls,
        cache=ledger_cache(ledger) if cached else None)
    return official.scorer(context, templates or {}, wanted)


def dataset_from_plan(reader: EventReader, state: RunState) -> Dataset:
    """A corpus-free Dataset holding the run's planned questions and its release prompts."""
    assert state.started is not None and state.plan is not None and state.corpus is not None
    cfg = state.started.config
    return Dataset(benchmark=cfg.benchmark, subset=cfg.subset, adapter_version=state.corpus.adapter_version,
                   source=cfg.corpus_path, scopes={}, questions=state.plan.questions,
                   prompts=_prompts(reader, state), selection=cfg.selection,
                   release=ReleaseFacts(documents_available=state.corpus.documents_available,
                                        questions_available=state.plan.available,
                                        kinds_available=state.plan.kinds_available))


def judge_of_scorer(ledger: Recorder, state: RunState, scorer_id: str, settings: RunSettings,
                    dataset: Dataset, *, cached: bool = True) -> JudgeModel:
    """The judge of a recorded scorer, rebuilt to ask exactly as it asked: its model (or voting
    judges), protocol, method and recorded templates, at the endpoint `settings` name; with `cached`
    False it never answers from the ledger's response cache (a spot check must ask the provider)."""
    scorer = state.scorers[scorer_id]
    assert state.started is not None
    if scorer.protocol in DECLARED_PROTOCOLS or scorer.method:
        benchmark = benchmark_for_run(state.started.config.benchmark)
        if benchmark is None:
            raise BadInput(f"run {state.run_id}'s benchmark has no installed adapter to rebuild scorer "
                           f"{scorer_id}", field="scorer")
        return _official_scorer(
            ledger, benchmark, state, settings, judge_model=None if scorer.judge_models else scorer.judge_model,
            judge_models=scorer.judge_models, prompts_dir=None, method=scorer.method or None,
            scorer_hashes=scorer.prompt_hashes, cached=cached)
    _, judge = build_models(
        agent_model=OFFLINE_ANSWERER, judge_model=scorer.judge_model, protocol=scorer.protocol,  # type: ignore[arg-type]
        calls=settings.model_calls, cache=ledger_cache(ledger) if cached else None, prompts=dataset.prompts)
    return judge


def _rejudge_run(ledger: Recorder, run_id: str, *, judge_model: str | None = None,
                 protocol: Protocol | None = None, overrides: Overrides = Overrides(),
                 continue_scorer: str | None = None, judge_models: tuple[str, ...] = (),
                 prompts_dir: Path | None = None, redact: Redact = no_redaction,
                 progress: Progress = no_progress) -> str:
    """Append a scorer's verdicts on every recorded answer; returns its id.

    A new scorer by default; `continue_scorer` finishes an existing one (an interrupted rejudge)
    with the judge and protocol it recorded, judging only what it has not judged yet. Settings not
    in `overrides` are the run's recorded ones.
    """
    state = fold_run(run_id, ledger.reader.events(run_id))
    if state.started is None or state.plan is None or state.corpus is None:
        raise BadInput(f"run {run_id} has no recorded plan to rejudge", field="run")
    state.require_answers("rejudge")
    recorded = state.started.config.settings
    dataset = dataset_from_plan(ledger.reader, state)
    if continue_scorer is not None:
        if continue_scorer not in state.scorers:
            raise BadInput(f"run {run_id} has no scorer {continue_scorer!r} (its scorers: "
                           f"{', '.join(state.scorers) or 'none'})", field="continue")
        if judge_model or judge_models or protocol:
            raise BadInput("--continue uses the scorer's recorded judge and protocol; drop --judge-model "
                           "and --protocol", field="continue")
        scorer = state.scorers[continue_scorer]
        judge_model = None if scorer.offline or scorer.judge_models else scorer.judge_model
        judge_models = scorer.judge_models
        protocol = scorer.protocol  # type: ignore[assignment]
    settings = overrides.applied_to(recorded)
    benchmark = benchmark_for_run(state.started.config.benchmark)
    protocol = protocol or recorded.protocol or "typed"
    if protocol == "official":
        if benchmark is None:
            raise BadInput(f"run {run_id} is a run of {state.started.config.benchmark}, which has no installed "
                           f"adapter to name its official scorer", field="protocol")
        protocol = benchmark.check_protocol("official")  # GroupMemBench's official protocol is reference
    official_method = benchmark.official.recorded_official_method if benchmark and benchmark.official else None
    judge: JudgeModel
    if protocol in DECLARED_PROTOCOLS:
        assert benchmark is not None
        continued = state.scorers[continue_scorer] if continue_scorer else None
        judge = _official_scorer(
            ledger, benchmark, state, settings,
            judge_model=judge_model, judge_models=judge_models, prompts_dir=prompts_dir,
            method=continued.method if continued else None,
            scorer_hashes=continued.prompt_hashes if continued else None)
    else:
        _, judge = build_models(
            agent_model=OFFLINE_ANSWERER, judge_model=judge_model or recorded.judge_model or recorded.agent_model,
            protocol="reference" if protocol == "reference" else "typed",
            calls=settings.model_calls, cache=ledger_cache(ledger), prompts=dataset.prompts)
    endpoint = None
    if judge_asks_model(judge):  # probed first: the endpoint records the certificate the probe verified
        probe_endpoint(settings.base_url, settings.api_key_env)
        endpoint = model_endpoint(settings)
    scorer_id = continue_scorer or f"s{len(state.scorers) + 1}"
    earlier = [f.attempt for q in state.questions.values() for f in q.failures if f.scorer_id == scorer_id]
    attempt = max([len(state.resumes) + 1, *(a + 1 for a in earlier)])
    if continue_scorer is None:
        templates = [text.encode("utf-8") for text in (getattr(judge, "templates", {}) or {}).values()]
        started = ledger.writer.append(run_id, [scorer_started(scorer_id, judge, protocol, endpoint, official_method)],
                                       blobs=templates)
        if not started:  # the id was taken meanwhile: never file this judge's verdicts under another's
            raise ConcurrencyConflict(f"scorer {scorer_id} of run {run_id} was started by another process; retry")
    else:
        continuations = sum(1 for s in ledger.reader.events(run_id, types=["ScorerContinued"])
                            if getattr(s.event, "scorer_id", None) == scorer_id)
        attempt = max(attempt, continuations + 2)
        ledger.writer.append(run_id, [ScorerContinued(scorer_id=scorer_id, attempt=attempt, endpoint=endpoint)])
    state = fold_run(run_id, ledger.reader.events(run_id))
    job = QuestionJob(ledger=ledger, run_id=run_id, dataset=dataset, memory=None, answer_model=None,
                      judge_model=judge, scorer_id=scorer_id, k=recorded.k, token_budget=recorded.token_budget,
                      concurrency=settings.concurrency, attempt=attempt,
                      redact=redact, progress=progress, judge_only=True)
    QuestionAsker(job).run(state)
    save_views(ledger, run_id)
    return scorer_id


def save_views(ledger: Recorder, run_id: str) -> None:
    """Save the run's views as its events stand now, at its last position (no event is appended): a
    scorer added after the run finished then shows where saved views are read (`runs`, the SQL
    `default_scorers`), and `verify` holds them to the events like any other."""
    stored = ledger.reader.events(run_id)
    views = [(name, version, value) for name, (version, value) in refold_views(run_id, stored).items()]
    ledger.writer.append(run_id, [], views=views, expected_position=stored[-1].position)


def rejudge_run(ledger: Recorder, run_id: str, **kwargs: object) -> str:
    """Append a scorer's verdicts on every recorded answer, holding the run's writer lock."""
    with ledger.writer.run_writer(run_id):
        return _rejudge_run(ledger, run_id, **kwargs)  # type: ignore[arg-type]
