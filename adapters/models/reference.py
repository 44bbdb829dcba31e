"""The `reference` protocol: GroupMemBench's released call shape, exactly.

Everything about the messages and the replies is the official code's, from
`adapters.benchmarks.groupmem` (proven against the official outputs by `benchledger conformance`):

- system prompts are the release's `agent_system.txt` / `judge_system.txt` (from `Prompts`), sent
  stripped as the release reads them;
- the agent's user prompt is `build_agent_user_prompt` over the recalled passages in rank order,
  each `format_passage`: the release's header (empty fields left out, an unknown author as
  `user=?`, the timestamp exactly as released) and the content;
- the judge's user prompt is `build_judge_user_prompt` with the agent's split final;
- answers and verdicts are `split_reasoning_and_final`: the last line starting with "Final:" or
  "Final answer:" (any case), or, without one, the last non-empty line, as the official parser
  falls back. The verdict is the official run-time `parse_judgment`: "incorrect", "not correct"
  or "wrong" is incorrect, else "correct" is correct, else `unclear`, never guessed;
- an empty reply is asked again, `EMPTY_REPLY_ATTEMPTS` (5) attempts in all with the client's
  backoff between them, then it is an `EmptyResponseError`: an operational failure, never a wrong
  answer (the official script skips such a question).

A Memora question (one with criteria) is judged one call per criterion, with
`adapters.models.criteria.CRITERION_JUDGE_SYSTEM` (benchledger's own judge, not an official
protocol) in the same call shape; each reply's `Final:` line is read as yes or no (anything else
is unclear), and a reply without one is a `ModelParseError`.

Call parameters follow the release: temperature 0.2 and `max_tokens` (agent 512, judge 256),
except for reasoning models (gpt-5, o1, o3, o4), which get `max_completion_tokens` and no
temperature, and gpt-5, whose instructions go in a `developer` message.
"""

from __future__ import annotations

import re
from dataclasses import replace

from benchledger.adapters.benchmarks.base import Document, Prompts, Question
from benchledger.adapters.benchmarks.groupmem import messages as official_messages
from benchledger.adapters.benchmarks.groupmem.prompts import (
    AGENT_MAX_TOKENS, EMPTY_REPLY_ATTEMPTS, JUDGE_MAX_TOKENS, TEMPERATURE, build_agent_user_prompt,
    build_judge_user_prompt,
)
from benchledger.adapters.benchmarks.groupmem.replies import parse_judgment, split_reasoning_and_final
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.abstention import is_abstention
from benchledger.adapters.models.base import Answer, EmptyResponseError, ModelParseError, Verdict, VerdictLabel
from benchledger.adapters.models.criteria import (
    CRITERION_JUDGE_SYSTEM, CRITERION_PROMPT_HASHES, CriterionJudgment, combine_judgments,
    criterion_user_prompt, parse_yes_no,
)
from benchledger.adapters.models.openai_chat import ChatClient, ChatResult
from benchledger.errors import BadInput
from benchledger.retry import Transient

__all__ = [
    "format_passage", "agent_user_prompt", "judge_user_prompt", "parse_final", "parse_verdict", "complete_non_empty",
    "release_call_shape", "ReferenceAnswerModel", "ReferenceJudgeModel",
    "AGENT_MAX_TOKENS", "JUDGE_MAX_TOKENS", "TEMPERATURE", "EMPTY_REPLY_ATTEMPTS",
]

_REASONING_MODELS = ("gpt-5", "o1", "o3", "o4")
_FINAL = re.compile(r"^\s*final(?:\s+answer)?\s*:(.*)$", re.IGNORECASE)


def _timestamp(document: Document) -> str | None:
    if "timestamp" in document.extra:  # the release's own spelling, when the adapter kept it
        return document.extra["timestamp"]
    return document.timestamp.isoformat() if document.timestamp else None


def format_passage(document: Document) -> str:
    """The release's passage header and body."""
    return official_messages.format_passage(
        author=document.author, role=document.role, channel=document.channel, phase_name=document.phase,
        topic=document.topic, timestamp=_timestamp(document), reply_to=document.reply_to,
        msg_node=document.doc_id, body=document.text)


def agent_user_prompt(question: Question, context: list[Candidate]) -> str:
    passages = [format_passage(candidate.passage) for candidate in sorted(context, key=lambda c: c.rank)]
    return build_agent_user_prompt(question.text, question.asking_user, passages)


def judge_user_prompt(question: Question, final: str) -> str:
    return build_judge_user_prompt(question.text, question.gold, final)


def parse_final(text: str) -> str:
    """The text after the last `Final:` / `Final answer:` line; ModelParseError when there is none.

    Only benchledger's own criterion judge is this strict; the GroupMemBench answer and verdict
    use the official `split_reasoning_and_final`, which falls back to the last line."""
    for line in reversed(text.splitlines()):
        if match := _FINAL.match(line):
            return match.group(1).strip()
    raise ModelParseError("the reply has no 'Final:' line")


def parse_verdict(final: str) -> VerdictLabel:
    """The official run-time verdict of a judge's split final."""
    judgment = parse_judgment(final)
    return "unclear" if judgment is None else "correct" if judgment else "incorrect"


class _EmptyReply(Transient):
    """An empty reply, asked again under the client's retry policy (as the release's helper does)."""


def complete_non_empty(client: ChatClient, **call) -> ChatResult:
    """One chat call, asked again on an empty reply: `EMPTY_REPLY_ATTEMPTS` attempts in all."""
    def once() -> ChatResult:
        try:
            return client.complete(**call)
        except EmptyResponseError as err:
            raise _EmptyReply(str(err)) from err

    try:
        return replace(client.retry, max_attempts=EMPTY_REPLY_ATTEMPTS).call(once).value
    except _EmptyReply:
        raise EmptyResponseError(
            f"{call.get('model')}: empty reply after {EMPTY_REPLY_ATTEMPTS} attempts") from None


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
        result = complete_non_empty(self.client, model=self.name, messages=messages, params=params)
        _, final = split_reasoning_and_final(result.text)
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
        result = complete_non_empty(self.client, model=self.name, messages=messages, params=params)
        _, final = split_reasoning_and_final(result.text)
        return Verdict(verdict=parse_verdict(final), reason=final, raw=result.text, model=result.model,
                       usage=result.usage, cache_hit=result.cache_hit, latency_ms=result.latency_ms)
