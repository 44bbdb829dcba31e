"""`audit judge`: ask a run's own judge about answers whose verdict is known, in a segment of its own.

The judge is the recorded scorer's, rebuilt exactly as it asked (`rejudge.judge_of_scorer`: its
model or voting judges, protocol, method and recorded templates), at the run's endpoint unless
another is given; a rule that asks no model (LoCoMo's token F1) is audited the same way, as its
rule scores the plants. Plants come from `audit_plants.derive_plants` over the run's own plan and
recalled contexts, or from a file (`--answers`): the LoCoMo audit's planted answers (mapped onto
the run's questions by `adapters.benchmarks.locomo.audit_files`), or a JSON list of
`{question_id, answer, expected?, kind?}` in the run's own ids.

The segment is `AuditStarted`; each verdict a `PlantJudged`, each operational failure a
`PlantFailed` (retried by running the audit again with `--continue`). None of them is an
answer or a verdict of the run: the score's fold never reads them (`projections.judge_audit`
does). The run's writer lock is held throughout, as a rejudge holds it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal, NamedTuple

import structlog

from benchledger.adapters.benchmarks.base import Dataset, Prompts
from benchledger.adapters.benchmarks.json_source import line_of, read_json
from benchledger.adapters.benchmarks.locomo import audit_files
from benchledger.adapters.models.base import Answer, JudgeModel, Verdict, judge_asks_model
from benchledger.adapters.models.abstention import is_abstention
from benchledger.adapters.models.probe import probe_endpoint
from benchledger.callbacks import Progress, Redact, no_progress, no_redaction
from benchledger.errors import BadInput, ConcurrencyConflict
from benchledger.ledger.events import AuditContinued, AuditStarted, Event, PlantFailed, PlantJudged, cap_message
from benchledger.ledger.recorder import EventReader, EventWriter, Recorder
from benchledger.orchestration.audit_plants import PLANTS_VERSION, Plant, derive_plants
from benchledger.orchestration.rejudge import dataset_from_plan, judge_of_scorer
from benchledger.orchestration.runner import model_endpoint
from benchledger.orchestration.reports import with_headline
from benchledger.projections.state import RunState, fold_run
from benchledger.redaction import safe_message
from benchledger.settings import Overrides
from benchledger.values import Question

__all__ = ["AskItem", "audit_judge", "ask_judge", "load_plants", "open_audit", "next_audit_id", "run_audit",
           "FILE_PLANTS_VERSION"]

log = structlog.get_logger("benchledger.audit")

FILE_PLANTS_VERSION = 1
"""Version of the reading of a planted-answers file onto a run's questions."""
_APPEND_EVERY = 64


class AskItem(NamedTuple):
    """One question put to the audited judge: an answer and the gold to judge it against."""

    plant_id: str
    question: Question
    """The run's question, with the gold the judge is shown."""
    kind: str
    answer: str
    expected: Literal["correct", "incorrect", "unknown"]
    """correct, incorrect, or unknown (a recorded answer against corrected gold)."""
    abstained: bool | None = None
    """Whether the answer abstains (None: read from its text, as the answer model's answers are)."""


class LoadedPlants(NamedTuple):
    plants: list[Plant]
    source: str
    sha256: str
    label: str
    pinned: bool
    version: int
    skipped: dict[str, int]
    reference: tuple[float | None, int] = (None, 0)
    """(accepted share, verdicts) of the file's own recorded judges over the plants asked."""


def _contexts(reader: EventReader, state: RunState) -> dict[str, str]:
    """question id -> the recalled context as the answer model saw it, for every answered question."""
    return {qid: reader.get_blob(q.recalled.context_hash).decode("utf-8", "replace")
            for qid, q in state.questions.items() if q.answered is not None and q.recalled is not None}


