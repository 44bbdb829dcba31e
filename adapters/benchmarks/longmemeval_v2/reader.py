"""The reader side of the official protocol: memory-context items, truncation, messages, request, reply.

A memory context is a list of items `{"type": "text"|"image", "value": non-empty str}` (extra keys
dropped). It is counted as one user message holding the items; when the count exceeds
`--memory-context-max-tokens` the context becomes the **longest prefix of whole items** whose count
fits (binary search; the first item alone may not fit, which leaves nothing). An empty context
counts 0.

The official count is the reader's own processor (Qwen3.5-9B's, chat-template tokens included).
`TokenCounter` names the counter a run used; `TEMPLATE_STAND_IN` renders the items as the Qwen chat
template does and counts word, punctuation and special-token pieces plus 63 per image: the
stand-in the official conformance fixtures were made with, and the estimate a run records when the
real processor is not available.

Messages (`reader_messages`): the domain's system prompt; one user message whose parts are the
intro (or the `(empty)` intro), one part per item (text verbatim with no separator; an image as a
data URL whose mime comes from the file extension, default image/png), the question block, and the
question's image last. `logged=True` gives the form `per_question.jsonl` keeps (`image_path` parts).

The request (`ReaderArgs.request`): model, timeout, `max_tokens` with a base URL (else
`max_completion_tokens`), the optional sampling fields, and `extra_body` (top_k, repetition_penalty,
and `chat_template_kwargs: {enable_thinking: false}` only for exactly Qwen/Qwen3.5-9B behind a base
URL with thinking disabled).
"""

from __future__ import annotations

import base64
import mimetypes
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

__all__ = [
    "OFFICIAL_READER_MODEL", "Item", "TokenCounter", "TemplateStandIn", "TEMPLATE_STAND_IN", "Truncation",
    "validate_items", "truncate", "reader_messages", "ReaderArgs", "data_url",
]

OFFICIAL_READER_MODEL = "Qwen/Qwen3.5-9B"
Item = Mapping[str, str]
_PIECES = re.compile(r"<\|[a-z_]+\|>|\w+|[^\w\s]")
_IMAGE_PLACEHOLDER = "<|vision_start|><|image_pad|><|vision_end|>"


class TokenCounter(Protocol):
    @property
    def name(self) -> str:
        """What the run records as the memory-context token counter."""

    def count(self, items: Sequence[Item]) -> int: ...


@dataclass(frozen=True)
class TemplateStandIn:
    """The Qwen chat template rendered and counted in pieces, plus a fixed count per image."""

    name: str = "qwen-chat-template-stand-in (words, punctuation and special tokens; 63 per image)"
    per_image: int = 63

    def count(self, items: Sequence[Item]) -> int:
        if not items:
            return 0
        parts = [item["value"] if item["type"] == "text" else _IMAGE_PLACEHOLDER for item in items]
        rendered = "<|im_start|>user\n" + "".join(parts) + "<|im_end|>\n"
        images = sum(1 for item in items if item["type"] == "image")
        return len(_PIECES.findall(rendered)) + self.per_image * images


TEMPLATE_STAND_IN = TemplateStandIn()


def validate_items(returned: Any, exists: Callable[[str], bool] = lambda _p: True) -> list[dict[str, str]]:
    """The memory's items as the harness keeps them; ValueError for anything else."""
    if not isinstance(returned, list):
        raise ValueError("memory context must be a list of items")
    items = []
    for index, item in enumerate(returned):
        if not isinstance(item, Mapping) or item.get("type") not in ("text", "image"):
            raise ValueError(f"memory context item {index} must have type text or image")
        value = item.get("value")
        if not isinstance(value, str) or not value:
            raise ValueError(f"memory context item {index} must have a non-empty string value")
        if item["type"] == "image" and not exists(value):
            raise ValueError(f"memory context item {index}: image {value} does not exist")
        items.append({"type": item["type"], "value": value})
    return items


@dataclass(frozen=True)
class Truncation:
    kept: list[dict[str, str]]
    original_tokens: int
    final_tokens: int
    printed: str
    """The line the official harness prints when it truncates ("" when it does not)."""

    @property
    def truncated(self) -> bool:
        return len(self.kept) < self.original_items

    original_items: int = 0


