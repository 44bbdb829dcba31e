"""Every publishable condition of every benchmark, on both sides of each of its boundaries.

For each benchmark, `official_run(...)` builds (tests/events_factory.py) the event stream of one
complete official run that meets every condition: GroupMemBench over the released Finance
questions, LoCoMo over a full ten-conversation release (the dev file holds seven, so a run of it is
diagnostic by design: `complete_file`), LongMemEval and Memora with their official templates,
scorers and judges. Each case then changes one thing, just inside or just outside a boundary
(k 9/10/11; the named model, its dated snapshot, a sibling of its family; a complete release and
one a document, conversation or question short; the release files at their pins, or one edited,
or given by path where only a fetch can check them; answers from OpenAI's API with its certificate
recorded, or from a loopback server), and says whether that condition must hold.

LongMemEval-V2's run uses the leaderboard's reader and judge (Qwen3.5-9B, gpt-5.2), Mem2ActBench's
the paper's protocol; both fail `official_release` whatever the run (no pin is known for their files)
and Mem2ActBench fails `official_protocol` (no scorer is published): `NEVER_MET` names each such
condition with why, and a test fails the day one of them can be met, asking for its met case.

The benchmarks are the registry's (`available_benchmarks`), not a list here:
`test_every_registered_benchmark_has_its_boundary_cases` fails for an installed benchmark with no
official run or cases, and `test_every_condition_has_a_case_on_each_side` for a declared condition
with no case that meets it and one that fails it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from benchledger.adapters.benchmarks.groupmem.loader import read_questions
from benchledger.adapters.benchmarks.locomo.loader import CATEGORY_NAMES
from benchledger.adapters.benchmarks.locomo.official import F1_METHOD, LLM_JUDGE_METHOD
from benchledger.adapters.benchmarks.locomo.prompts import OFFICIAL_SHA256 as LOCOMO_PINS
from benchledger.adapters.benchmarks.locomo.publishable import RELEASE_QUESTIONS as LOCOMO_QUESTIONS
from benchledger.adapters.benchmarks.locomo.source import PINS as LOCOMO_RELEASE
from benchledger.adapters.benchmarks.longmemeval.judge import OFFICIAL_JUDGE_MODEL as LME_JUDGE
from benchledger.adapters.benchmarks.longmemeval.official import JUDGE_METHOD as LME_METHOD
from benchledger.adapters.benchmarks.longmemeval.prompts import QUESTION_TYPES, TEMPLATE_SHA256 as LME_PINS
from benchledger.adapters.benchmarks.longmemeval.publishable import RELEASE_QUESTIONS as LME_QUESTIONS
from benchledger.adapters.benchmarks.memora.benchmark import CATEGORIES as MEMORA_TASKS
from benchledger.adapters.benchmarks.memora.official import MAJORITY_METHOD
from benchledger.adapters.benchmarks.memora.prompts import OFFICIAL_JUDGES, TEMPLATE_SHA256 as MEMORA_PINS
from benchledger.adapters.benchmarks.longmemeval.source import PINS as LME_RELEASE
from benchledger.adapters.benchmarks.memora.source import PINS as MEMORA_RELEASE
from benchledger.adapters.benchmarks.longmemeval_v2.benchmark import LongMemEvalV2
from benchledger.adapters.benchmarks.longmemeval_v2.official import METHOD as LME2_METHOD
from benchledger.adapters.benchmarks.longmemeval_v2.prompts import TEMPLATE_SHA256 as LME2_PINS
from benchledger.adapters.benchmarks.longmemeval_v2.publishable import LEADERBOARD_JUDGE, LEADERBOARD_READER
from benchledger.adapters.benchmarks.longmemeval_v2.source import PINS as LME2_RELEASE
from benchledger.adapters.benchmarks.mem2actbench.answer import ACTION_METHOD
from benchledger.adapters.benchmarks.mem2actbench.benchmark import Mem2ActBench
from benchledger.adapters.benchmarks.mem2actbench.source import PINS as M2A_RELEASE
from benchledger.adapters.benchmarks.registry import available_benchmarks, benchmark_named
from benchledger.ledger.events import (
    Endpoint, Failed, Judged, QuestionAnswered, ReleaseFile, RunFinished, ScopePurged, ScorerStarted,
)
from benchledger.projections import build_report
from benchledger.values import Question as PlannedQuestion
from conftest import missing_shared_data_reason, shared_data_dir
from events_factory import GROUPMEM_CONDITIONS, OPENAI_TLS, PROVIDER, config, groupmem_release, stored, stream

BENCHMARKS = tuple(sorted(entry.loaded.name for entry in available_benchmarks() if entry.loaded is not None))
"""Every installed benchmark (the registry is the list): one with no cases here fails
`test_every_registered_benchmark_has_its_boundary_cases`."""
TRIO = tuple(OFFICIAL_JUDGES.values())
VOTE = " + ".join(TRIO)


# -- one complete official run per benchmark ------------------------------------------------------

def _questions(kinds: tuple[str, ...], total: int | None = None) -> tuple[PlannedQuestion, ...]:
    """`total` questions (default two of each kind), spread over the kinds."""
    total = total or 2 * len(kinds)
    return tuple(PlannedQuestion(question_id=f"q{i}", kind=kinds[i % len(kinds)], text=f"question {i}", gold="g")
                 for i in range(total))


def _released_finance() -> tuple[PlannedQuestion, ...]:
    data = shared_data_dir()
    if data is None:
        pytest.skip(missing_shared_data_reason())
    questions = read_questions(data / "groupmembench", "Finance").questions
    return tuple(PlannedQuestion(question_id=q.question_id, kind=q.kind, text=q.text, gold=q.gold,
                                 asking_user=q.asking_user, abstention=q.abstention) for q in questions)


def _run(planned, *, cfg_fields: dict, stream_fields: dict, outcomes: dict | None = None,
         drop: int = 0, edit: Callable[[list], list] | None = None) -> list:
    """A stream of `planned` all judged correct; `drop` plans that many fewer than the release holds."""
    planned = planned[drop:]
    outcomes = {**{q.question_id: (q.kind, "correct") for q in planned}, **(outcomes or {})}
    fields = {"kinds_available": tuple(dict.fromkeys(q.kind for q in planned)), **stream_fields}
    fields.setdefault("available_questions", len(planned) + drop)
    events = stream(outcomes, planned=planned, cfg=config(**cfg_fields), **fields)
    return edit(events) if edit else events


def groupmem_run(*, cfg: dict | None = None, drop: int = 0, outcomes: dict | None = None,
                 edit: Callable[[list], list] | None = None, **fields) -> list:
    return _run(_released_finance(), cfg_fields={**(cfg or {})}, stream_fields=fields, outcomes=outcomes,
                drop=drop, edit=edit)


LOCOMO_KINDS = tuple(CATEGORY_NAMES.values())
TEN_CONVERSATIONS = {f"conv-{n}": 19 for n in range(10)}


LOCOMO_FILES = tuple(ReleaseFile(path=pin.path, sha256=pin.sha256, bytes=pin.bytes) for pin in LOCOMO_RELEASE.pins()
                     if pin.role == "release")


def locomo_run(*, cfg: dict | None = None, drop: int = 0, outcomes: dict | None = None,
               edit: Callable[[list], list] | None = None, **fields) -> list:
    base = dict(benchmark="LoCoMo", subset="locomo10", protocol="official", agent_model="gpt-4o-mini",
                judge_model="locomo-token-f1", prompt_hashes=dict(LOCOMO_PINS), release_files=LOCOMO_FILES)
    fields = {"scopes": TEN_CONVERSATIONS, "scorer": {"method": F1_METHOD, "model_free": True, "official": True},
              **fields}
    return _run(_questions(LOCOMO_KINDS, LOCOMO_QUESTIONS), cfg_fields={**base, **(cfg or {})}, stream_fields=fields,
                outcomes=outcomes, drop=drop, edit=edit)


_LME_S = LME_RELEASE.pin("longmemeval_s_cleaned.json")
LME_FILES = (ReleaseFile(path=_LME_S.path, sha256=_LME_S.sha256, bytes=_LME_S.bytes, origin=_LME_S.origin,
                         revision=_LME_S.revision, published=f"pinned sha256 {_LME_S.sha256}"),)


def longmemeval_run(*, cfg: dict | None = None, drop: int = 0, outcomes: dict | None = None,
                    edit: Callable[[list], list] | None = None, **fields) -> list:
    base = dict(benchmark="LongMemEval", subset="longmemeval_s", protocol="official", agent_model="gpt-4o",
                judge_model=LME_JUDGE, prompt_hashes=dict(LME_PINS), release_files=LME_FILES)
    fields = {"scorer": {"method": LME_METHOD, "judge_models": (LME_JUDGE,), "official": True}, **fields}
    return _run(_questions(QUESTION_TYPES, LME_QUESTIONS), cfg_fields={**base, **(cfg or {})}, stream_fields=fields,
                outcomes=outcomes, drop=drop, edit=edit)


MEMORA_FILES = tuple(ReleaseFile(path=pin.path, sha256=pin.sha256, bytes=pin.bytes) for pin in MEMORA_RELEASE.pins()
                     if pin.path.startswith("weekly/"))


def memora_run(*, cfg: dict | None = None, drop: int = 0, outcomes: dict | None = None,
               edit: Callable[[list], list] | None = None, **fields) -> list:
    base = dict(benchmark="Memora", subset="weekly", protocol="official", agent_model="gpt-4.1",
                judge_model=TRIO[0], prompt_hashes=dict(MEMORA_PINS), split="weekly", release_files=MEMORA_FILES)
    fields = {"scorer": {"method": MAJORITY_METHOD, "judge_models": TRIO, "official": True},
              "verdict_model": VOTE, **fields}
    return _run(_questions(MEMORA_TASKS), cfg_fields={**base, **(cfg or {})}, stream_fields=fields,
                outcomes=outcomes, drop=drop, edit=edit)


def _release_files(pins) -> tuple[ReleaseFile, ...]:
    """The release files as a fetch records them: each at the SHA-256 its pin table gives, or, where the
    table has none (a gated or never-seen release), at a hash that only says the bytes were read."""
    return tuple(ReleaseFile(path=entry.path, sha256=getattr(entry, "sha256", "e" * 64),
                             bytes=getattr(entry, "bytes", 1), origin=entry.origin, revision=entry.revision)
                 for entry in pins if entry.role == "release")


LME2_FILES = _release_files(LME2_RELEASE)
LME2_KINDS = LongMemEvalV2.kinds


def longmemeval_v2_run(*, cfg: dict | None = None, drop: int = 0, outcomes: dict | None = None,
                       edit: Callable[[list], list] | None = None, **fields) -> list:
    base = dict(benchmark="LongMemEval-V2", subset="web-small", protocol="official", agent_model="Qwen3.5-9B",
                judge_model="gpt-5.2", prompt_hashes=dict(LME2_PINS), release_files=LME2_FILES)
    fields = {"scorer": {"method": LME2_METHOD, "official": True}, **fields}
    return _run(_questions(LME2_KINDS), cfg_fields={**base, **(cfg or {})}, stream_fields=fields,
                outcomes=outcomes, drop=drop, edit=edit)


M2A_FILES = _release_files(M2A_RELEASE)


def mem2actbench_run(*, cfg: dict | None = None, drop: int = 0, outcomes: dict | None = None,
                     edit: Callable[[list], list] | None = None, **fields) -> list:
    base = dict(benchmark="Mem2ActBench", subset="toolmembench", protocol="paper", agent_model="gpt-4o",
                judge_model="mem2act-action-rules/1", prompt_hashes={}, release_files=M2A_FILES)
    fields = {"scorer": {"method": ACTION_METHOD, "model_free": True}, **fields}
    return _run(_questions(Mem2ActBench.kinds), cfg_fields={**base, **(cfg or {})}, stream_fields=fields,
                outcomes=outcomes, drop=drop, edit=edit)


OFFICIAL_RUN = {"GroupMemBench": groupmem_run, "LoCoMo": locomo_run, "LongMemEval": longmemeval_run,
                "Memora": memora_run, "LongMemEval-V2": longmemeval_v2_run, "Mem2ActBench": mem2actbench_run}

NEVER_MET = {
    ("LongMemEval-V2", "official_release"): "no public source states the SHA-256 of the gated release's files",
    ("Mem2ActBench", "official_release"): "no file of the release has been seen here, and GitHub publishes no hash",
    ("Mem2ActBench", "official_protocol"): "the repository publishes no scorer",
}
"""Conditions no run can meet today, and why: the official run fails them, and the day one can be met
(a pin lands) `test_a_condition_no_run_meets_today_fails_on_the_official_run` asks for its met case."""


def _conditions(benchmark: str):
    """The benchmark's conditions; GroupMemBench's with its made-up corpus pinned (the package pins no
    corpus, so none of its runs is publishable: `groupmem_cases` holds that case too)."""
    return GROUPMEM_CONDITIONS if benchmark == "GroupMemBench" else benchmark_named(benchmark).conditions


def _report(benchmark: str, events: list, scorer: str | None = None):
    return build_report("run-1", stored(events), conditions=_conditions(benchmark), scorer_id=scorer)


# -- edits shared by every benchmark --------------------------------------------------------------

def _reported(event_type, model: str) -> Callable[[list], list]:
    """The endpoint reported `model` for every answer (QuestionAnswered) or verdict (Judged)."""
    return lambda events: [e.model_copy(update={"model": model}) if isinstance(e, event_type) else e for e in events]


def _first_question(events: list) -> str:
    return next(e.question_id for e in events if isinstance(e, QuestionAnswered))


def _fail_one(stage: str) -> Callable[[list], list]:
    def edit(events: list) -> list:
        victim = _first_question(events)
        kept = [e for e in events if getattr(e, "question_id", None) != victim]
        return kept[:-1] + [Failed(stage=stage, question_id=victim, error_class="APIError", message="boom"), kept[-1]]
    return edit


def _purge_failed(then_purged: bool) -> Callable[[list], list]:
    def edit(events: list) -> list:
        scope_key = next(iter(next(e for e in events if e.type == "CorpusFingerprinted").scopes))
        failed = [Failed(stage="purge", scope_key=scope_key, error_class="OSError", message="disk")]
        purged = [ScopePurged(scope_key=scope_key, scope=f"s-{scope_key}", documents_removed=1)]
        return events[:-1] + failed + (purged if then_purged else []) + events[-1:]
    return edit


def _unfinished(events: list) -> list:
    return [e for e in events if not isinstance(e, RunFinished)]


def _aborted(events: list) -> list:
    return _unfinished(events) + [RunFinished(status="aborted", reason="the memory system failed")]


def _one_pending(events: list) -> list:
    victim = _first_question(events)
    return [e for e in events if not (isinstance(e, (QuestionAnswered, Judged)) and e.question_id == victim)]


def _rejudged_without_endpoint(events: list) -> list:
    """A second scorer (the case reports it: the headline stays the run's own) that asked a model at an
    endpoint it did not record."""
    scorer = next(e for e in events if isinstance(e, ScorerStarted))
    verdicts = [e for e in events if isinstance(e, Judged)]
    return events[:-1] + [scorer.model_copy(update={"scorer_id": "s2", "model_free": False})] + [
        v.model_copy(update={"scorer_id": "s2"}) for v in verdicts] + events[-1:]


def _rejudged_at_a_recorded_endpoint(events: list) -> list:
    endpoint = Endpoint(base_url="http://127.0.0.1:9/v1", api_key_env="OPENAI_API_KEY")
    return [e.model_copy(update={"endpoint": endpoint}) if isinstance(e, ScorerStarted) and e.scorer_id == "s2" else e
            for e in _rejudged_without_endpoint(events)]


@dataclass(frozen=True)
class Case:
    condition: str
    label: str
    met: bool
    build: Callable[[], list]
    scorer: str | None = None
    """The scorer the case's report is under (None: the run's headline scorer)."""
    said: str | None = None
    """What the condition's reason must say (for a condition that fails on both sides for another reason too)."""