def _generic_plants(path: Path, value: object, text: str, state: RunState) -> tuple[list[Plant], dict[str, int]]:
    """A JSON list of {question_id, answer, expected?, kind?} in the run's own question ids."""
    if not isinstance(value, list):
        raise BadInput("expected the LoCoMo audit's planted answers or a JSON list of {question_id, answer, "
                       "expected, kind}", file=str(path), line=1)
    plants, skipped = [], 0
    seen: set[str] = set()
    for index, row in enumerate(value):
        if not isinstance(row, dict):
            raise BadInput("expected an object", file=str(path), line=line_of(text, (index,)), field=f"[{index}]")
        for name in ("question_id", "answer"):
            if not isinstance(row.get(name), str):
                raise BadInput("missing or not a string", file=str(path), line=line_of(text, (index,)),
                               field=f"[{index}].{name}")
        expected = row.get("expected", "incorrect")
        if expected not in ("correct", "incorrect"):
            raise BadInput("must be correct or incorrect", file=str(path), line=line_of(text, (index,)),
                           field=f"[{index}].expected")
        kind = row.get("kind", "planted")
        if not isinstance(kind, str) or not kind:
            raise BadInput("must be a non-empty string", file=str(path), line=line_of(text, (index,)),
                           field=f"[{index}].kind")
        qid = row["question_id"]
        plant_id = f"{kind}:{qid}"
        if plant_id in seen:
            raise BadInput(f"a second {kind} plant for question {qid}", file=str(path), line=line_of(text, (index,)),
                           field=f"[{index}].question_id")
        seen.add(plant_id)
        if qid not in state.questions:
            skipped += 1
            continue
        plants.append(Plant(plant_id, qid, kind, row["answer"], expected))
    return plants, ({"not a question of this run": skipped} if skipped else {})


def load_plants(reader: EventReader, state: RunState, answers: Path | None,
                plant_kind: str | None = None) -> LoadedPlants:
    """The plants of an audit: derived from the run, or read from `answers` (the LoCoMo audit's file's
    plants are of `plant_kind`, else of the kind its pinned hash names, else `planted_wrong`)."""
    if answers is None:
        derived = derive_plants(list(state.plan.questions) if state.plan else [], _contexts(reader, state))
        return LoadedPlants(derived.plants, "derived", "", "", False, PLANTS_VERSION, derived.skipped)
    value, text = read_json(answers)
    sha = hashlib.sha256(answers.read_bytes()).hexdigest()
    if not audit_files.is_audit_file(value):
        plants, skipped = _generic_plants(answers, value, text, state)
        return LoadedPlants(plants, str(answers), sha, f"{answers.name} (a planted-answers file)", False,
                            FILE_PLANTS_VERSION, skipped)
    planted = audit_files.read_planted_answers(answers)
    kind = plant_kind or audit_files.PINNED_KINDS.get(planted.sha256, "planted_wrong")
    plants, skipped = [], {}
    not_in_run = mismatched = 0
    recorded: list[bool] = []
    for row in planted.rows:
        question = state.questions.get(row.question_id)
        if question is None:
            not_in_run += 1
        elif question.planned.text.strip() != row.question.strip():
            mismatched += 1
        else:
            plants.append(Plant(f"{kind}:{row.question_id}", row.question_id, kind, row.answer, "incorrect"))
            recorded += row.judgments
    for reason, count in (("not a question of this run", not_in_run),
                          ("question text differs from the run's", mismatched),
                          ("outside locomo10.json", planted.not_mapped)):
        if count:
            skipped[reason] = count
    every_row_judged = bool(plants) and all(row.judgments for row in planted.rows)
    reference = (sum(recorded) / len(recorded), len(recorded)) if recorded and every_row_judged else (None, 0)
    return LoadedPlants(plants, str(answers), planted.sha256, planted.label, planted.pinned, FILE_PLANTS_VERSION,
                        skipped, reference)


def ask_judge(judge: JudgeModel, items: Sequence[AskItem], prompts: Prompts | None, *, concurrency: int,
              on_result: Callable[[AskItem, Verdict | BaseException], None]) -> None:
    """Ask `judge` about every item in a bounded pool; each result (or error) goes to `on_result`
    in the calling thread, in the items' order."""
    def one(item: AskItem) -> Verdict | BaseException:
        abstained = is_abstention(item.answer) if item.abstained is None else item.abstained
        answer = Answer(answer=item.answer, abstained=abstained, raw=item.answer, model="audit-plant")
        try:
            return judge.judge(item.question, answer, prompts)
        except Exception as err:  # an operational failure of the judge call: never a verdict
            return err

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="benchledger-audit") as pool:
        for item, result in zip(items, pool.map(one, items)):
            on_result(item, result)


