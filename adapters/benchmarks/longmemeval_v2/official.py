"""LongMemEval-V2's official protocol in a run: the harness's reader request over what the memory recalled,
scored by the question's spec as pass 3 of the harness scores it.

Answering (`V2Reader`): each recalled candidate becomes a memory-context item, in rank order: its
text, then its state's screenshot as an image item when the state names one that exists under the
release (the official memory modules return such items; the reader sees them as data URLs). The
items are cut to the longest prefix of whole items within the selection's
`memory_context_max_tokens`, counted by the recorded counter (`reader.TEMPLATE_STAND_IN`), and the
official messages are sent with the official request (`ReaderArgs`: temperature 0.6, top_p 0.95,
top_k 20 in extra_body, `max_tokens` 20000 behind a base URL, else `max_completion_tokens`). The
answer is the boxed answer of the stripped reply; `abstained` is the UNKNOWN rule.

Scoring (`V2Scorer`, method `longmemeval-v2-official`): `spec.score` with the harness's evaluator
settings (the judge model asked for, default gpt-5.2, effort medium, 4096 tokens); the two LLM
checkers send their official requests through the run's client. Where the official code raises
(an unparseable judge reply, a bad spec value, an empty reader reply) the question is Failed with
`OfficialRunAbort`, whose message says the official harness would have ended the run there; the
run goes on. The offline judge stands in for the LLM checkers when no judge model is reachable
(its lexical verdict as the label); the four deterministic functions never ask a model.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchledger.adapters.benchmarks.base import Dataset, Prompts, Question
from benchledger.adapters.benchmarks.longmemeval_v2.answers import extract_boxed, is_unknown
from benchledger.adapters.benchmarks.longmemeval_v2.errors import OfficialError, aborts
from benchledger.adapters.benchmarks.longmemeval_v2.judging import (
    LLM_CHECKERS, OFFICIAL_JUDGE_MODEL, EvaluatorConfig, JudgeCall,
)
from benchledger.adapters.benchmarks.longmemeval_v2.prompts import TEMPLATE_SHA256, TEMPLATE_SOURCE
from benchledger.adapters.benchmarks.longmemeval_v2.reader import (
    TEMPLATE_STAND_IN, ReaderArgs, reader_messages, truncate,
)
from benchledger.adapters.benchmarks.longmemeval_v2.release import screenshot_path
from benchledger.adapters.benchmarks.longmemeval_v2.spec import eval_name, score
from benchledger.adapters.benchmarks.official import OfficialProtocol
from benchledger.adapters.benchmarks.official_prompts import sha256_of
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.base import Answer, AnswerModel, EmptyResponseError, JudgeModel, Verdict
from benchledger.adapters.models.factory import ModelContext
from benchledger.adapters.models.offline import OFFLINE_JUDGE, OfflineLexicalJudge
from benchledger.adapters.models.openai_chat import DEFAULT_BASE_URL, ChatClient
from benchledger.values import Usage

__all__ = ["METHOD", "V2Reader", "V2Scorer", "LongMemEvalV2Official", "context_items"]

METHOD = "longmemeval-v2-official"


def context_items(candidates: list[Candidate], release_root: Path) -> list[dict[str, str]]:
    """The memory-context items of the recalled candidates, in rank order: each one's text, then, for a
    stored state, its screenshot (derived text a memory system returns carries no image)."""
    items: list[dict[str, str]] = []
    for candidate in sorted(candidates, key=lambda c: c.rank):
        if candidate.text:
            items.append({"type": "text", "value": candidate.text})
        shot = candidate.document.extra.get("screenshot") if candidate.document is not None else None
        found = screenshot_path(release_root, shot) if shot else None  # never a file outside the release
        if found is not None:
            items.append({"type": "image", "value": str(found)})
    return items


class V2Reader:
    """The harness's reader call over the recalled states."""

    offline = False

    def __init__(self, client: ChatClient, model: str, templates: Mapping[str, str], dataset: Dataset) -> None:
        self.client, self.name = client, model
        self.templates = dict(templates)
        self.prompt_hashes = {name: sha256_of(text) for name, text in self.templates.items()}
        self.root = Path(dataset.source)
        self.domain = str(getattr(dataset.selection, "domain", "web"))
        self.max_tokens = int(getattr(dataset.selection, "memory_context_max_tokens", 200000))
        base_url = None if client.base_url == DEFAULT_BASE_URL else client.base_url
        self.args = ReaderArgs(model=model, base_url=base_url)

    def messages(self, question: Question, context: list[Candidate]) -> list[dict[str, Any]]:
        cut = truncate(context_items(context, self.root), self.max_tokens, question.question_id, TEMPLATE_STAND_IN)
        image = question.extra.get("question_image") or None
        return reader_messages(self.templates, self.domain, cut.kept, question.text, image)

    def answer(self, question: Question, context: list[Candidate], prompts: Prompts | None) -> Answer:
        params = self.args.request()
        params.pop("model")
        params.pop("timeout")  # a client option: the run's --timeout applies
        try:
            result = self.client.complete(model=self.name, messages=self.messages(question, context), params=params)
        except EmptyResponseError:
            raise aborts(OfficialError("RuntimeError", "Model returned empty text"), "the reader") from None
        reply = result.text.strip()
        parsed = extract_boxed(reply)
        return Answer(answer=parsed, abstained=is_unknown(parsed), raw=result.text, model=result.model,
                      usage=result.usage, cache_hit=result.cache_hit, latency_ms=result.latency_ms)