def shared_cases(run: Callable[..., list]) -> list[Case]:
    """Conditions every benchmark has (zero failures, recorded provenance, a provider's endpoint over
    verified TLS, a complete run)."""
    return [
        Case("zero_operational_failures", "no failure", True, lambda: run()),
        Case("zero_operational_failures", "one question failed at answer", False, lambda: run(edit=_fail_one("answer"))),
        Case("zero_operational_failures", "a purge failed", False, lambda: run(edit=_purge_failed(False))),
        Case("zero_operational_failures", "a purge failed, then its scope was purged", True,
             lambda: run(edit=_purge_failed(True))),
        Case("recorded_provenance", "the run's own endpoint", True, lambda: run()),
        Case("recorded_provenance", "a rejudge recorded its endpoint", True,
             lambda: run(edit=_rejudged_at_a_recorded_endpoint), scorer="s2"),
        Case("recorded_provenance", "a rejudge that recorded no endpoint", False,
             lambda: run(edit=_rejudged_without_endpoint), scorer="s2"),
        Case("provider_endpoint", "OpenAI's API, its certificate recorded", True, lambda: run()),
        Case("provider_endpoint", "a loopback server over plain HTTP", False,
             lambda: run(cfg={"base_url": "http://127.0.0.1:8900/v1", "endpoint": Endpoint(
                 base_url="http://127.0.0.1:8900/v1", api_key_env="OPENAI_API_KEY")})),
        Case("provider_endpoint", "OpenAI's host, no certificate recorded", False,
             lambda: run(cfg={"endpoint": Endpoint(base_url=None, api_key_env="OPENAI_API_KEY")})),
        Case("provider_endpoint", "OpenAI's host, a certificate but no chain checked against the shipped store",
             False, lambda: run(cfg={"endpoint": PROVIDER.model_copy(update={"tls": None})})),
        Case("provider_endpoint", "OpenAI's host resolved to loopback, a private CA's chain", False,
             lambda: run(cfg={"endpoint": PROVIDER.model_copy(update={"tls": OPENAI_TLS.model_copy(update={
                 "address": "127.0.0.1", "trusted": False,
                 "problems": ("api.openai.com resolved to 127.0.0.1, a loopback address",)})})})),
        Case("provider_endpoint", "a rejudge at a loopback server", False,
             lambda: run(edit=_rejudged_at_a_recorded_endpoint), scorer="s2"),
        Case("complete_run", "finished, every question judged", True, lambda: run()),
        Case("complete_run", "not finished", False, lambda: run(edit=_unfinished)),
        Case("complete_run", "aborted", False, lambda: run(edit=_aborted)),
        Case("complete_run", "one question never judged", False, lambda: run(edit=_one_pending)),
    ]


