"""Turn run options into an (answer model, judge model) pair.

With no agent model and no base URL the pair is offline (`offline-extractive/1`,
`offline-lexical-judge/1`); with no agent model but a judge model, only the answerer is offline
(rejudging needs no agent). Either offline name may also be asked for explicitly, so a real
agent can be judged offline and the other way round. The judge defaults to the agent model.
Real models share one `ChatClient` (one connection pool, one cache); asking for one without
the API key in the environment is `BadInput` naming the variable, never its value.

Every model exposes `name`, `offline` and `prompt_hashes` for `RunStarted`.
"""

from __future__ import annotations

from typing import Literal

from benchledger.adapters.benchmarks.base import Prompts
from benchledger.adapters.models.base import AnswerModel, JudgeModel
from benchledger.adapters.models.offline import (
    OFFLINE_ANSWERER, OFFLINE_JUDGE, OfflineExtractiveAnswerer, OfflineLexicalJudge,
)
from benchledger.adapters.models.openai_chat import ChatClient
from benchledger.adapters.models.reference import ReferenceAnswerModel, ReferenceJudgeModel
from benchledger.adapters.models.response_cache import ResponseCache
from benchledger.adapters.models.typed import TypedAnswerModel, TypedJudgeModel
from benchledger.errors import BadInput

__all__ = ["build_models", "OFFLINE_NAMES"]

OFFLINE_NAMES = frozenset({OFFLINE_ANSWERER, OFFLINE_JUDGE})


def build_models(
    *,
    agent_model: str | None,
    judge_model: str | None,
    protocol: Literal["reference", "typed"],
    base_url: str | None,
    api_key_env: str = "OPENAI_API_KEY",
    cache: ResponseCache | None,
    timeout: float = 60.0,
    max_attempts: int = 6,
    prompts: Prompts | None = None,
    backoff_base: float = 0.5,
) -> tuple[AnswerModel, JudgeModel]:
    """The answer and judge models for a run; `prompts` only pre-fills the reference prompts."""
    if protocol not in ("reference", "typed"):
        raise BadInput(f"unknown protocol {protocol!r}; use reference or typed", field="protocol")
    if agent_model is None:
        if base_url is not None and judge_model is None:
            raise BadInput("--base-url needs --agent-model (the model to ask at that endpoint)",
                           field="agent_model")
        agent_model = OFFLINE_ANSWERER  # e.g. rejudging with a real judge needs no agent
    if judge_model is None:
        judge_model = OFFLINE_JUDGE if agent_model == OFFLINE_ANSWERER else agent_model
    for role, name in (("agent_model", agent_model), ("judge_model", judge_model)):
        if name in OFFLINE_NAMES and name != (OFFLINE_ANSWERER if role == "agent_model" else OFFLINE_JUDGE):
            raise BadInput(f"{name} cannot be the {role.split('_')[0]}", field=role)

    client: ChatClient | None = None
    if agent_model not in OFFLINE_NAMES or judge_model not in OFFLINE_NAMES:
        client = ChatClient(base_url=base_url, api_key_env=api_key_env, timeout=timeout,
                            max_attempts=max_attempts, backoff_base=backoff_base, cache=cache)

    answerer: AnswerModel
    judge: JudgeModel
    if agent_model == OFFLINE_ANSWERER:
        answerer = OfflineExtractiveAnswerer()
    elif protocol == "reference":
        answerer = ReferenceAnswerModel(client, agent_model, prompts=prompts)  # type: ignore[arg-type]
    else:
        answerer = TypedAnswerModel(client, agent_model)  # type: ignore[arg-type]
    if judge_model == OFFLINE_JUDGE:
        judge = OfflineLexicalJudge()
    elif protocol == "reference":
        judge = ReferenceJudgeModel(client, judge_model, prompts=prompts)  # type: ignore[arg-type]
    else:
        judge = TypedJudgeModel(client, judge_model)  # type: ignore[arg-type]
    return answerer, judge