class V2Scorer:
    """Pass 3 of the harness: the question's spec over the recorded reply."""

    method = METHOD

    def __init__(self, templates: Mapping[str, str], judge_model: str, client: ChatClient | None) -> None:
        self.templates = dict(templates)
        self.prompt_hashes = {name: sha256_of(text) for name, text in self.templates.items()
                              if name.startswith("judge_")}
        self.name, self.client = judge_model, client
        self.offline = client is None
        self.evaluator = EvaluatorConfig(evaluator_model=judge_model)

    def judge(self, question: Question, answer: Answer, prompts: Prompts | None) -> Verdict:
        spec = question.extra.get("eval_function", "")
        item = json.loads(question.extra.get("question_item") or "{}")
        if image := question.extra.get("question_image"):
            item["question"] = {"text": question.text, "image": image}
        replies: list[Any] = []

        def transport(call: JudgeCall) -> Any:
            if self.client is None:
                verdict = OfflineLexicalJudge().judge(question, answer, prompts)
                reply = json.dumps({"label": int(verdict.verdict == "correct"), "reason": verdict.reason})
                replies.append((reply, Usage(), self.name))
                return reply
            kwargs = dict(call.create_kwargs)
            model, messages = kwargs.pop("model"), kwargs.pop("messages")
            kwargs.pop("timeout")
            try:
                result = self.client.complete(model=model, messages=messages, params=kwargs)
            except EmptyResponseError:
                raise OfficialError("ValueError", "Empty judgement response from evaluator model.") from None
            replies.append((result.text, result.usage, result.model))
            return result.text

        try:
            scored = score(spec, answer.raw.strip(), question.gold, item, templates=self.templates,
                           transport=transport, evaluator=self.evaluator)
        except OfficialError as err:
            raise aborts(err, "scoring") from None
        name = eval_name(spec)
        reply, usage, model = replies[0] if replies else ("", Usage(), f"rule:{name}")
        reason = (f"{name}: {'UNKNOWN (scores 0)' if scored.unknown else f'returned {scored.eval_return!r}'}"
                  + (" after the judge's label" if name in LLM_CHECKERS and replies else ""))
        return Verdict(verdict="correct" if scored.score_bool else "incorrect", reason=reason, raw=reply,
                       model=model, usage=usage, score=1.0 if scored.score_bool else 0.0)


class LongMemEvalV2Official(OfficialProtocol):
    benchmark = "LongMemEval-V2"
    summary = ("xiaowu0162/LongMemEval-V2 @ be15ea6e: the harness's reader messages and request, six spec-named "
               "scoring functions (gpt-5.2 for the two LLM checkers), the official aggregates and LAFS")
    template_pins = TEMPLATE_SHA256
    template_source = TEMPLATE_SOURCE
    scorer_methods = (METHOD,)

    def official_answerer(self, client: ChatClient, model: str, templates: Mapping[str, str],
                          dataset: Dataset) -> AnswerModel:
        return V2Reader(client, model, templates, dataset)

    def scorer(self, context: ModelContext, templates: Mapping[str, str], method: str) -> JudgeModel:
        name = context.judge_name(official=OFFICIAL_JUDGE_MODEL)
        if name == OFFLINE_JUDGE:
            return V2Scorer(templates, OFFLINE_JUDGE, None)
        return V2Scorer(templates, name, context.client())
