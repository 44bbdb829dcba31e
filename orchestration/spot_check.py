"""`verify RUN --spot-check N [--seed S]`: recorded answer and judge requests sent again to the provider.

A run's answers and verdicts are what its endpoint replied, as the runner's machine recorded them. A
third party holding a key for the same provider re-sends a sample and sees whether the provider
says the same:

- the draw: `random.Random(seed).sample` of N questions (all of them when fewer) among those with a
  recorded answer, a recorded context (the candidates the memory returned, kept as a blob) and a
  verdict of the scorer checked (the report's own unless `--scorer`), in planned order first, so the
  same seed over the same run draws the same questions;
- per drawn question, two requests, built exactly as the run built them: the answer request (the
  run's answer model, protocol and templates over the recorded candidates and question) and the
  judge request (the scorer's judge, rebuilt by `rejudge.judge_of_scorer`, over the recorded answer
  and gold). Neither is ever answered from the ledger's response cache: a cached reply is the
  recorded one, and would agree by construction;
- the provider is where the run's calls went (its recorded base URL and key variable) unless
  `--base-url` / `--api-key-env` name another; it is probed first, and the endpoint is recorded with
  what the probe saw of its TLS, the key's variable name and never its value.

Each reply is compared with what the run recorded (`projections.checks`: answers by their text with
case, spacing and punctuation set aside, verdicts by the verdict), a failed call is a failure and
never a disagreement, and the whole is one `SpotChecked` event (`orchestration.checks`), which
changes no score. An offline model or a rule that asks no model has nothing to send again: that
stage is left out, and a run with neither stage asking a model is refused.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from benchledger import __version__
from benchledger.adapters.benchmarks.registry import benchmark_named
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.base import Answer, judge_asks_model
from benchledger.adapters.models.probe import probe_endpoint
from benchledger.callbacks import Progress, Redact, no_progress, no_redaction
from benchledger.clock import now_iso
from benchledger.errors import BadInput
from benchledger.ledger.events import cap_message
from benchledger.ledger.events.checks import SpotChecked, SpotItem
from benchledger.ledger.recorder import Recorder
from benchledger.orchestration.checks import append_check, checker_name
from benchledger.orchestration.rejudge import dataset_from_plan, judge_of_scorer, recorded_templates
from benchledger.orchestration.reports import with_headline
from benchledger.orchestration.runner import model_endpoint
from benchledger.orchestration.session import open_models
from benchledger.projections.state import QuestionState, fold_run
from benchledger.redaction import safe_message
from benchledger.settings import Overrides

__all__ = ["spot_check", "same_answer"]

_FOLD = re.compile(r"[\W_]+", re.UNICODE)


def same_answer(a: str, b: str) -> bool:
    """The same answer once case, spacing and punctuation are set aside."""
    return _FOLD.sub(" ", a.casefold()).strip() == _FOLD.sub(" ", b.casefold()).strip()


def _population(questions: dict[str, QuestionState], scorer: str) -> list[str]:
    return [qid for qid, q in questions.items()
            if q.answered is not None and q.recalled is not None and q.recalled.candidates_hash
            and scorer in q.judged]


def spot_check(ledger: Recorder, run_ref: str, n: int, *, seed: int = 0, scorer_id: str | None = None,
               overrides: Overrides = Overrides(), checked_by: str | None = None, redact: Redact = no_redaction,
               progress: Progress = no_progress) -> tuple[str, SpotChecked]:
    """Send a seeded draw of `n` recorded questions' answer and judge requests again; record and return the check."""
    if n < 1:
        raise BadInput(f"--spot-check takes how many questions to draw (at least 1), not {n}", field="spot_check")
    run_id = ledger.reader.resolve_run(run_ref)
    state = with_headline(fold_run(run_id, ledger.reader.verified_events(run_id)))
    if state.started is None or state.plan is None or state.corpus is None:
        raise BadInput(f"run {run_id} has no recorded plan to spot-check", field="run")
    state.require_answers("spot-check")
    scorer = scorer_id or state.default_scorer
    if scorer is None or scorer not in state.scorers:
        raise BadInput(f"run {run_id} has no scorer {scorer_id!r} (its scorers: {', '.join(state.scorers) or 'none'})",
                       field="scorer")
    population = _population(state.questions, scorer)
    if not population:
        raise BadInput(f"run {run_id} has no answered question with a recorded context and a verdict of scorer "
                       f"{scorer}: nothing to send again", field="spot_check")
    drawn = random.Random(seed).sample(population, min(n, len(population)))

    cfg = state.started.config
    settings = overrides.applied_to(cfg.settings)
    if overrides.base_url is None and cfg.endpoint is not None:  # where the run's own calls went
        settings = settings.with_changes(base_url=cfg.endpoint.base_url,
                                         api_key_env=overrides.api_key_env or cfg.endpoint.api_key_env)
    benchmark = benchmark_named(cfg.benchmark)
    dataset = dataset_from_plan(ledger.reader, state)
    answerer = open_models(None, settings, dataset, benchmark=benchmark, probe=False,
                           templates=recorded_templates(ledger.reader, benchmark, state)).answer
    judge = judge_of_scorer(ledger, state, scorer, settings, dataset, cached=False)
    ask_answers, ask_verdicts = not answerer.offline, judge_asks_model(judge) and not judge.offline
    if not (ask_answers or ask_verdicts):
        raise BadInput(f"run {run_id}'s answers and verdicts came from deterministic offline models or a rule: "
                       "there is no provider to send them to again", field="spot_check")
    probe_endpoint(settings.base_url, settings.api_key_env)  # one line, exit 2, before anything is sent
    endpoint = model_endpoint(settings)

    def answer_again(qid: str) -> SpotItem:
        q = state.questions[qid]
        assert q.answered is not None and q.recalled is not None
        candidates = [Candidate.model_validate(c) for c in json.loads(ledger.reader.get_blob(q.recalled.candidates_hash))]
        got = answerer.answer(q.planned, candidates, dataset.prompts)
        return SpotItem(question_id=qid, stage="answer", recorded=cap_message(q.answered.answer, 500),
                        again=cap_message(got.answer, 500), agrees=same_answer(got.answer, q.answered.answer),
                        model=got.model)

    def judge_again(qid: str) -> SpotItem:
        q = state.questions[qid]
        assert q.answered is not None
        recorded = q.answered
        raw = ledger.reader.get_blob(recorded.raw_hash).decode()
        answer = Answer(answer=recorded.answer, abstained=recorded.abstained, raw=raw, model=recorded.model)
        got = judge.judge(q.planned, answer, dataset.prompts)
        was = q.judged[scorer].verdict
        return SpotItem(question_id=qid, stage="judge", recorded=was, again=got.verdict, agrees=got.verdict == was,
                        model=got.model)

    jobs: list[tuple[str, str, Callable[[str], SpotItem]]] = []
    for qid in drawn:
        if ask_answers:
            jobs.append((qid, "answer", answer_again))
        if ask_verdicts:
            jobs.append((qid, "judge", judge_again))
    done = [0]

    def one(job: tuple[str, str, Callable[[str], SpotItem]]) -> SpotItem:
        qid, stage, call = job
        try:
            return call(qid)
        except Exception as err:  # an operational failure: never a disagreement
            q = state.questions[qid]
            was = (cap_message(q.answered.answer, 500) if stage == "answer" and q.answered else q.judged[scorer].verdict)
            message = safe_message(redact(f"{type(err).__name__}: {err}"))
            return SpotItem(question_id=qid, stage=stage, recorded=was, agrees=None, error=message)
        finally:
            done[0] += 1
            progress("spot-check", done[0], len(jobs))

    with ThreadPoolExecutor(max_workers=max(1, settings.concurrency), thread_name_prefix="benchledger-spot") as pool:
        items = tuple(pool.map(one, jobs))
    fields = dict(checked_by=checker_name(checked_by), checked_at=now_iso(), checked_with=f"benchledger {__version__}",
                  endpoint=endpoint, agent_model=answerer.name if ask_answers else "(not asked: offline)",
                  judge_model=state.scorers[scorer].judge_model if ask_verdicts else "(not asked: no model)",
                  scorer_id=scorer, seed=seed, asked=n, population=len(population), items=items)
    made: list[SpotChecked] = []

    def make(check_id: str) -> SpotChecked:
        made.append(SpotChecked(check_id=check_id, **fields))
        return made[-1]

    check_id = append_check(ledger, run_id, make)
    return check_id, made[-1]