def _judged(audit_id: str, item: AskItem, verdict: Verdict) -> tuple[PlantJudged, bytes]:
    raw = verdict.raw.encode()
    return PlantJudged(
        audit_id=audit_id, plant_id=item.plant_id, question_id=item.question.question_id, plant_kind=item.kind,
        answer=cap_message(item.answer, 2000), gold=cap_message(item.question.gold, 2000),
        expected=item.expected,
        verdict=verdict.verdict, score=verdict.score, reason=cap_message(verdict.reason, 2000), model=verdict.model,
        raw_hash=hashlib.sha256(raw).hexdigest() if raw else "", usage=verdict.usage, cache_hit=verdict.cache_hit,
        latency_ms=verdict.latency_ms), raw


def open_audit(ledger: Recorder, state: RunState, *, audit: str, scorer_id: str | None,
               overrides: Overrides) -> tuple[str, JudgeModel, Dataset, dict]:
    """The scorer to audit, its judge rebuilt, the run's corpus-free dataset (its release prompts), and
    the AuditStarted fields naming them and their endpoint. Without another `base_url` the judge asks
    where that scorer's own calls went."""
    if state.started is None or state.plan is None or state.corpus is None:
        raise BadInput(f"run {state.run_id} has no recorded plan to audit", field="run")
    state.require_answers(f"audit ({audit})")
    scorer = scorer_id or state.default_scorer
    if scorer is None or scorer not in state.scorers:
        raise BadInput(f"run {state.run_id} has no scorer {scorer_id!r} (its scorers: "
                       f"{', '.join(state.scorers) or 'none'})", field="scorer")
    settings = overrides.applied_to(state.started.config.settings)
    recorded = state.scorers[scorer]
    if overrides.base_url is None and recorded.endpoint is not None:  # where that scorer's own calls went
        settings = settings.with_changes(base_url=recorded.endpoint.base_url,
                                         api_key_env=overrides.api_key_env or recorded.endpoint.api_key_env)
    dataset = dataset_from_plan(ledger.reader, state)
    judge = judge_of_scorer(ledger, state, scorer, settings, dataset)
    asks = judge_asks_model(judge)
    endpoint = None
    if asks:  # probed first: the endpoint records the certificate the probe verified
        probe_endpoint(settings.base_url, settings.api_key_env)
        endpoint = model_endpoint(settings)
    fields = dict(audit=audit, scorer_id=scorer, judge_model=recorded.judge_model, protocol=recorded.protocol,
                  method=recorded.method, offline=judge.offline, model_free=not asks and not judge.offline,
                  endpoint=endpoint)
    return scorer, judge, dataset, fields


def next_audit_id(state: RunState) -> str:
    taken = {e.audit_id for e in state.audit_events if isinstance(e, AuditStarted)}
    return f"a{len(taken) + 1}"


def run_audit(writer: EventWriter, state: RunState, audit_id: str, judge: JudgeModel, items: Sequence[AskItem],
              *, prompts: Prompts | None, concurrency: int, attempt: int = 1, redact: Redact,
              progress: Progress) -> None:
    """Ask the judge about every item not yet judged in this audit; append verdicts and failures in groups."""
    done = {e.plant_id for e in state.audit_events if isinstance(e, PlantJudged) and e.audit_id == audit_id}
    todo = [item for item in items if item.plant_id not in done]
    pending: list[Event] = []
    blobs: list[bytes] = []
    counted = [0]

    def flush() -> None:
        if pending:
            writer.append(state.run_id, list(pending), blobs=list(blobs))
            pending.clear()
            blobs.clear()

    def on_result(item: AskItem, result: Verdict | BaseException) -> None:
        if isinstance(result, BaseException):
            message = safe_message(redact(f"{result}" or type(result).__name__))
            log.warning("audit judge call failed", plant=item.plant_id, error=type(result).__name__)
            pending.append(PlantFailed(audit_id=audit_id, plant_id=item.plant_id,
                                       question_id=item.question.question_id, plant_kind=item.kind,
                                       error_class=type(result).__name__, message=message, attempt=attempt))
        else:
            event, raw = _judged(audit_id, item, result)
            pending.append(event)
            if raw:
                blobs.append(raw)
        counted[0] += 1
        progress("audit", counted[0], len(todo))
        if len(pending) >= _APPEND_EVERY:
            flush()

    try:
        ask_judge(judge, todo, prompts, concurrency=concurrency, on_result=on_result)
    finally:
        flush()


