"""Turn run options into models: `ModelContext` for any protocol, `build_models` for reference and typed.

With no agent model and no base URL the models are offline (`offline-extractive/1`,
`offline-lexical-judge/1`); with no agent model but a judge model, only the answerer is offline
(rejudging needs no agent). Either offline name may also be asked for explicitly, so a real
agent can be judged offline and the other way round. The judge defaults to the agent model, or
to a benchmark's official judge when its official protocol names one (`ModelContext.judge_name`).
Real models share one `ChatClient` (one connection pool, one cache, one `EndpointScheduler` when
the caller gives one), opened on first use; asking
for one without the API key in the environment is `BadInput` naming the variable, never its value.

A benchmark's official protocol (`adapters.benchmarks.official`) opens its own models from a
`ModelContext`; `build_models` does it for the two generic protocols. Every model exposes `name`,
`offline` and `prompt_hashes` for `RunStarted`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from benchledger.adapters.benchmarks.base import Prompts
from benchledger.adapters.models.base import AnswerModel, JudgeModel
from benchledger.adapters.models.offline import (
    OFFLINE_ANSWERER, OFFLINE_JUDGE, OfflineExtractiveAnswerer, OfflineLexicalJudge,
)
from benchledger.adapters.models.openai_chat import ChatClient
from benchledger.adapters.models.reference import ReferenceAnswerModel, ReferenceJudgeModel
from benchledger.adapters.models.response_cache import ResponseCache
from benchledger.adapters.models.scheduler import EndpointScheduler
from benchledger.adapters.models.typed import TypedAnswerModel, TypedJudgeModel
from benchledger.errors import BadInput
from benchledger.settings import ModelCalls

__all__ = ["build_models", "model_context", "ModelContext", "OFFLINE_NAMES"]

OFFLINE_NAMES = frozenset({OFFLINE_ANSWERER, OFFLINE_JUDGE})


@dataclass
class ModelContext:
    """The model names a run asks for, resolved, and the one chat client they share."""

    agent_model: str
    """The answer model, or `offline-extractive/1`."""
    judge_model: str | None
    """The judge asked for (None: the protocol's default, see `judge_name`)."""
    judge_models: tuple[str, ...] = ()
    """Judges that vote together (Memora's official protocol)."""
    calls: ModelCalls = field(default_factory=ModelCalls)
    """Where and how patiently the shared client calls (the run's `RunSettings.model_calls`)."""
    cache: ResponseCache | None = None
    scheduler: EndpointScheduler | None = None
    """Paces every call of the shared client (None: no pacing, the pool's size alone)."""
    _client: ChatClient | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str | None:
        return self.calls.base_url

    @property
    def offline_agent(self) -> bool:
        return self.agent_model == OFFLINE_ANSWERER

    def judge_name(self, official: str | None = None) -> str:
        """The judge: the one asked for, else the offline judge beside an offline agent with no
        endpoint, else `official` (a benchmark's named judge) or the agent model."""
        if self.judge_model is not None:
            return self.judge_model
        if self.offline_agent and self.base_url is None:
            return OFFLINE_JUDGE
        return official or (OFFLINE_JUDGE if self.offline_agent else self.agent_model)

    def client(self) -> ChatClient:
        """The shared chat client, opened on first use (BadInput when the API key is not set)."""
        if self._client is None:
            self._client = ChatClient(self.calls, cache=self.cache, scheduler=self.scheduler)
        return self._client

    def offline_answerer(self) -> OfflineExtractiveAnswerer:
        return OfflineExtractiveAnswerer()

    def offline_judge(self) -> OfflineLexicalJudge:
        return OfflineLexicalJudge()


def model_context(*, agent_model: str | None, judge_model: str | None, judge_models: tuple[str, ...] = (),
                  calls: ModelCalls = ModelCalls(), cache: ResponseCache | None,
                  scheduler: EndpointScheduler | None = None, client: ChatClient | None = None) -> ModelContext:
    """The names checked and resolved: an offline agent when none is named, offline names in their roles."""
    if agent_model is None:
        if calls.base_url is not None and judge_model is None and not judge_models:
            raise BadInput("--base-url needs --agent-model (the model to ask at that endpoint)",
                           field="agent_model")
        agent_model = OFFLINE_ANSWERER  # e.g. rejudging with a real judge needs no agent
    for role, name in (("agent_model", agent_model), ("judge_model", judge_model),
                       *(("judge_models", name) for name in judge_models)):
        if name in OFFLINE_NAMES and name != (OFFLINE_ANSWERER if role == "agent_model" else OFFLINE_JUDGE):
            raise BadInput(f"{name} cannot be the {role.split('_')[0]}", field=role)
    return ModelContext(agent_model=agent_model, judge_model=judge_model, judge_models=tuple(judge_models),
                        calls=calls, cache=cache, scheduler=scheduler, _client=client)


def build_models(
    *,
    agent_model: str | None,
    judge_model: str | None,
    protocol: Literal["reference", "typed"],
    calls: ModelCalls = ModelCalls(),
    cache: ResponseCache | None,
    prompts: Prompts | None = None,
    scheduler: EndpointScheduler | None = None,
    client: ChatClient | None = None,
) -> tuple[AnswerModel, JudgeModel]:
    """The answer and judge models of a reference or typed run; `prompts` pre-fills the reference prompts.

    `client` replaces the shared chat client (a forecast's, which sends nothing)."""
    if protocol not in ("reference", "typed"):
        raise BadInput(f"unknown protocol {protocol!r}; use reference or typed", field="protocol")
    context = model_context(agent_model=agent_model, judge_model=judge_model, calls=calls, cache=cache,
                            scheduler=scheduler, client=client)
    judge_name = context.judge_model or (OFFLINE_JUDGE if context.offline_agent else context.agent_model)
    answerer: AnswerModel
    judge: JudgeModel
    if context.offline_agent:
        answerer = context.offline_answerer()
    elif protocol == "reference":
        answerer = ReferenceAnswerModel(context.client(), context.agent_model, prompts=prompts)
    else:
        answerer = TypedAnswerModel(context.client(), context.agent_model)
    if judge_name == OFFLINE_JUDGE:
        judge = context.offline_judge()
    elif protocol == "reference":
        judge = ReferenceJudgeModel(context.client(), judge_name, prompts=prompts)
    else:
        judge = TypedJudgeModel(context.client(), judge_name)
    return answerer, judge
