"""LongMemEval's reader prompt, as `src/generation/run_generation.py::prepare_prompt` builds it.

Two steps, so a caller can put the optional chain-of-note calls between them:

1. `retrieved_chunks(entry, settings)`: the chunks the reader sees. `flat-session` looks up each
   ranked corpus id (with `noans_` read back as `answer_`) and takes the whole session;
   `flat-turn` takes the ranked user turn and the turn after it, silently skipping ids that name
   no turn; `orig-*` and `oracle-*` take the haystack in order (sessions, or single turns), and
   `oracle-*` relies on the oracle file holding evidence sessions only. `useronly` keeps user
   turns. Then `topk_context` keeps the first k (orig-*: the last k), and `has_answer` is removed
   from turns inside session lists (a single-turn chunk keeps it, as the official clean-up only
   walks lists).
2. `reader_prompt(chunks, entry, settings, templates)`: chunks **sorted by their date string**
   (quirk 18), each rendered as `\n### Session {i}:\nSession Date: {date}\nSession Content:\n{s}\n`
   where s is `\n` + `json.dumps(chunk)` (json) or `\n\n{role}: {content.strip()}` per turn (nl),
   then the template filled with the history, `question_date` and the question. no-retrieval
   fills the question alone (`question + "Answer step by step."` with cot: no separator).

The official script truncates the history to `model_max_length - gen_length - 1000` tokens of the
model's tokenizer; pass that as `truncate_history` (the conformance examples never truncate).
Chain-of-note: `con_note_prompts` gives one extra prompt per chunk; `with_notes` puts the notes in
place of the chunks. Index-expansion modes (merge, replace) are not supported here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from benchledger.adapters.benchmarks.longmemeval.chat import ChatRequest
from benchledger.adapters.benchmarks.longmemeval.prompts import (
    CON_NOTE_TEMPLATE, reader_template_name,
)
from benchledger.adapters.benchmarks.official_prompts import fill_positional
from benchledger.errors import BadInput

__all__ = ["RETRIEVER_TYPES", "ReaderSettings", "Chunk", "retrieved_chunks", "reader_prompt",
           "prepare_prompt", "con_note_prompts", "with_notes", "reader_request", "con_note_request"]

RETRIEVER_TYPES = ("flat-session", "flat-turn", "orig-session", "orig-turn", "oracle-session",
                   "oracle-turn", "no-retrieval")


@dataclass(frozen=True)
class ReaderSettings:
    """The `run_generation.py` options that shape the prompt."""

    retriever_type: str
    topk_context: int
    useronly: bool = False
    history_format: Literal["json", "nl"] = "json"
    cot: bool = True
    """The official run script's reading method "con" means cot true."""
    merge_key_expansion_into_value: str = "none"

    def __post_init__(self) -> None:
        if self.retriever_type not in RETRIEVER_TYPES:
            raise BadInput(f"retriever_type {self.retriever_type!r} is not one of "
                           f"{', '.join(RETRIEVER_TYPES)}", field="retriever_type")
        if self.history_format not in ("json", "nl"):
            raise BadInput("history_format must be json or nl", field="history_format")
        if self.merge_key_expansion_into_value not in (None, "none"):
            raise BadInput("index-expansion reading (merge, replace) is not supported",
                           field="merge_key_expansion_into_value")
        if self.retriever_type == "flat-turn" and self.useronly:
            raise BadInput("the official prepare_prompt fails on flat-turn with useronly "
                           "(it reads a role from a turn list)", field="useronly")


@dataclass(frozen=True)
class Chunk:
    date: Any
    content: Any
    """A list of turns, one turn, or a chain-of-note `{"session_summary": note}`."""