def _unsampled_cases(run: Callable[..., list], name: str, some_kind: str) -> list[Case]:
    return [
        Case(name, "every question of every kind", True, lambda: run()),
        Case(name, "one question short of the release", False, lambda: run(drop=1)),
        Case(name, "a question limit", False, lambda: run(cfg={"question_limit": 1000})),
        Case(name, f"kind {some_kind} left out", False,
             lambda: run(cfg={"kinds": tuple(k for k in run()[1].kinds_available if k != some_kind)})),
    ]


def _real_models_cases(run: Callable[..., list]) -> list[Case]:
    return [
        Case("real_models", "real agent and judge", True, lambda: run()),
        Case("real_models", "offline models", False, lambda: run(cfg={"offline_models": True})),
    ]


def _prompt_cases(run: Callable[..., list], pins: dict[str, str]) -> list[Case]:
    first = sorted(pins)[0]
    return [
        Case("official_prompts", "every pinned template", True, lambda: run()),
        Case("official_prompts", f"template {first} changed", False,
             lambda: run(cfg={"prompt_hashes": {**pins, first: "0" * 64}})),
        Case("official_prompts", f"template {first} not recorded", False,
             lambda: run(cfg={"prompt_hashes": {k: v for k, v in pins.items() if k != first}})),
        Case("official_prompts", "the typed protocol", False, lambda: run(cfg={"protocol": "typed"})),
    ]