def truncate(items: Sequence[Item], max_tokens: int, question_id: str,
             counter: TokenCounter = TEMPLATE_STAND_IN) -> Truncation:
    """The longest prefix of whole items whose count fits `max_tokens`."""
    whole = [dict(item) for item in items]
    original = counter.count(whole)
    if original <= max_tokens:
        return Truncation(whole, original, original, "", len(whole))
    low, high = 0, len(whole)  # invariant: prefix `low` fits, prefix `high` does not
    while high - low > 1:
        middle = (low + high) // 2
        if counter.count(whole[:middle]) <= max_tokens:
            low = middle
        else:
            high = middle
    kept = whole[:low]
    final = counter.count(kept)
    printed = (f"Truncated memory context for {question_id}: original_tokens={original} "
               f"truncated_tokens={final} original_items={len(whole)} truncated_items={len(kept)}\n")
    return Truncation(kept, original, final, printed, len(whole))


def data_url(path: str, read: Callable[[str], bytes]) -> str:
    mime = mimetypes.guess_type(path)[0] or "image/png"
    return f"data:{mime};base64,{base64.b64encode(read(path)).decode('ascii')}"


def _image_part(path: str, logged: bool, read: Callable[[str], bytes]) -> dict[str, Any]:
    if logged:
        return {"type": "image_path", "image_path": path}
    return {"type": "image_url", "image_url": {"url": data_url(path, read)}}


def reader_messages(templates: Mapping[str, str], domain: str, items: Sequence[Item], question_text: str,
                    question_image: str | None, *, logged: bool = False,
                    read: Callable[[str], bytes] = lambda path: Path(path).read_bytes()) -> list[dict[str, Any]]:
    """The official reader messages (wire form, or with `logged` the form per_question.jsonl keeps)."""
    intro = templates["reader_user_intro.txt" if items else "reader_user_intro_empty.txt"]
    parts: list[dict[str, Any]] = [{"type": "text", "text": intro}]
    for item in items:
        if item["type"] == "text":
            parts.append({"type": "text", "text": item["value"]})
        else:
            parts.append(_image_part(item["value"], logged, read))
    block = templates["reader_user_question_block.txt"].replace("{question_text}", question_text)
    parts.append({"type": "text", "text": block})
    if question_image:
        parts.append(_image_part(question_image, logged, read))
    return [{"role": "system", "content": templates[f"reader_system_{domain}.txt"]},
            {"role": "user", "content": parts}]


@dataclass(frozen=True)
class ReaderArgs:
    """The harness's reader arguments (run_eval defaults)."""

    model: str = OFFICIAL_READER_MODEL
    base_url: str | None = "http://localhost:8023/v1"
    max_completion_tokens: int = 20000
    timeout_seconds: float = 43200.0
    reasoning_effort: str | None = None
    temperature: float | None = 0.6
    top_p: float | None = 0.95
    presence_penalty: float | None = None
    top_k: int | None = 20
    repetition_penalty: float | None = None
    reader_enable_thinking: bool = True

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> ReaderArgs:
        return cls(**{key: values[key] for key in cls.__dataclass_fields__ if key in values})

    def request(self) -> dict[str, Any]:
        """What the harness passes to chat.completions.create, without the messages."""
        kwargs: dict[str, Any] = {"model": self.model, "timeout": self.timeout_seconds}
        kwargs["max_tokens" if self.base_url else "max_completion_tokens"] = self.max_completion_tokens
        for key in ("reasoning_effort", "temperature", "top_p", "presence_penalty"):
            if getattr(self, key) is not None:
                kwargs[key] = getattr(self, key)
        extra: dict[str, Any] = {}
        if self.top_k is not None:
            extra["top_k"] = self.top_k
        if self.repetition_penalty is not None:
            extra["repetition_penalty"] = self.repetition_penalty
        if self.base_url and self.model == OFFICIAL_READER_MODEL and not self.reader_enable_thinking:
            extra["chat_template_kwargs"] = {"enable_thinking": False}
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    def http_body(self) -> dict[str, Any]:
        """The request as the SDK sends it: no timeout, extra_body merged into the top level."""
        kwargs = self.request()
        kwargs.pop("timeout")
        extra = kwargs.pop("extra_body", {})
        return {**kwargs, **extra}
