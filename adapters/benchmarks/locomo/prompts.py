"""LoCoMo's official QA prompt, assembled as `task_eval/evaluate_gpts.py` assembles it.

Source: snap-research/locomo @ 92286325 (branch `code`); the template texts are the files of
`../shared/data/locomo/prompts/` (passed in as `Templates`, pinned by `OFFICIAL_SHA256`, never
copied here: CC BY-NC). What the official code does with them (batch size 1):

- question text: category 2 gets the date suffix appended; category 5 gets the forced-choice
  suffix filled with the not-mentioned option and the answer, in an order the official code draws
  with an unseeded `random.random() < 0.5` (here the caller says which, e.g. from a seed);
- query: `context + "\\n\\n" + qa_prompt.format(question)` (`qa_prompt_cat5` for category 5);
- full-conversation context (`conversation_context`, `get_input_context`): `conv_start_prompt`
  filled with the two speakers, then the sessions from the newest backwards while they fit the
  token budget. Each turn is `speaker said, "text"\\n`, plus `[shares <blip_caption>]\\n` when the
  turn carries an image (`img_file` in the official pre-release files, `img_url` in the release;
  quirk 8: the release has `text` where the code read `clean_text`). A session is
  `DATE: <date_time>\\nCONVERSATION:\\n<turns>`; the code appends its "\\n\\n" separator to the END
  of the text built so far, so the sessions run together and the separators pile up after the
  last one (one "\\n\\n" per session present, empty ones included);
- retrieval (RAG dialog mode) context (`rag_dialog_context`): the retrieved turns in rank order,
  each `date_time + ": " + speaker said, "text"`, joined by "\\n"; no start prompt, no captions;
- the call: temperature 0, `max_tokens` 32; gpt-3.5 models get the query as a system message,
  others as a user message; the reply is stripped, and a category-5 reply is mapped through
  `cat5_choice` (quirk 10).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "OFFICIAL_SHA256", "TEMPERATURE", "MAX_TOKENS", "PER_QA_TOKEN_BUDGET", "Templates", "Turn", "Session",
    "Cat5Options", "Query", "sessions_from_release", "render_turn", "conversation_context",
    "rag_dialog_context", "question_text", "build_query", "cat5_choice", "official_messages",
]

TEMPLATE_FILES: dict[str, str] = {
    "qa_prompt": "qa_prompt.txt", "qa_prompt_cat5": "qa_prompt_cat5.txt",
    "cat2_question_suffix": "cat2_question_suffix.txt", "cat5_question_suffix": "cat5_question_suffix.txt",
    "cat5_not_mentioned_option": "cat5_not_mentioned_option.txt", "conv_start_prompt": "conv_start_prompt.txt",
}
OFFICIAL_SHA256: dict[str, str] = {
    "qa_prompt.txt": "a30fe18a6c9b58c5d22b6188860e5a99cdfef33fcc8a36141b571d954b9b0266",
    "qa_prompt_cat5.txt": "57005b715f4c2a7c848ab0d7829037afd08d5bb68ba626e4f5a83e8493104986",
    "cat2_question_suffix.txt": "dae3c8b7fe10cf0fdc3b3e062dae355dad2af77e82b78fe90cb67426f2a927fe",
    "cat5_question_suffix.txt": "768d9890ca3a9aba6d2665dd44ac6e9822502677abf5a1e05f27e7ad8525b854",
    "cat5_not_mentioned_option.txt": "2a542960aa38558c7ea526c58ca44e64944dd4a6c9c9db658f3fa6f6da9792c3",
    "conv_start_prompt.txt": "68e12aada9c2b0308cf3c92cc50565391d9a408f953413565a573bb15ff0a4d8",
}
TEMPERATURE = 0
MAX_TOKENS = 32
PER_QA_TOKEN_BUDGET = 50
"""Tokens the official budget keeps free for each answer when it trims the context."""


@dataclass(frozen=True)
class Templates:
    """The official template texts, as the files hold them."""

    qa_prompt: str
    qa_prompt_cat5: str
    cat2_question_suffix: str
    cat5_question_suffix: str
    cat5_not_mentioned_option: str
    conv_start_prompt: str

    @classmethod
    def read(cls, folder: Path) -> Templates:
        """Read the six template files from a folder laid out like `locomo/prompts/`."""
        return cls(**{field: (Path(folder) / name).read_text(encoding="utf-8")
                      for field, name in TEMPLATE_FILES.items()})

    def unofficial(self) -> list[str]:
        """File names whose text is not the official one (empty when all six are)."""
        return [name for field, name in TEMPLATE_FILES.items()
                if hashlib.sha256(getattr(self, field).encode("utf-8")).hexdigest() != OFFICIAL_SHA256[name]]


@dataclass(frozen=True)
class Turn:
    speaker: str
    text: str
    image_caption: str | None = None
    """The blip caption of a turn that shares an image, else None."""
    dia_id: str = ""


@dataclass(frozen=True)
class Session:
    number: int
    date_time: str
    """The session's date-time exactly as released ("1:56 pm on 8 May, 2023")."""
    turns: tuple[Turn, ...]