def _judge_cases(run: Callable[..., list], named: tuple[str, ...], vote: str) -> list[Case]:
    """`named`: the official judges; `vote`: the model the official verdicts report."""
    sibling = {LME_JUDGE: "gpt-4o-mini-2024-07-18", TRIO[0]: "openai/gpt-4.1-mini"}[named[0]]
    snapshot = {LME_JUDGE: None, TRIO[0]: "openai/gpt-4.1-2025-04-14"}[named[0]]
    undated = {LME_JUDGE: "gpt-4o", TRIO[0]: None}[named[0]]
    cases = [
        Case("official_judges", "the named judges, as reported", True, lambda: run()),
        Case("official_judges", f"a sibling {sibling} asked", False,
             lambda: run(scorer={"judge_models": (sibling, *named[1:])})),
        Case("official_judges", f"a sibling {sibling} reported", False,
             lambda: run(verdict_model=vote.replace(named[0], sibling))),
        Case("official_judges", "one judge too many", False,
             lambda: run(scorer={"judge_models": (*named, "gpt-4o-mini")})),
        Case("official_judges", "offline", False, lambda: run(scorer={"offline": True})),
    ]
    if snapshot:
        cases.append(Case("official_judges", f"its dated snapshot {snapshot} reported", True,
                          lambda: run(verdict_model=vote.replace(named[0], snapshot))))
    if undated:  # a dated name is pinned: its undated alias may serve another snapshot
        cases.append(Case("official_judges", f"the undated alias {undated} reported", False,
                          lambda: run(verdict_model=undated)))
    if len(named) > 1:
        cases.append(Case("official_judges", "one judge short", False, lambda: run(scorer={"judge_models": named[:-1]})))
        cases.append(Case("official_judges", "the same judges in another order", True,
                          lambda: run(scorer={"judge_models": tuple(reversed(named))})))
    return cases


