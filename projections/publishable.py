"""Publishable: every condition a benchmark declares, each met or not with its reason.

A run is publishable only when all of them hold; otherwise it is diagnostic and the report names
each failed condition. GroupMemBench declares the five of DESIGN.md (complete corpus, unsampled
questions, a solvability-filtered domain, the reference protocol, zero operational failures);
other benchmarks declare theirs in `CONDITIONS`. Every benchmark also requires the run to have
finished with every planned question answered and judged.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Callable

from pydantic import BaseModel, ConfigDict

from benchledger.projections.state import RunState
from benchledger.projections.tallies import KindTally

__all__ = [
    "PUBLISHABLE_VERSION", "Condition", "CONDITIONS", "conditions_for", "RELEASED_GROUPMEM_PROMPTS",
    "GROUPMEM_FILTERED_DOMAINS", "GROUPMEM_KINDS", "LOCOMO_CATEGORIES", "RELEASED_GROUPMEM_QUESTIONS",
    "question_set_sha256",
]

PUBLISHABLE_VERSION = 2

GROUPMEM_FILTERED_DOMAINS = ("Finance", "Technology")
GROUPMEM_KINDS = ("multi_hop", "knowledge_update", "temporal", "user_implicit", "term_ambiguity", "abstention")
LOCOMO_CATEGORIES = ("multi_hop", "temporal", "open_domain", "single_hop", "adversarial")
LOCOMO_CONVERSATIONS = 10
REFERENCE_MODEL = "gpt-5"
REFERENCE_K = 10

# SHA-256 of the released GroupMemBench prompts, as files and as the released harness reads them (stripped).
RELEASED_GROUPMEM_PROMPTS: dict[str, frozenset[str]] = {
    "agent_system": frozenset({
        "c2019778844ba90e854d80bf25a9a0a316c50538acb9c12ce6dd070b7013865d",
        "6f615239d41d413f991d7682c653d4a51beda9b1308846ed8ad494cfdf01ad11",
    }),
    "judge_system": frozenset({
        "abcd96fd2df5eff8d4d32d516da7d84847478a03928d39456f54770657966fc1",
        "0585650da63ba4fbd83109897d7228ee8b8af39362c516d118df630224912fd2",
    }),
}


# The released GroupMemBench question sets (CoalMem-Evidence-Coalition-Selection @ ad676f4), as
# (count, SHA-256 of `question_set_sha256`). A domain's run is unsampled only when it asks exactly
# these questions: a synthetic or edited release under a released domain name cannot pass.
RELEASED_GROUPMEM_QUESTIONS: dict[str, tuple[int, str]] = {
    "Finance": (214, "4f783691ee67d63b1bebebb63ec68d4d943d3688886e373044b7da90566f00e5"),
    "Healthcare": (145, "638b8b111d3ebffc3227d596f921aac46260242c2dc55898e110c5d449a427fd"),
    "Manufacturing": (173, "b76c9b7ff58cda11ab98b9493a105be67a4c7966ac5c4c6ea4c5863a327a53f9"),
    "Technology": (213, "c8a8d917e798eae57c7a33c7b06570209bd63fbc644083eeb6038060946ccfdb"),
}
_REFERENCE_SNAPSHOT = re.compile(r"^gpt-5(?:-\d{4}-\d{2}-\d{2})?$")


def question_set_sha256(questions) -> str:
    """SHA-256 over the sorted (kind, id, question, gold, asking user) of planned questions."""
    rows = sorted([q.kind, q.question_id, q.text, q.gold, q.asking_user or ""] for q in questions)
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()


class Condition(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    met: bool
    reason: str


Check = Callable[[RunState, KindTally, str | None], Condition]


def complete_run(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    if state.finished is None:
        return Condition(name="complete_run", met=False, reason="the run has not finished (resume it)")
    if state.finished.status != "completed":
        return Condition(name="complete_run", met=False, reason=f"the run aborted: {state.finished.reason}")
    if overall.pending:
        return Condition(name="complete_run", met=False,
                         reason=f"{overall.pending} of {overall.planned} planned questions were never judged")
    return Condition(name="complete_run", met=True, reason="every planned question was answered and judged")


def zero_failures(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    failed, run_level = overall.failed, len(state.unresolved_run_failures)
    if failed or run_level:
        parts = [f"{failed} question(s) failed"] if failed else []
        parts += [f"{run_level} run-level failure(s)"] if run_level else []
        return Condition(name="zero_operational_failures", met=False, reason="; ".join(parts))
    retried = len(state.all_failures)
    note = f" ({retried} earlier failure(s) resolved by retry or resume)" if retried else ""
    return Condition(name="zero_operational_failures", met=True, reason="no operational failures" + note)


def _config(state: RunState):
    if state.started is None:
        raise ValueError("run has no RunStarted event")
    return state.started.config


def complete_corpus(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    cfg = _config(state)
    expected = sum(state.corpus.expected_documents.values()) if state.corpus else 0
    available = state.corpus.documents_available if state.corpus else 0
    if cfg.message_limit is not None or expected < available:
        limit = f" (message limit {cfg.message_limit})" if cfg.message_limit is not None else ""
        return Condition(name="complete_corpus", met=False,
                         reason=f"{expected} of {available} messages selected{limit}")
    return Condition(name="complete_corpus", met=True, reason=f"all {available} messages of the release selected")


def unsampled_questions(state: RunState, overall: KindTally, scorer: str | None, all_kinds=GROUPMEM_KINDS) -> Condition:
    cfg = _config(state)
    available = state.plan.available if state.plan else 0
    problems = []
    if cfg.question_limit is not None or overall.planned < available:
        limit = f" (question limit {cfg.question_limit})" if cfg.question_limit is not None else ""
        problems.append(f"{overall.planned} of {available} questions{limit}")
    kinds_available = tuple(state.plan.kinds_available) if state.plan and state.plan.kinds_available else all_kinds
    missing = [k for k in kinds_available if cfg.kinds and k not in cfg.kinds]
    if missing:
        problems.append("kinds left out: " + ", ".join(missing))
    released = RELEASED_GROUPMEM_QUESTIONS.get(cfg.subset) if cfg.benchmark == "GroupMemBench" else None
    if released and state.plan and question_set_sha256(state.plan.questions) != released[1]:
        problems.append(f"the questions are not the released {cfg.subset} set ({released[0]} questions, "
                        "pinned by SHA-256)")
    if problems:
        return Condition(name="unsampled_questions", met=False, reason="; ".join(problems))
    which = f"the released {cfg.subset} set, " if released else ""
    return Condition(name="unsampled_questions", met=True, reason=f"{which}all {available} questions of every kind")


def filtered_domain(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    domain = _config(state).subset
    met = domain in GROUPMEM_FILTERED_DOMAINS
    reason = (f"{domain} is solvability-filtered" if met else
              f"{domain} is not a solvability-filtered domain ({' or '.join(GROUPMEM_FILTERED_DOMAINS)})")
    return Condition(name="solvability_filtered_domain", met=met, reason=reason)


def reference_protocol(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    cfg = _config(state)
    judge_model = state.scorers[scorer].judge_model if scorer in state.scorers else cfg.judge_model
    judge_offline = state.scorers[scorer].offline if scorer in state.scorers else cfg.offline_models
    problems = []
    if cfg.k != REFERENCE_K:
        problems.append(f"k={cfg.k}, not {REFERENCE_K}")
    if cfg.protocol != "reference":
        problems.append(f"protocol {cfg.protocol}, not reference")
    if cfg.offline_models or judge_offline:
        problems.append("offline deterministic models answered or judged")
    for role, model in (("agent", cfg.agent_model), ("judge", judge_model)):
        if model != REFERENCE_MODEL:
            problems.append(f"{role} model {model}, not {REFERENCE_MODEL}")
        if cfg.memory_model and model == cfg.memory_model:
            problems.append(f"{role} model is the memory system's own model")
    for name, released in RELEASED_GROUPMEM_PROMPTS.items():
        used = cfg.prompt_hashes.get(name)
        if used not in released:
            problems.append(f"{name} prompt is not the released one")
    if scorer in state.scorers:
        judge = state.scorers[scorer]
        if judge.protocol != "reference":
            problems.append(f"scorer {scorer} judged with the {judge.protocol} protocol")
        elif (judge.prompt_hash not in RELEASED_GROUPMEM_PROMPTS["judge_system"]
              and cfg.prompt_hashes.get("judge_system") in RELEASED_GROUPMEM_PROMPTS["judge_system"]):
            problems.append(f"scorer {scorer} judged with a judge prompt that is not the released one")
    answered = {q.answered.model for q in state.questions.values() if q.answered}
    judged = {q.judged[scorer].model for q in state.questions.values() if scorer in q.judged}
    for role, models in (("answers", answered), ("verdicts", judged)):
        # Models already named above as not gpt-5 need no second mention.
        others = sorted(m for m in models if not _REFERENCE_SNAPSHOT.match(m)
                        and m not in (cfg.agent_model, judge_model))
        if others:
            problems.append(f"{role} came from {', '.join(others)} as the endpoint reported")
    if problems:
        return Condition(name="reference_protocol", met=False, reason="; ".join(problems))
    return Condition(name="reference_protocol", met=True,
                     reason="k=10, gpt-5 agent and judge, released prompts, independent of the memory's model")


def real_models(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    cfg = _config(state)
    judge_offline = state.scorers[scorer].offline if scorer in state.scorers else cfg.offline_models
    if cfg.offline_models or judge_offline:
        return Condition(name="real_models", met=False, reason="offline deterministic models answered or judged")
    return Condition(name="real_models", met=True, reason=f"agent {cfg.agent_model}, judge {cfg.judge_model}")


def no_limits(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    cfg = _config(state)
    if cfg.question_limit is not None or cfg.message_limit is not None:
        limits = [f"{name} limit {value}" for name, value in
                  (("question", cfg.question_limit), ("message", cfg.message_limit)) if value is not None]
        return Condition(name="no_limits", met=False, reason=", ".join(limits))
    return Condition(name="no_limits", met=True, reason="no question or message limit")


def complete_locomo_file(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    conversations = len(state.corpus.expected_documents) if state.corpus else 0
    if conversations < LOCOMO_CONVERSATIONS:
        return Condition(name="complete_file", met=False,
                         reason=f"{conversations} conversation(s) run; the full release has {LOCOMO_CONVERSATIONS}")
    return Condition(name="complete_file", met=True, reason=f"all {conversations} conversations")


def all_locomo_categories(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    cond = unsampled_questions(state, overall, scorer, all_kinds=LOCOMO_CATEGORIES)
    return Condition(name="all_categories", met=cond.met, reason=cond.reason)


CONDITIONS: dict[str, tuple[Check, ...]] = {
    "GroupMemBench": (complete_corpus, unsampled_questions, filtered_domain, reference_protocol, zero_failures),
    "LoCoMo": (complete_locomo_file, all_locomo_categories, no_limits, real_models, zero_failures),
    "LongMemEval": (no_limits, real_models, zero_failures),
    "Memora": (no_limits, real_models, zero_failures),
}
_DEFAULT: tuple[Check, ...] = (no_limits, real_models, zero_failures)


def conditions_for(state: RunState, overall: KindTally, scorer: str | None) -> list[Condition]:
    benchmark = state.started.config.benchmark if state.started else ""
    checks = CONDITIONS.get(benchmark, _DEFAULT) + (complete_run,)
    return [check(state, overall, scorer) for check in checks]
