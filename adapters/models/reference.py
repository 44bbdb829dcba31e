"""The `reference` protocol: GroupMemBench's released call shape, exactly.

System prompts are the release's `agent_system.txt` / `judge_system.txt` (from `Prompts`), sent
stripped as the release reads them. The agent's user prompt is

    Asking user: <id>            (only when the question has an asking user)

    Question:
    <question>

    Retrieved passages:
    [1] [user=<author> / speaker_role=<role> / channel=<channel> / phase_name=<phase> / topic=<topic> / timestamp=<ts> / reply_to=<id> / msg_node=<id>]
    <content>

    [2] ...

    Answer the question using the retrieved passages.

with empty header fields left out (an unknown author shows as `user=?`, as released). The
judge's user prompt is `Question:\\n<q>\\n\\nGold Answer:\\n<gold>\\n\\nAgent Answer:\\n<final>\\n`.
Answers and verdicts come from the LAST line starting with `Final:` or `Final answer:` (any
case); a reply with no such line is a `ModelParseError`, an operational failure. A verdict
saying "incorrect", "not correct" or "wrong" is incorrect, else one saying "correct" is correct,
else it is recorded as `unclear`, never guessed.

A Memora question (one with criteria) is judged one call per criterion, with
`adapters.models.criteria.CRITERION_JUDGE_SYSTEM` (Memora releases no judge prompt) in the same
call shape; each reply's `Final:` line is read as yes or no (anything else is unclear), and a
reply without one is a `ModelParseError` like any other.

Call parameters follow the release: temperature 0.2 and `max_tokens` (agent 512, judge 256),
except for reasoning models (gpt-5, o1, o3, o4), which get `max_completion_tokens` and no
temperature, and gpt-5, whose instructions go in a `developer` message.
"""

from __future__ import annotations

import re
from benchledger.adapters.benchmarks.base import Document, Prompts, Question
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.abstention import is_abstention
from benchledger.adapters.models.base import Answer, ModelParseError, Verdict, Verdict_
from benchledger.adapters.models.criteria import (
    CRITERION_JUDGE_SYSTEM, CRITERION_PROMPT_HASHES, CriterionJudgment, combine_judgments,
    criterion_user_prompt, parse_yes_no,
)
from benchledger.adapters.models.openai_chat import ChatClient
from benchledger.errors import BadInput

__all__ = [
    "format_passage", "agent_user_prompt", "judge_user_prompt", "parse_final", "parse_verdict",
    "release_call_shape", "ReferenceAnswerModel", "ReferenceJudgeModel",
    "AGENT_MAX_TOKENS", "JUDGE_MAX_TOKENS", "TEMPERATURE",
]

AGENT_MAX_TOKENS = 512
JUDGE_MAX_TOKENS = 256
TEMPERATURE = 0.2
_REASONING_MODELS = ("gpt-5", "o1", "o3", "o4")
_FINAL = re.compile(r"^\s*final(?:\s+answer)?\s*:(.*)$", re.IGNORECASE)


def _timestamp(document: Document) -> str | None:
    if "timestamp" in document.extra:  # the release's own spelling, when the adapter kept it
        return document.extra["timestamp"]
    return document.timestamp.isoformat() if document.timestamp else None


def format_passage(document: Document) -> str:
    """The release's passage header and body."""
    tags = [f"user={document.author or '?'}"]
    fields = (
        ("speaker_role", document.role), ("channel", document.channel), ("phase_name", document.phase),
        ("topic", document.topic), ("timestamp", _timestamp(document)), ("reply_to", document.reply_to),
        ("msg_node", document.doc_id),
    )
    tags += [f"{label}={value}" for label, value in fields if value not in (None, "")]
    return f"[{' / '.join(tags)}]\n{document.text.strip()}".strip()


def agent_user_prompt(question: Question, context: list[Candidate]) -> str:
    passages = "\n\n".join(
        f"[{number}] {format_passage(candidate.document)}"
        for number, candidate in enumerate(sorted(context, key=lambda c: c.rank), start=1)
    )
    asker = f"Asking user: {question.asking_user}\n\n" if question.asking_user else ""
    return (f"{asker}Question:\n{question.text}\n\nRetrieved passages:\n{passages}\n\n"
            "Answer the question using the retrieved passages.")


def judge_user_prompt(question: Question, final: str) -> str:
    return f"Question:\n{question.text}\n\nGold Answer:\n{question.gold}\n\nAgent Answer:\n{final}\n"


def parse_final(text: str) -> str:
    """The text after the last `Final:` / `Final answer:` line; ModelParseError when there is none."""
    for line in reversed(text.splitlines()):
        if match := _FINAL.match(line):
            return match.group(1).strip()
    raise ModelParseError("the reply has no 'Final:' line")


