"""Memora's official prompts, pinned by SHA-256, filled as the official evaluators fill them.

The files are `../shared/data/memora/prompts/*.txt` (Apache-2.0, geniesinc/Memora @ a649318),
read at run time and never copied here; their named placeholders are filled in one pass.

Judge (`ModelEvaluator._build_judge_prompt`): the system message is static; the model track's
user message ends with context lines built from `{'target_item': …, 'evaluation_type': …}`. That
dict always holds both keys, so every judge prompt has the line "Target item being evaluated:
None" when a criterion has no `target_item`, as released criteria never do (quirk 20). The agent
track (`memory_to_answer.py`) sends the same system message and a user message without those
lines. Both are sent with temperature 0.0, no max_tokens, three attempts.

Answer (`PromptBuilder.build_question_prompt`): the system message gains the "Today's date"
sentence only when the question carries `session_date`, which released questions never do (they
have `question_date`, quirk 19); the user message is the conversation context and the question.
It is sent with temperature 0.7.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from benchledger.adapters.benchmarks.official_prompts import fill_named, read_pinned

__all__ = [
    "TEMPLATE_SHA256", "OFFICIAL_JUDGES", "JUDGE_TEMPERATURE", "ANSWER_TEMPERATURE",
    "CALL_ATTEMPTS", "ChatMessages", "ChatCall", "load_templates", "question_context",
    "context_info", "judge_messages", "judge_calls", "question_current_date", "answer_messages",
    "answer_call",
]

TEMPLATE_SHA256 = {
    "answer_system.txt": "971cc18d67e0568a36e20f3a1e531e7da106adc91b6b0ae78532ed34cf619760",
    "answer_system_with_date.txt": "442ce9c12db40aa8b581ca60ce3156d8766d696372f6cbba370c1eb12ea9dfdc",
    "answer_user.txt": "7ed641a0a9bfc9cc6240d4022842abc0dc9f1c36f7a401b92b56ac2b0c925aff",
    "judge.txt": "6e2a920533d5b9e30f199f563a86e0b2bfafe0f202ea2dc15f11a5c03e131a54",
    "judge_agent_track.txt": "fab39f311b6c96743387f60d85c97b8f1229dfe77f2fba5cfa94547aef72ce51",
    "judge_system.txt": "748158ad4eab4f426f2a2c1758735a85bb892aa21c5e20d426f5cd84cf532b19",
}

OFFICIAL_JUDGES = {
    "openai": "openai/gpt-4.1",
    "anthropic": "anthropic/claude-haiku-4.5",
    "google": "google/gemini-2.5-flash",
}
"""The official judge trio (name -> OpenRouter model), in the order the evaluator asks them."""

JUDGE_TEMPERATURE = 0.0
ANSWER_TEMPERATURE = 0.7
CALL_ATTEMPTS = 3
"""`OpenRouterClient` tries a call 3 times (1 s, then 2 s apart) before it raises; an empty or
null content counts as a failed attempt."""

Track = Literal["model", "agent"]


@dataclass(frozen=True)
class ChatMessages:
    """A system and a user message, as `OpenRouterClient.generate_response` sends them."""

    system: str
    user: str

    def as_list(self) -> list[dict[str, str]]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]


@dataclass(frozen=True)
class ChatCall:
    """One official call: the model, its two messages, its temperature (no max_tokens is set)."""

    model: str
    messages: ChatMessages
    temperature: float
    reasoning: Mapping[str, Any] | None = None
    """The optional OpenRouter reasoning config of the answer call (`extra_body`)."""

    def create_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of `client.chat.completions.create`."""
        kwargs: dict[str, Any] = {"model": self.model, "messages": self.messages.as_list(),
                                  "temperature": self.temperature}
        if self.reasoning:
            kwargs["extra_body"] = {"reasoning": dict(self.reasoning)}
        return kwargs


def load_templates(folder: Path) -> dict[str, str]:
    """Every official Memora prompt file of `folder` by name, checked against its pin."""
    return read_pinned(Path(folder), TEMPLATE_SHA256)


def question_context(criterion: Mapping[str, Any]) -> dict[str, Any]:
    """The dict the model-track evaluator builds for each criterion (both keys, always)."""
    return {"target_item": criterion.get("target_item"),
            "evaluation_type": criterion.get("evaluation_type")}


def context_info(context: Mapping[str, Any] | None) -> str:
    """The judge prompt's context lines: one per key present, an empty dict giving ""."""
    if not context:
        return ""
    info = ""
    if "target_item" in context:
        info += f"\nTarget item being evaluated: {context['target_item']}"
    if "evaluation_type" in context:
        info += f"\nEvaluation type: {context['evaluation_type']}"
    return info


def judge_messages(templates: Mapping[str, str], model_response: Any, criterion: Mapping[str, Any],
                   *, track: Track = "model") -> ChatMessages:
    """The judge's messages for one criterion (a released evaluation question dict)."""
    values = {"model_response": format(model_response, ""),
              "evaluation_question": format(criterion["evaluation_question"], "")}
    if track == "model":
        user = fill_named(templates["judge.txt"], **values,
                          context_info=context_info(question_context(criterion)))
    else:
        user = fill_named(templates["judge_agent_track.txt"], **values)
    return ChatMessages(system=templates["judge_system.txt"], user=user)


def judge_calls(templates: Mapping[str, str], model_response: Any, criterion: Mapping[str, Any],
                judges: Mapping[str, str] = OFFICIAL_JUDGES, *, track: Track = "model"
                ) -> dict[str, ChatCall]:
    """Each judge's call for one criterion: the same messages, temperature 0.0."""
    messages = judge_messages(templates, model_response, criterion, track=track)
    return {name: ChatCall(model, messages, JUDGE_TEMPERATURE) for name, model in judges.items()}


def question_current_date(question: Mapping[str, Any]) -> Any:
    """The date the official evaluator tells the model: `session_date`, not `question_date`."""
    return question.get("session_date")


def answer_messages(templates: Mapping[str, str], context: str, question: Any,
                    current_date: Any = None) -> ChatMessages:
    if current_date:
        system = fill_named(templates["answer_system_with_date.txt"],
                            current_date=format(current_date, ""))
    else:
        system = templates["answer_system.txt"]
    user = fill_named(templates["answer_user.txt"], context=context, question=format(question, ""))
    return ChatMessages(system=system, user=user)


def answer_call(templates: Mapping[str, str], model: str, context: str,
                question: Mapping[str, Any], *,
                reasoning: Mapping[str, Any] | None = None) -> ChatCall:
    """The model track's answer call for one released question (temperature 0.7)."""
    messages = answer_messages(templates, context, question["question"],
                               question_current_date(question))
    return ChatCall(model, messages, ANSWER_TEMPERATURE, reasoning)
