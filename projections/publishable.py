"""Publishable: the conditions a benchmark declares, each met or not with its reason.

A run is publishable only when every condition its benchmark declares holds, every counted answer
and verdict is traced to a recorded endpoint (`recorded_provenance`) that is a provider's API over
verified TLS (`provider_endpoint`), and the run finished with every planned question judged
(`complete_run`); these three are added for every benchmark. Otherwise it is
diagnostic and the report names each failed condition. This module holds the building blocks and
no benchmark's constants: each benchmark adapter (`adapters/benchmarks/<name>/`) composes its
conditions from them and from its own checks, and whoever folds a report passes them in.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from benchledger.ledger.events import Endpoint, RunConfig
from benchledger.projections.state import RunState, Segment
from benchledger.projections.tallies import KindTally
from benchledger.providers import OPENAI_DEFAULT_BASE_URL, provider_of
from benchledger.values import Question, is_offline_model

__all__ = [
    "PUBLISHABLE_VERSION", "Condition", "Check", "evaluate_conditions", "complete_run",
    "zero_failures", "recorded_provenance", "provider_endpoint", "complete_corpus", "unsampled_questions", "no_limits", "real_models",
    "models_reported", "unknown_benchmark", "question_set_sha256", "run_config", "judge_of",
    "official_prompts", "official_scorer", "official_judges", "is_model_or_snapshot", "ORACLE_MEMORY",
    "recalled_fields_changed",
    "ORACLE_NOTE", "ATTESTED",
]

PUBLISHABLE_VERSION = 8

_DATED_SNAPSHOT = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8})")
"""The suffix a provider gives a dated snapshot of a model (gpt-5-2025-08-07, claude-...-20251001)."""


def is_model_or_snapshot(model: str, named: str) -> bool:
    """`model` is `named` or a dated snapshot of it; never a sibling of the family (gpt-5-mini is not
    gpt-5, openai/gpt-4.1-mini is not openai/gpt-4.1), nor an undated alias of a dated name."""
    return model == named or (model.startswith(named) and _DATED_SNAPSHOT.fullmatch(model[len(named):]) is not None)


class Condition(BaseModel):
    """One publishable condition: whether it holds, and why in one sentence."""

    model_config = ConfigDict(frozen=True)

    name: str
    met: bool
    reason: str
    attested: bool = False
    """The condition rests on evidence the runner's machine recorded (the provider's TLS chain), not on
    what anyone can recompute offline from the run; the scorecard labels it, and a command a third
    party runs checks it (`benchledger verify RUN --spot-check N`)."""


Check = Callable[[RunState, KindTally, "str | None"], Condition]
"""(run state, overall tally under the report's scorer, scorer id) -> Condition."""


def names(condition: str) -> Callable[[Check], Check]:
    """Mark a check with the name of the condition it returns, where its own name differs (a closure
    a builder returns, or `zero_failures`), so a listing can name it without a run to evaluate."""
    def mark(check: Check) -> Check:
        check.condition_name = condition  # type: ignore[attr-defined]
        return check
    return mark


def condition_name(check: Check) -> str:
    """The name of the condition a check returns (`Condition.name`)."""
    return str(getattr(check, "condition_name", None) or getattr(check, "__name__", "condition"))


def evaluate_conditions(state: RunState, overall: KindTally, scorer: str | None,
                        checks: Sequence[Check]) -> list[Condition]:
    """The benchmark's conditions, then the ones every run must meet: provenance and completeness."""
    if state.started is None:
        return [Condition(name="complete_run", met=False, reason="the run has no RunStarted event")]
    conditions = [check(state, overall, scorer)
                  for check in (*checks, recorded_provenance, provider_endpoint, complete_run)]
    if state.started.config.memory == ORACLE_MEMORY:
        conditions.append(Condition(name="no_evidence_labels", met=False, reason=ORACLE_NOTE))
    if changed := recalled_fields_changed(state):
        conditions.append(changed)
    return conditions


def recalled_fields_changed(state: RunState) -> Condition | None:
    """A failed `recalled_as_ingested` when a memory returned a document with a structural field
    other than ingested (the gold in a topic reaches the model as surely as in the text); None
    when every returned field was the ingested one, so runs it never concerned keep their list."""
    fields: dict[str, int] = {}
    count = 0
    for question in state.questions.values():
        for item in question.recalled.items if question.recalled else ():
            if item.changed_fields:
                count += 1
                for name in item.changed_fields:
                    fields[name] = fields.get(name, 0) + 1
    if not count:
        return None
    named = ", ".join(f"{name} ({n})" for name, n in sorted(fields.items(), key=lambda kv: (-kv[1], kv[0])))
    return Condition(name="recalled_as_ingested", met=False,
                     reason=f"{count} recalled document(s) came back with structural fields other than "
                            f"ingested: {named}")


ORACLE_MEMORY = "oracle"
ORACLE_NOTE = "the oracle reads the evidence labels"
"""Why a run recalled by the `oracle` memory is always diagnostic: it is handed the gold evidence."""


def run_config(state: RunState) -> RunConfig:
    if state.started is None:
        raise ValueError("run has no RunStarted event")
    return state.started.config


OFFLINE_MODELS = "offline models"
"""Where a segment's answers or verdicts came from when it asked no endpoint."""
SCORING_RULE = "a scoring rule that asks no model"


def _source(segment: Segment, role: str, *, rule_scorer: bool) -> str:
    """Where a segment's answers or verdicts were asked: an offline model, a rule, or its endpoint."""
    if role == "verdicts" and (rule_scorer or segment.model_free):
        return SCORING_RULE
    model = segment.agent_model if role == "answers" else segment.judge_model
    if segment.endpoint is None or is_offline_model(model):
        return OFFLINE_MODELS
    return segment.endpoint.base_url or "the openai SDK's default endpoint"


def judge_of(state: RunState, scorer: str | None) -> tuple[str, bool, str]:
    """(judge model, offline, protocol) of a scorer, or of the run's own judge."""
    cfg = run_config(state)
    if scorer in state.scorers:
        judge = state.scorers[scorer]
        return judge.judge_model, judge.offline, judge.protocol
    return cfg.judge_model, cfg.offline_models, cfg.settings.protocol or ""


def recorded_provenance(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    """Every counted answer and verdict came from a segment that recorded its endpoint, and one
    memory system served every segment."""
    unrecorded: set[str] = set()
    used: dict[str, set[str]] = {"answers": set(), "verdicts": set()}
    started = state.scorers.get(scorer) if scorer is not None else None
    rule_scorer = bool(started and started.model_free)
    for question in state.questions.values():
        if scorer is None or scorer not in question.judged:
            continue
        for role, index in (("answers", question.answered_in), ("verdicts", question.judged_in.get(scorer))):
            segment = state.segments[index] if index is not None else None
            if segment is None:
                unrecorded.add("an unattributed segment")
            elif segment.endpoint is None and not segment.offline:
                unrecorded.add(segment.label)
            else:
                used[role].add(_source(segment, role, rule_scorer=rule_scorer))
    problems = [f"answers or verdicts came from an endpoint that was not recorded ({', '.join(sorted(unrecorded))})"] \
        if unrecorded else []
    cfg = run_config(state)
    if (cache_from := cfg.settings.cache_from) and not cfg.cache_source_publishable:
        problems.append(f"model calls could be answered from the responses run {cache_from} recorded "
                        "(--cache-from), which did not meet its protocol when this run started")
    start = state.segments[0].memory if state.segments else None
    for segment in state.segments:
        if segment.kind != "resume":
            continue
        if segment.memory is None:
            problems.append(f"{segment.label} did not record its memory system")
        elif start is not None and (segment.memory.name, segment.memory.version) != (start.name, start.version):
            problems.append(f"{segment.label} recalled from {segment.memory.name} {segment.memory.version}, "
                            f"not the run's {start.name} {start.version}")
        elif start is not None and segment.memory.url != start.url:  # where it is is part of which it is
            problems.append(f"{segment.label} recalled from {segment.memory.url or 'a memory in process'}, "
                            f"not the run's {start.url or 'memory in process'}")
    if problems:
        return Condition(name="recorded_provenance", met=False, reason="; ".join(problems))
    # naming the sources lets a reader see a verdict asked somewhere other than the answers were
    sources = set().union(*used.values())
    where = "; ".join(f"{role} from {', '.join(sorted(urls))}" for role, urls in used.items() if urls)
    if sources and sources <= {OFFLINE_MODELS, SCORING_RULE}:
        reason = f"no counted answer or verdict asked an endpoint ({where}); one memory system"
    else:
        reason = ("every endpoint the counted answers and verdicts came from is recorded"
                  f"{f' ({where})' if where else ''}; one memory system")
    if cache_from:
        reason += (f"; model calls could also be answered from the responses run {cache_from} recorded "
                   "(--cache-from), publishable when this run started")
    return Condition(name="recorded_provenance", met=True, reason=reason)


ATTESTED = "evidence recorded by the runner's machine"
"""How the scorecard labels an attested condition (`Condition.attested`)."""


def _endpoint_problem(role: str, url: str, provider: str | None, endpoint: Endpoint) -> str | None:
    """Why answers or verdicts from `endpoint` cannot count as a provider's, in one sentence."""
    tls = endpoint.tls
    seen = f" ({'; '.join(tls.problems)})" if tls is not None and tls.problems else ""
    if provider is None:
        return (f"{role} came from {url}, not a provider's API over verified TLS: what model answered "
                f"cannot be known{seen}")
    if tls is None and endpoint.certificate is None:
        return (f"{role} came from {url} with no verified server certificate recorded: which server "
                "answered cannot be shown")
    if tls is None:
        return (f"{role} came from {url} with a certificate checked against the runner's own trusted CAs, "
                "which its environment can change (recorded before the probe checked the chain against "
                "the shipped root store)")
    if tls.problems or not tls.trusted:
        return f"{role} came from {url}, and {'; '.join(tls.problems) or 'its chain did not verify'}"
    return None


def _evidence(provider: str, url: str, endpoint: Endpoint) -> str:
    tls, leaf = endpoint.tls, endpoint.certificate
    assert tls is not None
    root = tls.chain[-1].subject if tls.chain else "?"
    subject = leaf.subject if leaf else tls.chain[0].subject if tls.chain else "?"
    sha = (leaf.sha256 if leaf else tls.chain[0].sha256 if tls.chain else "?")[:16]
    return (f"{provider} at {url} (certificate {subject}, sha256 {sha}…, chain to {root} in {tls.root_store}; "
            f"{tls.host} at {tls.address})")


def provider_endpoint(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    """Every counted answer and verdict a model gave came from a provider's API (`benchledger.providers`)
    over HTTPS, at a public address, its chain verified by the probe against the shipped root store.
    Attested: the probe ran on the runner's machine."""
    providers: set[str] = set()
    started = state.scorers.get(scorer) if scorer is not None else None
    rule_scorer = bool(started and started.model_free)
    for role in ("answers", "verdicts"):
        for question in state.questions.values():
            if scorer is None or scorer not in question.judged:
                continue
            index = question.answered_in if role == "answers" else question.judged_in.get(scorer)
            segment = state.segments[index] if index is not None else None
            if segment is None or segment.endpoint is None:
                continue  # recorded_provenance names a segment that recorded no endpoint
            if _source(segment, role, rule_scorer=rule_scorer) in (OFFLINE_MODELS, SCORING_RULE):
                continue
            url = segment.endpoint.base_url or OPENAI_DEFAULT_BASE_URL
            provider = provider_of(segment.endpoint.base_url)
            if problem := _endpoint_problem(role, url, provider, segment.endpoint):
                return Condition(name="provider_endpoint", met=False, reason=problem, attested=True)
            assert provider is not None
            providers.add(_evidence(provider, url, segment.endpoint))
    if not providers:
        return Condition(name="provider_endpoint", met=True, reason="no counted answer or verdict asked a model endpoint")
    return Condition(name="provider_endpoint", met=True, attested=True,
                     reason=f"counted answers and verdicts from {'; '.join(sorted(providers))}")


def complete_run(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    if state.finished is None:
        return Condition(name="complete_run", met=False, reason="the run has not finished (resume it)")
    if state.finished.status != "completed":
        return Condition(name="complete_run", met=False, reason=f"the run aborted: {state.finished.reason}")
    if overall.judged < overall.planned:
        return Condition(name="complete_run", met=False,
                         reason=f"{overall.planned - overall.judged} of {overall.planned} planned questions "
                                "were never judged")
    return Condition(name="complete_run", met=True, reason="every planned question was answered and judged")


@names("zero_operational_failures")
def zero_failures(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    failed, run_level = overall.failed, len(state.unresolved_run_failures)
    if failed or run_level:
        parts = [f"{failed} question(s) failed"] if failed else []
        parts += [f"{run_level} run-level failure(s)"] if run_level else []
        return Condition(name="zero_operational_failures", met=False, reason="; ".join(parts))
    retried = state.resolved_failures(scorer)
    note = f" ({retried} earlier failure(s) resolved by retry or resume)" if retried else ""
    return Condition(name="zero_operational_failures", met=True, reason="no operational failures" + note)


def complete_corpus(noun: str = "documents") -> Check:
    """Every document of the release was selected (no message limit)."""
    @names("complete_corpus")
    def check(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
        limit = run_config(state).selection.message_limit
        expected = sum(state.corpus.expected_documents.values()) if state.corpus else 0
        available = state.corpus.documents_available if state.corpus else 0
        if limit is not None or expected < available:
            shown = f" (message limit {limit})" if limit is not None else ""
            return Condition(name="complete_corpus", met=False,
                             reason=f"{expected} of {available} {noun} selected{shown}")
        return Condition(name="complete_corpus", met=True, reason=f"all {available} {noun} of the release selected")
    return check


def question_set_sha256(questions: Iterable[Question]) -> str:
    """SHA-256 over the sorted (kind, id, question, gold, asking user) of planned questions."""
    rows = sorted([q.kind, q.question_id, q.text, q.gold, q.asking_user or ""] for q in questions)
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()


def unsampled_questions(released: Mapping[str, tuple[int, str]] | None = None,
                        all_kinds: tuple[str, ...] = ()) -> Check:
    """No question limit, every kind the release holds, and (where pinned) exactly the released set.

    `released` maps a subset name to (question count, `question_set_sha256`) of the released
    questions, so a synthetic or edited release under a released name cannot pass. `all_kinds`
    stands in for the release's kinds when the plan did not record them (runs before it did).
    """
    @names("unsampled_questions")
    def check(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
        cfg = run_config(state)
        limit = cfg.selection.question_limit
        available = state.plan.available if state.plan else 0
        problems = []
        if limit is not None or overall.planned < available:
            shown = f" (question limit {limit})" if limit is not None else ""
            problems.append(f"{overall.planned} of {available} questions{shown}")
        kinds_available = (state.plan.kinds_available if state.plan else ()) or all_kinds
        chosen = cfg.selection.kinds
        if missing := [k for k in kinds_available if chosen and k not in chosen]:
            problems.append("kinds left out: " + ", ".join(missing))
        pinned = (released or {}).get(cfg.subset)
        if pinned and state.plan and question_set_sha256(state.plan.questions) != pinned[1]:
            problems.append(f"the questions are not the released {cfg.subset} set ({pinned[0]} questions, "
                            "pinned by SHA-256)")
        if problems:
            return Condition(name="unsampled_questions", met=False, reason="; ".join(problems))
        which = f"the released {cfg.subset} set, " if pinned else ""
        return Condition(name="unsampled_questions", met=True,
                         reason=f"{which}all {available} questions of every kind")
    return check


def no_limits(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    selection = run_config(state).selection
    limits = [f"{name} limit {value}" for name, value in
              (("question", selection.question_limit), ("message", selection.message_limit)) if value is not None]
    if limits:
        return Condition(name="no_limits", met=False, reason=", ".join(limits))
    return Condition(name="no_limits", met=True, reason="no question or message limit")


def real_models(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    cfg = run_config(state)
    judge_model, judge_offline, _ = judge_of(state, scorer)
    if cfg.offline_models or judge_offline:
        return Condition(name="real_models", met=False, reason="offline deterministic models answered or judged")
    return Condition(name="real_models", met=True, reason=f"agent {cfg.agent_model}, judge {judge_model}")


def models_reported(state: RunState, scorer: str | None) -> tuple[set[str], set[str]]:
    """(models the endpoint reported for the answers, for this scorer's verdicts)."""
    answered = {q.answered.model for q in state.questions.values() if q.answered}
    judged = {q.judged[scorer].model for q in state.questions.values() if scorer in q.judged}
    return answered, judged


def unknown_benchmark(name: str) -> Check:
    """The condition a run of a benchmark with no installed adapter can never meet."""
    @names("known_benchmark")
    def check(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
        return Condition(name="known_benchmark", met=False,
                         reason=f"no adapter for benchmark {name!r} is installed, so its publishable "
                                "conditions are unknown (`benchledger benchmarks` lists the installed ones)")
    return check


def official_prompts(pins: Mapping[str, str], benchmark: str) -> Check:
    """The answers came from the benchmark's official prompts: the official protocol, a real answer
    model, and every pinned template recorded with its official SHA-256."""
    @names("official_prompts")
    def check(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
        cfg = run_config(state)
        problems = []
        if cfg.settings.protocol != "official":
            problems.append(f"the answers came from the {cfg.settings.protocol} protocol (benchledger's own "
                            f"prompts), not {benchmark}'s official prompts")
        elif cfg.offline_models and is_offline_model(cfg.agent_model):
            problems.append(f"the offline answerer ({cfg.agent_model}) answered, not a model given the official prompt")
        elif wrong := sorted(name for name, digest in pins.items() if cfg.prompt_hashes.get(name) != digest):
            problems.append(f"templates not the official ones: {', '.join(wrong)}")
        if problems:
            return Condition(name="official_prompts", met=False, reason="; ".join(problems))
        return Condition(name="official_prompts", met=True,
                         reason=f"{benchmark}'s official prompts, {len(pins)} templates pinned by SHA-256")
    return check


def official_scorer(method: str, label: str) -> Check:
    """The report's scorer is the benchmark's official scoring method (`ScorerStarted.method`)."""
    @names("official_scorer")
    def check(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
        started = state.scorers.get(scorer) if scorer else None
        if started is None or started.method != method:
            what = (f"scorer {scorer} is {started.method or f'a {started.protocol} judge ({started.judge_model})'}"
                    if started else "no scorer judged")
            others = [sid for sid, s in state.scorers.items() if s.method == method]
            hint = f" (the run's {label} is scorer {others[-1]})" if others else ""
            return Condition(name="official_scorer", met=False, reason=f"{what}, not {label}{hint}")
        if started.offline:
            return Condition(name="official_scorer", met=False,
                             reason=f"scorer {scorer}: the offline {started.judge_model} stood in for {label}")
        return Condition(name="official_scorer", met=True, reason=f"scorer {scorer}: {label}")
    return check


def official_judges(models: tuple[str, ...], label: str) -> Check:
    """The report's scorer asked exactly the judge models the benchmark names (in any order), and the
    endpoint says they answered (a dated snapshot of a named model counts as it, a sibling never)."""
    @names("official_judges")
    def check(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
        started = state.scorers.get(scorer) if scorer else None
        asked = (started.judge_models or (started.judge_model,)) if started else ()
        if started is None or started.offline or sorted(asked) != sorted(models):  # a vote has no order
            shown = ", ".join(asked) or "none"
            return Condition(name="official_judges", met=False,
                             reason=f"judged by {shown}{' (offline)' if started and started.offline else ''}, "
                                    f"not {label} ({', '.join(models)})")
        _, reported = models_reported(state, scorer)
        each = {model for combined in reported for model in combined.split(" + ")}  # a vote names every judge
        strays = sorted(m for m in each if not any(is_model_or_snapshot(m, name) for name in models))
        if strays:
            return Condition(name="official_judges", met=False,
                             reason=f"the endpoint reported verdicts from {', '.join(strays)}")
        return Condition(name="official_judges", met=True, reason=f"{label}: {', '.join(models)}")
    return check
