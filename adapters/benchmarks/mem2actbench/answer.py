"""Mem2ActBench's agent and scorer: one tool call from the recalled memory, scored as an action.

`ActionAnswerModel` asks an endpoint for the call through the tools interface, forced (`tool_choice`
names the tool when one is offered, "required" among several), where the endpoint supports it; an
endpoint that refuses the tools request (HTTP 400, 404 or 422) is asked the paper's JSON call from
then on, by that model in this run, and every answer records the interface it was asked through.
`OfflineActionAnswerer` is the offline agent (`adapters.models.offline_actions`, a labelled
baseline). Either records the action record of `adapters.models.tool_calls` as its answer; no valid
call is a wrong action, scored 0, never a `Failed`.

`ActionScorer` asks no model: it reads the recorded action and scores it against the gold call
(`scoring.py`). Its verdict is "correct" only for an exact action (tool and every argument); its
score is the argument F1; its criteria say whether a call was made, the tool selected and the
action exact.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any, ClassVar

from benchledger.adapters.benchmarks.base import Dataset, Prompts, Question
from benchledger.adapters.benchmarks.mem2actbench.candidates import openai_tools, tool_names
from benchledger.adapters.benchmarks.mem2actbench.prompts import (
    PROMPT_HASHES, SYSTEM, TEMPERATURE, memory_passages, user_prompt,
)
from benchledger.adapters.benchmarks.mem2actbench.schema import ToolSchema
from benchledger.adapters.benchmarks.mem2actbench.scoring import score_action
from benchledger.adapters.benchmarks.official import OfficialProtocol, Templates
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.base import Answer, AnswerModel, JudgeModel, ModelError, TransientModelError, Verdict
from benchledger.adapters.models.factory import ModelContext
from benchledger.adapters.models.offline_actions import OFFLINE_ACTOR, offline_call
from benchledger.adapters.models.openai_chat import ChatClient
from benchledger.adapters.models.tool_calls import (
    Action, CallRefused, Interface, action_record, parse_json_call, parse_tool_reply, read_action,
)

__all__ = ["ACTION_METHOD", "ACTION_SCORER", "ActionAnswerModel", "OfflineActionAnswerer", "ActionScorer",
           "Mem2ActPaper", "offered", "TOOLS_REFUSED"]

ACTION_METHOD = "mem2act-action"
ACTION_SCORER = "mem2act-action-rules/1"
"""The name the scorer records as its judge: rules, not a model."""
TOOLS_REFUSED = frozenset({400, 404, 422})
"""HTTP statuses with which an endpoint refusing the tools parameter answers: then the JSON call is asked."""


def offered(question: Question) -> tuple[ToolSchema, ...]:
    """The candidate tools the task offers, in the order the agent sees them."""
    return tuple(ToolSchema.model_validate(tool) for tool in json.loads(question.extra["candidate_tools"]))


def _released(tools: tuple[ToolSchema, ...]) -> list[dict[str, Any]]:
    return [tool.model_dump(mode="json", exclude_none=True) for tool in tools]


class ActionAnswerModel:
    """One forced tool call (or the JSON call) over the recalled memory."""

    offline = False
    prompt_hashes = PROMPT_HASHES

    def __init__(self, client: ChatClient, model: str, interface: Interface = "tools") -> None:
        self.client, self.name, self.interface = client, model, interface
        self._lock = threading.Lock()

    def answer(self, question: Question, context: list[Candidate], prompts: Prompts | None) -> Answer:
        tools = offered(question)
        passages = memory_passages(context)
        with self._lock:
            interface = self.interface
        if interface == "tools":
            try:
                return self._ask_tools(question, passages, tools)
            except TransientModelError:
                raise
            except ModelError as err:
                if err.status_code not in TOOLS_REFUSED:
                    raise
                with self._lock:
                    self.interface = "json"
        return self._ask_json(question, passages, tools)

    def _messages(self, question: Question, passages: list[str], listed: list[dict] | None) -> list[dict]:
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user_prompt(passages, question.text,
                                                                                               listed)}]

    def _ask_tools(self, question: Question, passages: list[str], tools: tuple[ToolSchema, ...]) -> Answer:
        functions = openai_tools(tools)
        choice: Any = ({"type": "function", "function": {"name": functions[0]["function"]["name"]}}
                       if len(functions) == 1 else "required")
        result = self.client.complete(model=self.name, messages=self._messages(question, passages, None),
                                      params={"temperature": TEMPERATURE, "tools": functions, "tool_choice": choice})
        try:
            action = Action(parse_tool_reply(result.text, tool_names(tools)), "", "tools")
        except CallRefused as refused:
            action = Action(None, str(refused), "tools", missing=refused.missing)
        return Answer(answer=action_record(action), abstained=False, raw=result.text, model=result.model,
                      usage=result.usage, cache_hit=result.cache_hit, latency_ms=result.latency_ms)

    def _ask_json(self, question: Question, passages: list[str], tools: tuple[ToolSchema, ...]) -> Answer:
        result = self.client.complete(model=self.name, messages=self._messages(question, passages, _released(tools)),
                                      params={"temperature": TEMPERATURE})
        try:
            action = Action(parse_json_call(result.text), "", "json")
        except CallRefused as refused:
            action = Action(None, str(refused), "json", missing=refused.missing)
        return Answer(answer=action_record(action), abstained=False, raw=result.text, model=result.model,
                      usage=result.usage, cache_hit=result.cache_hit, latency_ms=result.latency_ms)


class OfflineActionAnswerer:
    """The offline agent's call over the recalled memory (a labelled baseline)."""

    name = OFFLINE_ACTOR
    offline = True
    prompt_hashes: dict[str, str] = {}

    def answer(self, question: Question, context: list[Candidate], prompts: Prompts | None) -> Answer:
        call = offline_call(question.text, memory_passages(context), _released(offered(question)))
        action = Action(call, "" if call else "no tool was offered", "offline", missing=call is None)
        raw = json.dumps(call, ensure_ascii=False, sort_keys=True)
        return Answer(answer=action_record(action), abstained=False, raw=raw, model=self.name)