def _lookups(entry: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """corpus id -> date and -> session (list) or turn (dict), built in the official order."""
    dates: dict[str, Any] = {}
    contents: dict[str, Any] = {}
    for date, session_id, session in zip(entry["haystack_dates"], entry["haystack_session_ids"],
                                         entry["haystack_sessions"]):
        dates[session_id], contents[session_id] = date, session
        for index, turn in enumerate(session):
            dates[f"{session_id}_{index + 1}"] = date
            contents[f"{session_id}_{index + 1}"] = turn
    return dates, contents


def _ranked_ids(entry: Mapping[str, Any]) -> list[str]:
    return [item["corpus_id"] for item in entry["retrieval_results"]["ranked_items"]]


def _flat_session(entry: Mapping[str, Any], useronly: bool) -> list[Chunk]:
    dates, contents = _lookups(entry)
    chunks = []
    for corpus_id in _ranked_ids(entry):
        session_id = corpus_id.replace("noans_", "answer_")
        if session_id not in dates:
            raise BadInput(f"ranked corpus_id {corpus_id!r} names no haystack session",
                           field="retrieval_results.ranked_items")
        turns = contents[session_id]
        chunks.append(Chunk(dates[session_id], [t for t in turns if t["role"] == "user"]
                            if useronly else turns))
    return chunks


def _flat_turn(entry: Mapping[str, Any]) -> list[Chunk]:
    dates, contents = _lookups(entry)
    chunks = []
    for corpus_id in _ranked_ids(entry):
        parts = corpus_id.replace("noans_", "answer_").split("_")
        if not parts[-1].lstrip("-").isdigit():
            raise BadInput(f"ranked corpus_id {corpus_id!r} does not end in a turn number",
                           field="retrieval_results.ranked_items")
        session_id, turn = "_".join(parts[:-1]), int(parts[-1]) - 1
        # Python indexing as the official code does: a turn number 0 reads the last turn.
        try:
            session = contents[session_id]
            pair = [session[turn]]
            if turn + 1 < len(session):
                pair.append(session[turn + 1])
        except (KeyError, IndexError, TypeError):
            continue
        chunks.append(Chunk(dates[session_id], pair))
    return chunks


def _haystack(entry: Mapping[str, Any], per_turn: bool, useronly: bool) -> list[Chunk]:
    chunks = []
    for date, session in zip(entry["haystack_dates"], entry["haystack_sessions"]):
        turns = [t for t in session if t["role"] == "user"] if useronly else list(session)
        chunks += [Chunk(date, t) for t in turns] if per_turn else [Chunk(date, turns)]
    return chunks


def _without_has_answer(content: Any) -> Any:
    if not isinstance(content, list):
        return content
    return [{k: v for k, v in t.items() if k != "has_answer"} if isinstance(t, dict) else t
            for t in content]


def retrieved_chunks(entry: Mapping[str, Any], settings: ReaderSettings) -> list[Chunk]:
    kind = settings.retriever_type
    if kind == "flat-session":
        chunks = _flat_session(entry, settings.useronly)
    elif kind == "flat-turn":
        chunks = _flat_turn(entry)
    elif kind == "no-retrieval":
        chunks = []
    else:
        chunks = _haystack(entry, kind.endswith("-turn"), settings.useronly)
    k = settings.topk_context
    chunks = chunks[-k:] if kind.startswith("orig-") else chunks[:k]
    return [Chunk(c.date, _without_has_answer(c.content)) for c in chunks]


def _session_text(content: Any, history_format: str) -> str:
    if history_format == "json":
        return "\n" + json.dumps(content)
    if isinstance(content, list):
        return "".join(f"\n\n{t['role']}: {t['content'].strip()}" for t in content)
    return f"{content['role']}: {content['content'].strip()}"


def reader_prompt(chunks: Sequence[Chunk], entry: Mapping[str, Any], settings: ReaderSettings,
                  templates: Mapping[str, str], *,
                  truncate_history: Callable[[str], str] | None = None) -> str:
    retrieval = settings.retriever_type != "no-retrieval"
    template = templates[reader_template_name(retrieval=retrieval, cot=settings.cot)]
    question = format(entry["question"], "")
    if not retrieval:
        return fill_positional(template, question)
    ordered = sorted(chunks, key=lambda chunk: chunk.date)
    history = "".join(
        f"\n### Session {i}:\nSession Date: {format(c.date, '')}\nSession Content:\n"
        f"{_session_text(c.content, settings.history_format)}\n"
        for i, c in enumerate(ordered, start=1))
    if not history:
        raise BadInput("no retrieved chunk to build the reader prompt from",
                       field="retrieval_results")
    if truncate_history is not None:
        history = truncate_history(history)
    return fill_positional(template, history, format(entry["question_date"], ""), question)


def prepare_prompt(entry: Mapping[str, Any], settings: ReaderSettings,
                   templates: Mapping[str, str], *,
                   truncate_history: Callable[[str], str] | None = None) -> str:
    """The reader prompt without chain-of-note: `retrieved_chunks` then `reader_prompt`."""
    return reader_prompt(retrieved_chunks(entry, settings), entry, settings, templates,
                         truncate_history=truncate_history)


def con_note_prompts(chunks: Sequence[Chunk], entry: Mapping[str, Any],
                     templates: Mapping[str, str]) -> list[str]:
    """One chain-of-note prompt per chunk (sent with temperature 0, max_tokens 500)."""
    return [fill_positional(templates[CON_NOTE_TEMPLATE], format(c.date, ""),
                            json.dumps(c.content), format(entry["question_date"], ""),
                            format(entry["question"], "")) for c in chunks]


def with_notes(chunks: Sequence[Chunk], notes: Sequence[str]) -> list[Chunk]:
    """Chunks replaced by their notes (each reply stripped, as the official code does)."""
    if len(notes) != len(chunks):
        raise ValueError("one note per chunk")
    return [Chunk(c.date, {"session_summary": note.strip()}) for c, note in zip(chunks, notes)]


def reader_request(model: str, prompt: str, *, cot: bool, gen_length: int | None = None,
                   question_id: str | None = None) -> ChatRequest:
    """The reader call: `max_tokens` is gen_length, by default 500 (800 with cot)."""
    max_tokens = gen_length if gen_length is not None else (800 if cot else 500)
    return ChatRequest(model=model, prompt=prompt, max_tokens=max_tokens, question_id=question_id)


def con_note_request(model: str, prompt: str) -> ChatRequest:
    """A chain-of-note call: the reader's model, `max_tokens` 500."""
    return ChatRequest(model=model, prompt=prompt, max_tokens=500)
