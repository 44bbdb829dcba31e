"""LoCoMo: the released `locomo10.json` format, read unchanged into a `Dataset`.

The release is a JSON list of conversations. Each conversation is its own scope (scope_key = its
`sample_id`, e.g. "conv-26"); its turns become Documents in session order, keeping the speaker
(author), dia_id (doc_id), session (channel "session_N") and the session's date-time
("1:56 pm on 8 May, 2023") as timestamp; image fields (blip_caption, img_url, query,
re-download) go to `extra` as strings. Sessions that have a date but no turns hold nothing.

The file does not name its categories. `CATEGORY_NAMES` is the mapping, kept here in sight
because public harnesses have shipped it wrong: 1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop, 5 adversarial (tests pin it against real items). Category 5 items are abstention
cases: their gold is the released abstention sentence, and their `adversarial_answer` (and the
`answer` two of them also carry) are dropped, as `Question` has no field for them.

Evidence is the `evidence` dia_ids, normalised: entries holding several ids ("D8:6; D9:17") are
split; a stray colon ("D:11:26") is repaired; ids naming no turn of the conversation ("D", or a
turn the release does not have) are dropped. Every change is recorded in
`dataset.release.evidence_repairs`. The official scorer reads the labels as released, so they are
kept too (`Question.extra`, with the answer a category-5 forced choice offers).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from benchledger.adapters.benchmarks.base import Dataset, Document, EvidenceRepair, Question, ReleaseFacts
from benchledger.adapters.benchmarks.json_source import line_of, read_json, validate
from benchledger.adapters.benchmarks.locomo.selection import LoCoMoSelection
from benchledger.errors import BadInput

__all__ = [
    "ADAPTER_VERSION", "CATEGORY_NAMES", "CATEGORY_NUMBERS", "ABSTENTION_ANSWER", "EVIDENCE_LEVEL", "RAW_EVIDENCE",
    "CAT5_ANSWER", "load_locomo", "parse_session_datetime", "format_session_datetime",
]

ADAPTER_VERSION = "locomo/1"

CATEGORY_NAMES: dict[int, str] = {
    1: "multi_hop",
    2: "temporal",
    3: "open_domain",
    4: "single_hop",
    5: "adversarial",
}
CATEGORY_NUMBERS: dict[str, int] = {name: number for number, name in CATEGORY_NAMES.items()}
ADVERSARIAL = 5

ABSTENTION_ANSWER = "There is no information available in the conversation to answer this question."
RAW_EVIDENCE = "evidence"
"""`Question.extra` key: the released evidence list as JSON, unrepaired."""
CAT5_ANSWER = "cat5_answer"
"""`Question.extra` key: the answer a category-5 forced choice offers beside "not mentioned"."""

EVIDENCE_LEVEL = "document"
"""Evidence names turns (dia_ids), so retrieval is scored per recalled document."""

_SESSION_KEY = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D(\d+):(\d+)")
_STRAY_COLON = re.compile(r"D:(\d+):(\d+)")
_DATE_FORMAT = "%I:%M %p on %d %B, %Y"
_IMAGE_FIELDS = ("blip_caption", "img_url", "query", "re-download")


class _Raw(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)


class _Turn(_Raw):
    speaker: str
    dia_id: str
    text: str


class _QA(_Raw):
    question: str
    answer: str | int | float | None = None
    adversarial_answer: str | int | float | None = None
    evidence: list[str] = []
    category: int


class _Conversation(_Raw):
    sample_id: str
    conversation: dict[str, Any]
    qa: list[_QA]


def parse_session_datetime(value: str) -> datetime:
    """"1:56 pm on 8 May, 2023" -> datetime(2023, 5, 8, 13, 56) (naive: the release has no zone)."""
    return datetime.strptime(value.strip(), _DATE_FORMAT)


def format_session_datetime(value: datetime) -> str:
    """A session date-time written the way the release writes it ("1:56 pm on 8 May, 2023")."""
    return (f"{value.hour % 12 or 12}:{value.minute:02d} {'am' if value.hour < 12 else 'pm'} on "
            f"{value.day} {value.strftime('%B')}, {value.year}")


def _extra(turn: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key in _IMAGE_FIELDS:
        if key in turn:
            value = turn[key]
            out[key] = value if isinstance(value, str) else json.dumps(value)
    return out


def _documents(conv: _Conversation, index: int, path: Path, text: str) -> tuple[Document, ...]:
    raw = conv.conversation
    numbers = sorted(int(m.group(1)) for key in raw if (m := _SESSION_KEY.fullmatch(key)))
    docs: list[Document] = []
    for number in numbers:
        key = f"session_{number}"
        turns = raw[key]
        where = (index, "conversation", key)
        if not isinstance(turns, list):
            raise BadInput("a session must be a list of turns", file=str(path),
                           line=line_of(text, where), field=f"[{index}].conversation.{key}")
        date_key = f"{key}_date_time"
        when = None
        if date_key in raw:
            try:
                when = parse_session_datetime(str(raw[date_key]))
            except ValueError:
                raise BadInput(f"date-time {raw[date_key]!r} is not like '1:56 pm on 8 May, 2023'",
                               file=str(path), line=line_of(text, (index, "conversation")),
                               field=f"[{index}].conversation.{date_key}") from None
        for turn_index, turn in enumerate(turns):
            parsed = validate(_Turn, turn, file=path, text=text, prefix=(*where, turn_index))
            docs.append(Document(
                doc_id=parsed.dia_id, text=parsed.text, author=parsed.speaker, channel=key,
                timestamp=when, position=len(docs), extra=_extra(turn),
            ))
    seen: set[str] = set()
    for doc in docs:
        if doc.doc_id in seen:
            raise BadInput(f"dia_id {doc.doc_id!r} appears twice", file=str(path),
                           line=line_of(text, (index, "conversation")),
                           field=f"[{index}].conversation")
        seen.add(doc.doc_id)
    return tuple(docs)


def _normalise_evidence(raw: list[str], known: set[str], question_id: str,
                        repairs: list[EvidenceRepair]) -> tuple[str, ...]:
    kept: list[str] = []
    for entry in raw:
        for piece in (p.strip() for p in re.split(r"[;,]", entry)):
            candidate = piece
            if stray := _STRAY_COLON.fullmatch(piece):
                candidate = f"D{stray.group(1)}:{stray.group(2)}"
            if _DIA_ID.fullmatch(candidate) and candidate in known:
                if candidate != entry:
                    repairs.append(EvidenceRepair(question_id=question_id, released=entry, kept=candidate,
                                                  reason="malformed label repaired"))
                if candidate not in kept:
                    kept.append(candidate)
            else:
                reason = "not a dia_id" if not _DIA_ID.fullmatch(candidate) else "no such turn"
                repairs.append(EvidenceRepair(question_id=question_id, released=entry, dropped=piece,
                                              reason=reason))
    return tuple(kept)


def _official_fields(qa: _QA) -> dict[str, str]:
    """What the official scorer and prompt read that `Question` does not hold: the evidence exactly
    as released (malformed labels included, quirk 9) and, for category 5, the answer the forced
    choice offers (`answer` when the item has one, else `adversarial_answer`, quirk 7)."""
    fields = {RAW_EVIDENCE: json.dumps(qa.evidence, ensure_ascii=False)}
    if qa.category == ADVERSARIAL:
        offered = qa.answer if qa.answer is not None else qa.adversarial_answer
        fields[CAT5_ANSWER] = str(offered)
    return fields


def _category_names(categories: Iterable[str | int] | None) -> set[int] | None:
    if categories is None:
        return None
    by_name = {name: number for number, name in CATEGORY_NAMES.items()}
    chosen: set[int] = set()
    for category in categories:
        if isinstance(category, int) and category in CATEGORY_NAMES:
            chosen.add(category)
        elif isinstance(category, str) and category in by_name:
            chosen.add(by_name[category])
        else:
            raise BadInput(f"unknown LoCoMo category {category!r}; use one of "
                           f"{', '.join(CATEGORY_NAMES.values())}", field="categories")
    return chosen


def load_locomo(path: Path, *, categories: Iterable[str | int] | None = None,
                question_limit: int | None = None,
                conversation_ids: Iterable[str] | None = None) -> Dataset:
    """Read a LoCoMo release file (any number of conversations) into a Dataset.

    `categories` selects by name ("temporal") or number; `conversation_ids` by sample_id;
    `question_limit` keeps the first N selected questions in file order. Only conversations that
    keep a question become scopes, each with its complete set of turns.
    """
    path = Path(path)
    if question_limit is not None and question_limit < 1:
        raise BadInput("question_limit must be at least 1", field="question_limit")
    value, text = read_json(path)
    if not isinstance(value, list):
        raise BadInput("top level must be a JSON list of conversations", file=str(path), line=1)
    chosen_categories = _category_names(categories)
    wanted = None if conversation_ids is None else list(conversation_ids)
    conversations = [validate(_Conversation, item, file=path, text=text, prefix=(i,))
                     for i, item in enumerate(value)]
    sample_ids = [conv.sample_id for conv in conversations]
    if len(set(sample_ids)) != len(sample_ids):
        raise BadInput("sample_id values repeat", file=str(path), line=1, field="sample_id")
    if wanted is not None and (missing := sorted(set(wanted) - set(sample_ids))):
        raise BadInput(f"no conversation {', '.join(missing)} in the file (it holds "
                       f"{', '.join(sample_ids)})", field="conversation_ids")

    scopes: dict[str, tuple[Document, ...]] = {}
    questions: list[Question] = []
    repairs: list[EvidenceRepair] = []
    available = documents_available = 0
    for index, conv in enumerate(conversations):
        docs = _documents(conv, index, path, text)
        documents_available += len(docs)
        if wanted is not None and conv.sample_id not in wanted:
            continue
        known = {doc.doc_id for doc in docs}
        for q_index, qa in enumerate(conv.qa):
            if qa.category not in CATEGORY_NAMES:
                raise BadInput(f"category {qa.category} is not one of 1-5", file=str(path),
                               line=line_of(text, (index, "qa", q_index)),
                               field=f"[{index}].qa[{q_index}].category")
            if chosen_categories is not None and qa.category not in chosen_categories:
                continue
            available += 1
            if question_limit is not None and len(questions) >= question_limit:
                continue
            question_id = f"{conv.sample_id}:q{q_index}"
            adversarial = qa.category == ADVERSARIAL
            if not adversarial and qa.answer is None:
                raise BadInput("answer is missing", file=str(path),
                               line=line_of(text, (index, "qa", q_index)),
                               field=f"[{index}].qa[{q_index}].answer")
            questions.append(Question(
                question_id=question_id, kind=CATEGORY_NAMES[qa.category], text=qa.question,
                gold=ABSTENTION_ANSWER if adversarial else str(qa.answer),
                abstention=adversarial, scope_key=conv.sample_id,
                evidence=_normalise_evidence(qa.evidence, known, question_id, repairs),
                extra=_official_fields(qa),
            ))
            if conv.sample_id not in scopes:
                scopes[conv.sample_id] = docs

    return Dataset(
        benchmark="LoCoMo", subset=path.stem, adapter_version=ADAPTER_VERSION, source=str(path),
        scopes=scopes, questions=tuple(questions),
        selection=LoCoMoSelection(kinds=tuple(CATEGORY_NAMES[c] for c in sorted(chosen_categories or ())),
                                  question_limit=question_limit, conversation_ids=tuple(wanted or ())),
        release=ReleaseFacts(documents_available=documents_available, questions_available=available,
                             kinds_available=tuple(CATEGORY_NAMES.values()), evidence_level=EVIDENCE_LEVEL,
                             evidence_repairs=tuple(repairs)),
    )
