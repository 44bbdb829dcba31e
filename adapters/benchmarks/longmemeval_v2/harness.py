"""The official harness's per-question pipeline, offline: from a memory context and a reader reply to the
record `per_question.jsonl` holds, and a whole run replayed from prepared inputs.

`question_stream` is the order questions are asked, scored and written: file order, or shuffled
with `random.Random(seed).shuffle` as the harness does with `--shuffle-questions-seed`.
`shared_haystack` is the one list every question shares (same ids, same order), else None: then
the harness builds one memory per question. `reader_reply` is the harness's reading of a reply:
the content stripped, else the text parts joined, else the reasoning; empty raises (the official
run ends before any scoring); an HTTP 400 is an empty reply that is scored.

`replay` runs the three passes (prompts, reader, scoring) over prepared memory contexts, reader
replies and judge replies, as the conformance runs were made; it returns the records written up to
where the official run would have raised, and the aggregates when it did not.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchledger.adapters.benchmarks.longmemeval_v2.aggregate import aggregate_metrics
from benchledger.adapters.benchmarks.longmemeval_v2.errors import OfficialError
from benchledger.adapters.benchmarks.longmemeval_v2.judging import EvaluatorConfig, JudgeTransport
from benchledger.adapters.benchmarks.longmemeval_v2.reader import (
    TEMPLATE_STAND_IN, TokenCounter, reader_messages, truncate, validate_items,
)
from benchledger.adapters.benchmarks.longmemeval_v2.spec import category_of, eval_name, score

__all__ = ["question_stream", "shared_haystack", "question_parts", "reader_reply", "Replay", "replay"]

_ZERO_USAGE = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def question_stream(questions: Sequence[Mapping[str, Any]], seed: int | None) -> list[tuple[int, Mapping[str, Any]]]:
    """(original index, question) in the order the harness asks them."""
    stream = list(enumerate(questions))
    if seed is not None:
        random.Random(seed).shuffle(stream)
    return stream


def shared_haystack(haystack: Mapping[str, Sequence[str]], question_ids: Sequence[str]) -> list[str] | None:
    """The one trajectory list every selected question shares, or None (a memory per question)."""
    lists = [list(haystack[qid]) for qid in question_ids]
    return lists[0] if lists and all(entry == lists[0] for entry in lists) else None


def question_parts(question: Any) -> tuple[str, str | None]:
    """(text, image path) of a runtime question (a string, or {"text", "image"})."""
    if isinstance(question, Mapping):
        return str(question.get("text", "")), question.get("image")
    return str(question), None


def reader_reply(content: Any, reasoning: Any = None) -> str:
    """The reply text the harness scores; OfficialError (the run ends) when it is empty."""
    if isinstance(content, str) and content.strip():
        return content.strip()
    if isinstance(content, list):
        joined = "\n".join(str(p.get("text", "")).strip() for p in content if isinstance(p, Mapping)
                           and p.get("type") == "text").strip()
        if joined:
            return joined
    if isinstance(reasoning, str) and reasoning.strip():
        return reasoning.strip()
    raise OfficialError("RuntimeError", "Model returned empty text")


@dataclass
class Replay:
    records: list[dict[str, Any]] = field(default_factory=list)
    aggregated: dict[str, Any] | None = None
    raised: OfficialError | None = None
    stream_ids: list[str] = field(default_factory=list)
    printed: list[str] = field(default_factory=list)
    """The truncation lines the harness prints."""


def replay(questions: Sequence[Mapping[str, Any]], haystack: Mapping[str, Sequence[str]], *, domain: str,
           max_tokens: int, seed: int | None, templates: Mapping[str, str],
           memory: Callable[[str], Any], reply: Callable[[str], Mapping[str, Any]],
           judge: Callable[[str], JudgeTransport], evaluator: EvaluatorConfig,
           counter: TokenCounter = TEMPLATE_STAND_IN) -> Replay:
    """A whole official run over prepared memory contexts, reader replies and judge replies."""
    out = Replay()
    stream = question_stream(questions, seed)
    out.stream_ids = [q["id"] for _i, q in stream]
    shared = shared_haystack(haystack, out.stream_ids)
    rows = []
    for stream_index, (index, question) in enumerate(stream):  # pass 1: prompts
        qid = question["id"]
        text, image = question_parts(question["question"])
        cut = truncate(validate_items(memory(qid)), max_tokens, qid, counter)
        if cut.printed:
            out.printed.append(cut.printed)
        rows.append({
            "index": index, "stream_index": stream_index, "question_id": qid,
            "question_type": question["question_type"], "category": category_of(question["question_type"]),
            "is_abstention_problem": eval_name(question["eval_function"]) == "llm_abstention_checker",
            "eval_function": question["eval_function"], "question_text": text, "question_image": image,
            "haystack_ids": list(haystack[qid]), "memory_context": cut.kept,
            "memory_context_original_token_count": cut.original_tokens,
            "memory_context_token_count": cut.final_tokens, "memory_context_was_truncated": cut.truncated,
            "prompt_messages": reader_messages(templates, domain, cut.kept, text, image, logged=True),
            "answer_gold": question["answer"], "_item": question,
        })
    for row in rows:  # pass 2: the reader (every call before any scoring)
        planned = reply(row["question_id"])
        if planned.get("http_status") == 400:
            row["response_raw"], row["usage"] = "", dict(_ZERO_USAGE)
            continue
        try:
            row["response_raw"] = reader_reply(planned.get("content"), planned.get("reasoning"))
        except OfficialError as err:
            out.raised = err
            return out
        row["usage"] = dict(planned.get("usage") or _ZERO_USAGE)
    for row in rows:  # pass 3: scoring, in stream order; a raise ends the run
        item = row.pop("_item")
        try:
            scored = score(item["eval_function"], row["response_raw"], item["answer"], item, templates=templates,
                           transport=judge(row["question_id"]), evaluator=evaluator)
        except OfficialError as err:
            out.raised = err
            return out
        row.update(response_parsed_boxed=scored.parsed, is_unknown=scored.unknown,
                   score=1.0 if scored.score_bool else 0.0, score_bool=scored.score_bool)
        out.records.append(row)
    return out


def aggregate_replay(out: Replay, recorded: Sequence[Mapping[str, Any]], shared: list[str] | None) -> dict[str, Any]:
    """The run's aggregates, with the memory timings as recorded (they came from the harness's clock)."""
    timed = [{**row, "memory_query_duration_seconds": rec["memory_query_duration_seconds"],
              "memory_post_query_duration_seconds": rec["memory_post_query_duration_seconds"]}
             for row, rec in zip(out.records, recorded, strict=True)]
    return aggregate_metrics(timed, shared_haystack_ids=shared)