def _scorer_cases(run: Callable[..., list], method: str, other: str) -> list[Case]:
    return [
        Case("official_scorer", f"scorer {method}", True, lambda: run()),
        Case("official_scorer", f"scorer {other}", False, lambda: run(scorer={"method": other})),
        Case("official_scorer", "the offline stand-in", False, lambda: run(scorer={"offline": True})),
    ]


def _release_cases(run: Callable[..., list], files: tuple[ReleaseFile, ...]) -> list[Case]:
    """The release files at their pins, fetched or given by path; one edited, even with a receipt's record
    vouching for the edit; none recorded."""
    edited = (files[-1].model_copy(update={"sha256": "0" * 64, "published": None, "origin": None}), *files[:-1])
    vouched = (files[-1].model_copy(update={"sha256": "0" * 64, "origin": "github.com/x/y", "revision": "1" * 40,
                                            "published": f"pinned sha256 {'0' * 64}"}), *files[:-1])
    by_path = tuple(f.model_copy(update={"origin": None, "revision": None, "published": None, "url": None})
                    for f in files)
    return [
        Case("official_release", "the official release", True, lambda: run()),
        Case("official_release", "the same files given by path", True, lambda: run(cfg={"release_files": by_path})),
        Case("official_release", f"{files[-1].path} edited", False, lambda: run(cfg={"release_files": edited})),
        Case("official_release", f"{files[-1].path} edited, a receipt vouching for it", False,
             lambda: run(cfg={"release_files": vouched})),
        Case("official_release", "no release file recorded", False, lambda: run(cfg={"release_files": ()})),
    ]