def _items(state: RunState, plants: Iterable[Plant]) -> list[AskItem]:
    return [AskItem(p.plant_id, state.questions[p.question_id].planned, p.kind, p.answer, p.expected)
            for p in plants]


def _recorded_audit(state: RunState, audit_id: str) -> AuditStarted:
    started = next((e for e in state.audit_events if isinstance(e, AuditStarted)
                    and e.audit_id == audit_id and e.audit == "judge"), None)
    if started is None:
        raise BadInput(f"run {state.run_id} has no judge audit {audit_id!r}", field="continue")
    return started


def audit_judge(ledger: Recorder, run_id: str, *, scorer_id: str | None = None, answers: Path | None = None,
                plant_kind: str | None = None, overrides: Overrides = Overrides(), continue_audit: str | None = None,
                redact: Redact = no_redaction, progress: Progress = no_progress) -> str:
    """Plant answers with known verdicts, ask the run's judge about each, record them; returns the audit id.

    `continue_audit` finishes an interrupted audit with the scorer and plants it recorded, asking only
    what it has no verdict for yet (a file of plants must be unchanged: its SHA-256 is checked)."""
    with ledger.writer.run_writer(run_id):
        state = with_headline(fold_run(run_id, ledger.reader.events(run_id)))
        continued = _recorded_audit(state, continue_audit) if continue_audit is not None else None
        if continued is not None:
            scorer_id, plant_kind = continued.scorer_id, continued.plant_kind or None
            answers = None if continued.source == "derived" else Path(continued.source)
        scorer, judge, dataset, fields = open_audit(ledger, state, audit="judge", scorer_id=scorer_id,
                                                    overrides=overrides)
        loaded = load_plants(ledger.reader, state, answers, plant_kind)
        if not loaded.plants:
            raise BadInput(f"nothing to plant in run {run_id}: {json.dumps(loaded.skipped)}", field="answers")
        if continued is None:
            audit_id, attempt = next_audit_id(state), 1
            written = ledger.writer.append(run_id, [AuditStarted(
                audit_id=audit_id, source=loaded.source, source_sha256=loaded.sha256, source_label=loaded.label,
                source_pinned=loaded.pinned, plants_version=loaded.version, planned=len(loaded.plants), skipped=loaded.skipped,
                plant_kind=plant_kind or "", reference_rate=loaded.reference[0],
                reference_judgments=loaded.reference[1], **fields)])
            if not written:
                raise ConcurrencyConflict(f"audit {audit_id} of run {run_id} was started by another process; retry")
        else:
            audit_id = continued.audit_id
            if continued.source_sha256 and continued.source_sha256 != loaded.sha256:
                raise BadInput(f"{continued.source} changed since audit {audit_id} began (SHA-256 differs)",
                               field="answers")
            attempt = 2 + sum(1 for e in state.audit_events if isinstance(e, AuditContinued) and e.audit_id == audit_id)
            ledger.writer.append(run_id, [AuditContinued(audit_id=audit_id, attempt=attempt,
                                                         endpoint=fields["endpoint"])])
        state = fold_run(run_id, ledger.reader.events(run_id))
        assert state.started is not None
        run_audit(ledger.writer, state, audit_id, judge, _items(state, loaded.plants), prompts=dataset.prompts,
                  concurrency=overrides.applied_to(state.started.config.settings).concurrency, attempt=attempt,
                  redact=redact, progress=progress)
        log.info("judge audit recorded", run=run_id, audit=audit_id, scorer=scorer, plants=len(loaded.plants))
        return audit_id