class ActionScorer:
    """The recorded action scored against the gold call by `scoring.py`; no model is asked."""

    name = ACTION_SCORER
    offline = False
    asks_model = False
    method = ACTION_METHOD
    prompt_hashes: dict[str, str] = {}

    def judge(self, question: Question, answer: Answer, prompts: Prompts | None) -> Verdict:
        action = read_action(answer.answer)
        gold = json.loads(question.extra["gold_call"])
        score = score_action(action.call, gold, json.loads(question.extra["tool_schema"]))
        if not score.called:
            reason = f"no valid call ({action.interface}): {action.error}"
        else:
            wrong = f"; wrong: {', '.join(score.wrong)}" if score.wrong else ""
            extra = f"; extra: {', '.join(score.extra)}" if score.extra else ""
            chosen = action.call["name"] if action.call else ""
            reason = (f"{'tool selected' if score.tool_selected else 'wrong tool ' + repr(chosen)}; "
                      f"argument P {score.precision:.3f} R {score.recall:.3f} F1 {score.f1:.3f}, "
                      f"BLEU-1 {score.bleu1:.3f}{wrong}{extra}")
        yes = {True: "yes", False: "no"}
        return Verdict(verdict="correct" if score.exact else "incorrect", reason=reason, model=self.name,
                       score=score.f1, criteria={"called": yes[score.called], "tool_selected": yes[score.tool_selected],
                                                 "exact": yes[score.exact]})


class Mem2ActPaper(OfficialProtocol):
    """The task as the paper describes it; not official (the repository publishes no scorer)."""

    benchmark = "Mem2ActBench"
    summary = ("as the paper describes it (arXiv 2601.19935): one tool call from the recalled memory, temperature 0, "
               "scored by benchledger's reading of the paper's metrics; the repository publishes no scorer")
    template_pins: ClassVar[Mapping[str, str]] = {}
    template_source = "none: the paper's prompts are not published"
    scorer_methods = (ACTION_METHOD,)
    template_free_methods = (ACTION_METHOD,)
    is_official = False

    def answer_model(self, context: ModelContext, templates: Templates, dataset: Dataset) -> AnswerModel:
        if context.offline_agent:
            return OfflineActionAnswerer()
        return self.official_answerer(context.client(), context.agent_model, templates, dataset)

    def official_answerer(self, client: ChatClient, model: str, templates: Templates, dataset: Dataset) -> AnswerModel:
        return ActionAnswerModel(client, model)

    def scorer(self, context: ModelContext, templates: Templates, method: str) -> JudgeModel:
        return ActionScorer()