def groupmem_cases() -> list[Case]:
    run = groupmem_run
    dated, sibling = "gpt-5-2025-08-07", "gpt-5-mini"
    cases = [
        Case("complete_corpus", "all 100 messages", True, lambda: run()),
        Case("complete_corpus", "one message short", False, lambda: run(scopes={"default": 99}, available=100)),
        Case("complete_corpus", "a message limit", False, lambda: run(cfg={"message_limit": 100})),
        Case("solvability_filtered_domain", "Finance", True, lambda: run()),
        Case("solvability_filtered_domain", "Technology", True, lambda: run(cfg={"subset": "Technology"})),
        Case("solvability_filtered_domain", "Healthcare", False, lambda: run(cfg={"subset": "Healthcare"})),
        Case("unsampled_questions", "another released domain's count under Finance's name", False,
             lambda: run(edit=lambda ev: [e.model_copy(update={"questions": e.questions[:1] + e.questions[2:] +
                                                                e.questions[:1]}) if e.type == "QuestionsPlanned"
                                          else e for e in ev])),
    ]
    cases += _unsampled_cases(run, "unsampled_questions", "temporal")
    for k, met in ((9, False), (10, True), (11, False)):
        cases.append(Case("reference_protocol", f"k={k}", met, lambda k=k: run(cfg={"k": k})))
    for role in ("agent_model", "judge_model"):
        cases += [
            Case("reference_protocol", f"{role} gpt-5", True, lambda: run()),
            Case("reference_protocol", f"{role} {dated} asked", True, lambda role=role: run(cfg={role: dated})),
            Case("reference_protocol", f"{role} {sibling} asked", False, lambda role=role: run(cfg={role: sibling})),
        ]
    for event_type in (QuestionAnswered, Judged):
        cases += [
            Case("reference_protocol", f"{event_type.__name__} reported {dated}", True,
                 lambda t=event_type: run(edit=_reported(t, dated))),
            Case("reference_protocol", f"{event_type.__name__} reported {sibling}", False,
                 lambda t=event_type: run(edit=_reported(t, sibling))),
        ]
    cases += [
        Case("reference_protocol", "the typed protocol", False, lambda: run(cfg={"protocol": "typed"})),
        Case("reference_protocol", "an edited agent prompt", False,
             lambda: run(cfg={"prompt_hashes": {**config().prompt_hashes, "agent_system": "0" * 64}})),
        Case("reference_protocol", "the memory system's own model answers", False,
             lambda: run(cfg={"memory_model": "gpt-5"})),
        Case("reference_protocol", "offline models", False, lambda: run(cfg={"offline_models": True})),
    ]
    cases += _release_cases(run, groupmem_release("Finance"))
    return cases + shared_cases(run)