def parse_verdict(final: str) -> Verdict_:
    lowered = final.lower()
    if "incorrect" in lowered or "not correct" in lowered or "wrong" in lowered:
        return "incorrect"
    return "correct" if "correct" in lowered else "unclear"


def release_call_shape(model: str, system: str, user: str, *, max_tokens: int,
                       temperature: float) -> tuple[list[dict], dict]:
    """(messages, params) as the release sends them for this model."""
    name = model.strip().lower()
    reasoning = name.startswith(_REASONING_MODELS)
    role = "developer" if name.startswith("gpt-5") else "system"
    messages = [{"role": role, "content": system.strip()}, {"role": "user", "content": user}]
    params: dict = {"max_completion_tokens": max_tokens} if reasoning else {"max_tokens": max_tokens}
    if not reasoning:
        params["temperature"] = temperature
    return messages, params


def _prompts(given: Prompts | None, fallback: Prompts | None) -> Prompts:
    prompts = given or fallback
    if prompts is None:
        raise BadInput("the reference protocol needs the release's prompts (agent_system.txt, "
                       "judge_system.txt); use --protocol typed for a release without them", field="prompts")
    return prompts


class ReferenceAnswerModel:
    """Answers with the release's agent prompt and passage format; parses the `Final:` line."""

    offline = False

    def __init__(self, client: ChatClient, model: str, *, prompts: Prompts | None = None,
                 max_tokens: int = AGENT_MAX_TOKENS, temperature: float = TEMPERATURE) -> None:
        self.client, self.name, self.prompts = client, model, prompts
        self.max_tokens, self.temperature = max_tokens, temperature

    @property
    def prompt_hashes(self) -> dict[str, str]:
        return {"agent_system": self.prompts.hashes["agent_system"]} if self.prompts else {}

    def answer(self, question: Question, context: list[Candidate], prompts: Prompts | None) -> Answer:
        system = _prompts(prompts, self.prompts).agent_system
        messages, params = release_call_shape(self.name, system, agent_user_prompt(question, context),
                                              max_tokens=self.max_tokens, temperature=self.temperature)
        result = self.client.complete(model=self.name, messages=messages, params=params, validate=parse_final)
        final = parse_final(result.text)
        return Answer(answer=final, abstained=is_abstention(final), raw=result.text, model=result.model,
                      usage=result.usage, cache_hit=result.cache_hit, latency_ms=result.latency_ms)


class ReferenceJudgeModel:
    """Judges with the release's judge prompt; `unclear` when the verdict says neither."""

    offline = False

    def __init__(self, client: ChatClient, model: str, *, prompts: Prompts | None = None,
                 max_tokens: int = JUDGE_MAX_TOKENS, temperature: float = TEMPERATURE) -> None:
        self.client, self.name, self.prompts = client, model, prompts
        self.max_tokens, self.temperature = max_tokens, temperature

    @property
    def prompt_hashes(self) -> dict[str, str]:
        if self.prompts is None:  # with no release prompts this judge can only judge criteria
            return {"criterion_judge_system": CRITERION_PROMPT_HASHES["criterion_judge_system"]}
        return {"judge_system": self.prompts.hashes["judge_system"]}

    def _criterion(self, question: Question, answer: Answer, criterion) -> CriterionJudgment:
        user = criterion_user_prompt(question, answer.answer, criterion)
        messages, params = release_call_shape(self.name, CRITERION_JUDGE_SYSTEM, user,
                                              max_tokens=self.max_tokens, temperature=self.temperature)
        result = self.client.complete(model=self.name, messages=messages, params=params, validate=parse_final)
        final = parse_final(result.text)
        return CriterionJudgment(criterion_id=criterion.criterion_id, answer=parse_yes_no(final), reason=final,
                                 raw=result.text, model=result.model, usage=result.usage,
                                 cache_hit=result.cache_hit, latency_ms=result.latency_ms)

    def judge(self, question: Question, answer: Answer, prompts: Prompts | None) -> Verdict:
        if question.criteria:
            judgments = [self._criterion(question, answer, c) for c in question.criteria]
            return combine_judgments(question, judgments, model=judgments[0].model)
        system = _prompts(prompts, self.prompts).judge_system
        messages, params = release_call_shape(self.name, system, judge_user_prompt(question, answer.answer),
                                              max_tokens=self.max_tokens, temperature=self.temperature)
        result = self.client.complete(model=self.name, messages=messages, params=params, validate=parse_final)
        final = parse_final(result.text)
        return Verdict(verdict=parse_verdict(final), reason=final, raw=result.text, model=result.model,
                       usage=result.usage, cache_hit=result.cache_hit, latency_ms=result.latency_ms)