def _turn(raw: Mapping[str, Any]) -> Turn:
    shares_image = bool(raw.get("img_file") or raw.get("img_url"))
    caption = raw.get("blip_caption") if shares_image else None
    return Turn(str(raw["speaker"]), str(raw.get("clean_text", raw.get("text", ""))),
                None if caption is None else str(caption), str(raw.get("dia_id", "")))


def sessions_from_release(conversation: Mapping[str, Any]) -> list[Session]:
    """The sessions of a released `conversation` object, as the official loop sees them (1..49)."""
    sessions = []
    for number in range(1, 50):
        turns = conversation.get(f"session_{number}")
        if isinstance(turns, list):
            sessions.append(Session(number, str(conversation.get(f"session_{number}_date_time", "")),
                                    tuple(_turn(t) for t in turns)))
    return sessions


def render_turn(turn: Turn) -> str:
    text = f'{turn.speaker} said, "{turn.text}"\n'
    return text + (f"[shares {turn.image_caption}]\n" if turn.image_caption is not None else "")


def conversation_context(sessions: Sequence[Session], speakers: tuple[str, str], templates: Templates, *,
                         count_tokens: Callable[[str], int] | None = None, limit: int | None = None,
                         question_tokens: int = 0) -> str:
    """`conv_start_prompt` + the official full-conversation context.

    Without `count_tokens` everything fits. With it, a turn is kept while its session header and
    text plus the context so far plus `question_tokens` stay under `limit - PER_QA_TOKEN_BUDGET`.
    """
    non_empty = [s for s in sessions if s.turns]
    context = ""
    if non_empty:
        newest = non_empty[-1].number
        for session in sorted((s for s in sessions if s.number <= newest), key=lambda s: -s.number):
            header = f"DATE: {session.date_time}\nCONVERSATION:\n"
            context += "\n\n"
            stop = False
            for turn in reversed(session.turns):
                text = render_turn(turn)
                if count_tokens is not None and limit is not None and (
                        count_tokens(header + text) + count_tokens(context) + question_tokens
                        >= limit - PER_QA_TOKEN_BUDGET):
                    stop = True
                    break
                context = text + context
            context = header + context
            if stop:
                break
    return templates.conv_start_prompt.format(*speakers) + context


def rag_dialog_context(retrieved: Sequence[tuple[str, Turn]]) -> str:
    """The official dialog-mode RAG context: (session date_time, turn) in rank order."""
    return "\n".join(f'{date_time}: {turn.speaker} said, "{turn.text}"' for date_time, turn in retrieved)


@dataclass(frozen=True)
class Cat5Options:
    """The forced-choice options of a category-5 question: what (a) and (b) stand for."""

    a: Any
    b: Any

    def as_map(self) -> dict[str, str]:
        return {"a": self.a, "b": self.b}


def question_text(question: str, category: int, answer: object, templates: Templates, *,
                  not_mentioned_first: bool = True) -> tuple[str, Cat5Options | None]:
    """The question as the official code asks it, with the category-5 options when there are some."""
    if category == 2:
        return question + templates.cat2_question_suffix, None
    if category == 5:
        not_mentioned = templates.cat5_not_mentioned_option
        options = Cat5Options(not_mentioned, answer) if not_mentioned_first else Cat5Options(answer, not_mentioned)
        return question + templates.cat5_question_suffix.format(options.a, options.b), options
    return question, None


@dataclass(frozen=True)
class Query:
    prompt: str
    cat5_options: Cat5Options | None


def build_query(context: str, question: str, category: int, answer: object, templates: Templates, *,
                not_mentioned_first: bool = True) -> Query:
    """The whole official query for one question over an already built context."""
    asked, options = question_text(question, category, answer, templates,
                                   not_mentioned_first=not_mentioned_first)
    template = templates.qa_prompt_cat5 if category == 5 else templates.qa_prompt
    return Query(context + "\n\n" + template.format(asked), options)


def cat5_choice(reply: str, options: Mapping[str, Any] | Cat5Options) -> Any:
    """`get_cat_5_answer`: a category-5 reply turned into the prediction that is scored."""
    choices = options.as_map() if isinstance(options, Cat5Options) else options
    reply = reply.strip().lower()
    if len(reply) == 1:
        return choices["a"] if "a" in reply else choices["b"]
    if len(reply) == 3:
        return choices["a"] if "(a)" in reply else choices["b"]
    return reply


def official_messages(model: str, query: str) -> list[dict[str, str]]:
    """The chat messages the official `run_chatgpt` sends: gpt-3.5 as system, others as user."""
    return [{"role": "system" if "gpt-3.5" in model else "user", "content": query}]