def locomo_cases() -> list[Case]:
    run = locomo_run
    seven = dict(list(TEN_CONVERSATIONS.items())[:7])
    cases = [
        Case("complete_file", "the ten conversations of the release", True, lambda: run()),
        Case("complete_file", "nine conversations", False, lambda: run(scopes=dict(list(TEN_CONVERSATIONS.items())[:9]))),
        Case("complete_file", "the dev file's seven", False, lambda: run(scopes=seven)),
        Case("complete_file", "eleven conversations (not the release)", False,
             lambda: run(scopes={**TEN_CONVERSATIONS, "conv-extra": 19})),
        Case("recorded_provenance", "the token F1 rule rescored, asking no endpoint", True,
             lambda: run(edit=lambda ev: [e.model_copy(update={"model_free": True}) if isinstance(e, ScorerStarted)
                                          else e for e in _rejudged_without_endpoint(ev)])),
        Case("no_limits", "no limit", True, lambda: run()),
        Case("no_limits", "a question limit", False, lambda: run(cfg={"question_limit": 10})),
    ]
    cases += _unsampled_cases(run, "all_categories", LOCOMO_KINDS[-1])
    cases += _real_models_cases(run) + _prompt_cases(run, LOCOMO_PINS)
    cases += _scorer_cases(run, F1_METHOD, LLM_JUDGE_METHOD)
    cases += _release_cases(run, LOCOMO_FILES)
    cases.append(Case("official_release", "one question short of the release", False, lambda: run(drop=1)))
    return cases + shared_cases(run)


def longmemeval_cases() -> list[Case]:
    run = longmemeval_run
    cases = _unsampled_cases(run, "unsampled_questions", QUESTION_TYPES[0])
    cases += _real_models_cases(run) + _prompt_cases(run, LME_PINS)
    cases += _scorer_cases(run, LME_METHOD, "longmemeval-typed")
    cases += _judge_cases(run, (LME_JUDGE,), LME_JUDGE)
    cases += _release_cases(run, LME_FILES)
    cases.append(Case("official_release", "one question short of the release", False, lambda: run(drop=1)))
    return cases + shared_cases(run)


def memora_cases() -> list[Case]:
    run = memora_run
    cases = [
        Case("all_personas", "every persona", True, lambda: run()),
        Case("all_personas", "one persona chosen", False, lambda: run(cfg={"personas": ("choir_librarian",)})),
    ]
    cases += _unsampled_cases(run, "unsampled_questions", MEMORA_TASKS[0])
    cases += _real_models_cases(run) + _prompt_cases(run, MEMORA_PINS)
    cases += _scorer_cases(run, MAJORITY_METHOD, "memora-single-judge")
    cases += _judge_cases(run, TRIO, VOTE)
    cases += _release_cases(run, MEMORA_FILES)
    cases.append(Case("official_release", "one file of the split not read", False,
                      lambda: run(cfg={"release_files": MEMORA_FILES[1:]})))
    return cases + shared_cases(run)


def longmemeval_v2_cases() -> list[Case]:
    run = longmemeval_v2_run
    cases = _unsampled_cases(run, "unsampled_questions", LME2_KINDS[0])
    cases += _real_models_cases(run) + _prompt_cases(run, LME2_PINS)
    cases += _scorer_cases(run, LME2_METHOD, "longmemeval-v2-typed")
    cases += [
        Case("leaderboard_models", "reader Qwen3.5-9B, judge gpt-5.2", True, lambda: run()),
        Case("leaderboard_models", "the judge's dated snapshot", True, lambda: run(cfg={"judge_model": "gpt-5.2-2025-12-11"})),
        Case("leaderboard_models", "reader Qwen3.5-27B", False, lambda: run(cfg={"agent_model": "Qwen3.5-27B"})),
        Case("leaderboard_models", "judge gpt-5.1", False, lambda: run(cfg={"judge_model": "gpt-5.1"})),
        Case("leaderboard_models", "the endpoint reported another reader", False,
             lambda: run(edit=_reported(QuestionAnswered, "qwen3-8b"))),
        Case("leaderboard_models", f"verdicts reported {LEADERBOARD_JUDGE}", True,
             lambda: run(edit=_reported(Judged, f"{LEADERBOARD_JUDGE}-2025-12-11"))),
        Case("leaderboard_models", "verdicts reported by another judge", False,
             lambda: run(edit=_reported(Judged, "gpt-4o"))),
        Case("official_release", "the release files, unpinned", False, lambda: run(),
             said="no pin for questions.jsonl"),
        Case("official_release", "one question of the domain short", False, lambda: run(drop=1),
             said=f"{2 * len(LME2_KINDS) - 1} of {2 * len(LME2_KINDS)} LongMemEval-V2 questions"),
        Case("official_release", "no release file recorded", False, lambda: run(cfg={"release_files": ()}),
             said="recorded no release files"),
    ]
    assert LEADERBOARD_READER in "Qwen3.5-9B".lower()
    return cases + shared_cases(run)


