"""GroupMemBench's publishable conditions and the released facts they pin.

The five conditions (the seed documents of this project): the complete corpus (no message limit),
unsampled questions (no question limit, every kind, exactly the released question set of the
domain, pinned by SHA-256), a solvability-filtered domain (Finance or Technology: this project's
design, following the benchmark's solvability filtering), the reference protocol (k=10, agent and
judge gpt-5 (or a dated snapshot of it, never a sibling such as gpt-5-mini) as requested and as
the endpoint reported, the released prompts pinned by SHA-256, a
reference-protocol scorer, neither model the memory system's own), and zero operational failures,
and `official_release`: every file read hashes to its pin (`pins.json`). The question sets and
prompts are pinned; the domain's corpus has no pin (no public source states its SHA-256), so a run
says `no pin for data/final/<Domain>/…: official_release cannot be checked` and is diagnostic.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.groupmem.schema import KINDS
from benchledger.adapters.benchmarks.groupmem.source import PINS
from benchledger.projections.memory_costs import memory_models_observed
from benchledger.projections.publishable import (
    Check, Condition, complete_corpus, is_model_or_snapshot, judge_of, models_reported, names, run_config,
    unsampled_questions, zero_failures,
)
from benchledger.projections.releases import official_release
from benchledger.projections.state import RunState
from benchledger.projections.tallies import KindTally

__all__ = [
    "CONDITIONS", "SOLVABILITY_FILTERED_DOMAINS", "REFERENCE_MODEL", "REFERENCE_K",
    "RELEASED_PROMPTS", "RELEASED_QUESTIONS",
]

SOLVABILITY_FILTERED_DOMAINS = ("Finance", "Technology")
REFERENCE_MODEL = "gpt-5"
REFERENCE_K = 10

# SHA-256 of the released GroupMemBench prompts, as files and as the released harness reads them (stripped).
RELEASED_PROMPTS: dict[str, frozenset[str]] = {
    "agent_system": frozenset({
        "c2019778844ba90e854d80bf25a9a0a316c50538acb9c12ce6dd070b7013865d",
        "6f615239d41d413f991d7682c653d4a51beda9b1308846ed8ad494cfdf01ad11",
    }),
    "judge_system": frozenset({
        "abcd96fd2df5eff8d4d32d516da7d84847478a03928d39456f54770657966fc1",
        "0585650da63ba4fbd83109897d7228ee8b8af39362c516d118df630224912fd2",
    }),
}

# The released question sets (CoalMem-Evidence-Coalition-Selection @ ad676f4), as (count, SHA-256 of
# `question_set_sha256`).
RELEASED_QUESTIONS: dict[str, tuple[int, str]] = {
    "Finance": (214, "4f783691ee67d63b1bebebb63ec68d4d943d3688886e373044b7da90566f00e5"),
    "Healthcare": (145, "638b8b111d3ebffc3227d596f921aac46260242c2dc55898e110c5d449a427fd"),
    "Manufacturing": (173, "b76c9b7ff58cda11ab98b9493a105be67a4c7966ac5c4c6ea4c5863a327a53f9"),
    "Technology": (213, "c8a8d917e798eae57c7a33c7b06570209bd63fbc644083eeb6038060946ccfdb"),
}


@names("solvability_filtered_domain")
def filtered_domain(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    domain = run_config(state).subset
    met = domain in SOLVABILITY_FILTERED_DOMAINS
    reason = (f"{domain} is solvability-filtered" if met else
              f"{domain} is not a solvability-filtered domain ({' or '.join(SOLVABILITY_FILTERED_DOMAINS)})")
    return Condition(name="solvability_filtered_domain", met=met, reason=reason)


def reference_protocol(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    cfg = run_config(state)
    judge_model, judge_offline, judge_protocol = judge_of(state, scorer)
    problems = []
    if cfg.settings.k != REFERENCE_K:
        problems.append(f"k={cfg.settings.k}, not {REFERENCE_K}")
    if cfg.settings.protocol != "reference":
        problems.append(f"protocol {cfg.settings.protocol}, not reference")
    if cfg.offline_models or judge_offline:
        problems.append("offline deterministic models answered or judged")
    for role, model in (("agent", cfg.agent_model), ("judge", judge_model)):
        if not is_model_or_snapshot(model, REFERENCE_MODEL):
            problems.append(f"{role} model {model}, not {REFERENCE_MODEL}")
        if model in memory_models_observed(state):  # what its calls showed, not only what it declared
            problems.append(f"{role} model is the memory system's own model")
    for name, released in RELEASED_PROMPTS.items():
        if cfg.prompt_hashes.get(name) not in released:
            problems.append(f"{name} prompt is not the released one")
    if scorer in state.scorers:
        judge = state.scorers[scorer]
        if judge_protocol != "reference":
            problems.append(f"scorer {scorer} judged with the {judge_protocol} protocol")
        elif (judge.prompt_hash not in RELEASED_PROMPTS["judge_system"]
              and cfg.prompt_hashes.get("judge_system") in RELEASED_PROMPTS["judge_system"]):
            problems.append(f"scorer {scorer} judged with a judge prompt that is not the released one")
    for role, models in zip(("answers", "verdicts"), models_reported(state, scorer)):
        # Models already named above as not gpt-5 need no second mention.
        others = sorted(m for m in models if not is_model_or_snapshot(m, REFERENCE_MODEL)
                        and m not in (cfg.agent_model, judge_model))
        if others:
            problems.append(f"{role} came from {', '.join(others)} as the endpoint reported")
    if problems:
        return Condition(name="reference_protocol", met=False, reason="; ".join(problems))
    return Condition(name="reference_protocol", met=True,
                     reason="k=10, gpt-5 agent and judge, released prompts, independent of the memory's model")


CONDITIONS: tuple[Check, ...] = (
    official_release("GroupMemBench", PINS), complete_corpus("messages"), unsampled_questions(RELEASED_QUESTIONS, all_kinds=KINDS), filtered_domain,
    reference_protocol, zero_failures,
)