def mem2actbench_cases() -> list[Case]:
    run = mem2actbench_run
    cases = _unsampled_cases(run, "unsampled_questions", Mem2ActBench.kinds[-1])
    cases += _real_models_cases(run)
    cases += [
        Case("official_protocol", "the paper's protocol, as benchledger reads it", False, lambda: run(),
             said="publishes no scorer"),
        Case("official_release", "the release files, unpinned", False, lambda: run(), said="no pin can be known here"),
        Case("official_release", "one task of the split short", False, lambda: run(drop=1),
             said=f"{2 * len(Mem2ActBench.kinds) - 1} of {2 * len(Mem2ActBench.kinds)} Mem2ActBench tasks"),
        Case("official_release", "no release file recorded", False, lambda: run(cfg={"release_files": ()}),
             said="recorded no release files"),
    ]
    return cases + shared_cases(run)


CASES = {"GroupMemBench": groupmem_cases, "LoCoMo": locomo_cases, "LongMemEval": longmemeval_cases,
         "Memora": memora_cases, "LongMemEval-V2": longmemeval_v2_cases, "Mem2ActBench": mem2actbench_cases}
ALL_CASES = [(benchmark, case) for benchmark, cases in CASES.items() for case in cases()]


# -- the tests ------------------------------------------------------------------------------------

def test_every_registered_benchmark_has_its_boundary_cases():
    assert {"GroupMemBench", "LoCoMo", "LongMemEval", "Memora", "LongMemEval-V2", "Mem2ActBench"} <= set(BENCHMARKS)
    missing = sorted(set(BENCHMARKS) - set(CASES) | set(BENCHMARKS) - set(OFFICIAL_RUN))
    assert not missing, f"registered benchmarks with no official run or boundary cases here: {', '.join(missing)}"


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_one_complete_official_run_meets_every_condition(benchmark):
    report = _report(benchmark, OFFICIAL_RUN[benchmark]())
    never = {name for b, name in NEVER_MET if b == benchmark}
    assert [c.name for c in report.conditions if not c.met and c.name not in never] == []
    assert report.publishable is (not never) and report.status == ("diagnostic" if never else "publishable")


@pytest.mark.parametrize("benchmark, condition", sorted(NEVER_MET), ids=[f"{b}-{c}" for b, c in sorted(NEVER_MET)])
def test_a_condition_no_run_meets_today_fails_on_the_official_run(benchmark, condition):
    met = {c.name: c for c in _report(benchmark, OFFICIAL_RUN[benchmark]()).conditions}[condition]
    assert not met.met, f"{benchmark} {condition} is met now: give it a met case and take it out of NEVER_MET"
    assert met.reason


@pytest.mark.parametrize("benchmark, case", ALL_CASES,
                         ids=[f"{b}-{c.condition}-{c.label}" for b, c in ALL_CASES])
def test_each_condition_on_each_side_of_its_boundary(benchmark, case):
    report = _report(benchmark, case.build(), case.scorer)
    conditions = {c.name: c for c in report.conditions}
    condition = conditions[case.condition]
    assert condition.met is case.met, f"{case.label}: {condition.reason}"
    assert condition.reason and (case.said is None or case.said in condition.reason), condition.reason
    if not case.met:
        assert not report.publishable and report.status == "diagnostic"


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_every_condition_has_a_case_on_each_side(benchmark):
    declared = {c.name for c in _report(benchmark, OFFICIAL_RUN[benchmark]()).conditions}
    sides = {(case.condition, case.met) for b, case in ALL_CASES if b == benchmark}
    missing = sorted(f"{name} ({'met' if met else 'not met'})" for name in declared for met in (True, False)
                     if (name, met) not in sides and not (met and (benchmark, name) in NEVER_MET))
    assert not missing, f"{benchmark} declares conditions with no boundary case here: {', '.join(missing)}"
    assert {name for name, _ in sides} <= declared


def test_no_groupmembench_run_is_publishable_under_the_packages_own_pins():
    report = build_report("run-1", stored(groupmem_run()), conditions=benchmark_named("GroupMemBench").conditions)
    unmet = [c for c in report.conditions if not c.met]
    assert [c.name for c in unmet] == ["official_release"] and not report.publishable
    assert unmet[0].reason.startswith("no pin for data/final/Finance/synthetic_domain_channels_rolevariants_Finance.json")
