"""LongMemEval: the official JSON list (longmemeval_s / _m / _oracle) read into a `Dataset`.

Every question carries its own haystack, so each question is its own scope (scope_key = its
question_id). Each turn of each haystack session becomes a Document: doc_id
"<session>:<turn index from 0>", channel = the session, author and role = the chat role,
timestamp = the session's date ("2023/05/20 (Sat) 02:21"), position in haystack order.

The session is named by its haystack position, "session_<i>" (the release's id is
`haystack_session_ids[i]`), not by the release's id, because those ids are themselves labels:
evidence sessions are called "answer_<hash>" and filler ones "sharegpt_..." or "<hash>_<n>", so
handing them to a memory system would tell it where the answer is. For the same reason the
turn-level `has_answer` never reaches a Document; only `role` and `content` of a turn are read.

Evidence is `answer_session_ids`, mapped to those positional names (session level): retrieval
counts a session as hit when any of its turns is recalled. An answer session missing from the
haystack is dropped and recorded in `release.evidence_repairs`. A question_id ending in
`_abs` is an abstention case. Integer answers become strings.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, model_validator

from benchledger.adapters.benchmarks.base import Dataset, Document, EvidenceRepair, Question, ReleaseFacts
from benchledger.adapters.benchmarks.json_source import line_of, read_json, validate
from benchledger.adapters.benchmarks.longmemeval.selection import LongMemEvalSelection
from benchledger.errors import BadInput

__all__ = ["ADAPTER_VERSION", "EVIDENCE_LEVEL", "HAYSTACK_LABELS", "load_longmemeval", "parse_longmemeval_date",
           "format_longmemeval_date", "haystack_labels", "session_name"]

ADAPTER_VERSION = "longmemeval/1"

EVIDENCE_LEVEL = "session"
"""Evidence names sessions; a recalled turn counts for the session (its channel) it belongs to."""

_DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"
HAYSTACK_LABELS = "haystack"
"""`Question.extra` key: the haystack's session ids and `has_answer` labels (`haystack_labels`)."""


class _Turn(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    role: str
    content: str


class _Item(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    question_id: str
    question_type: str
    question: str
    answer: str | int | float
    question_date: str
    haystack_dates: list[str]
    haystack_session_ids: list[str]
    haystack_sessions: list[list[_Turn]]
    answer_session_ids: list[str]

    @model_validator(mode="after")
    def _aligned(self) -> "_Item":
        lengths = {len(self.haystack_dates), len(self.haystack_session_ids),
                   len(self.haystack_sessions)}
        if len(lengths) != 1:
            raise ValueError("haystack_dates, haystack_session_ids and haystack_sessions must "
                             "have the same length")
        if len(set(self.haystack_session_ids)) != len(self.haystack_session_ids):
            raise ValueError("haystack_session_ids repeat a session id")
        return self


def haystack_labels(raw: dict) -> str:
    """What the official retrieval metrics need of a question's haystack, compactly, as JSON.

    One entry per session in haystack order: `[session id, roles, has_answer turns, unlabelled
    turns]` for a session the official code treats as an answer session (its id contains
    "answer"), `[null, roles]` for any other (its id matters only as a distinct name). `roles` has
    one letter per turn, "u" for a user turn; the turn lists are turn indices of user turns whose
    `has_answer` is true, and of those where it is missing or not a boolean (which the official
    indexer refuses)."""
    sessions: list[list] = []
    for session_id, turns in zip(raw["haystack_session_ids"], raw["haystack_sessions"]):
        roles = "".join("u" if isinstance(t, dict) and t.get("role") == "user" else "a" for t in turns)
        if "answer" not in session_id:
            sessions.append([None, roles])
            continue
        labelled = [(i, t.get("has_answer")) for i, t in enumerate(turns) if roles[i] == "u"]
        sessions.append([session_id, roles, [i for i, value in labelled if value is True],
                         [i for i, value in labelled if value not in (True, False)]])
    return json.dumps(sessions, separators=(",", ":"), ensure_ascii=False)


def session_name(index: int) -> str:
    """The name a haystack session gets in Documents and evidence: its position."""
    return f"session_{index}"


def _evidence(item: _Item, repairs: list[EvidenceRepair]) -> tuple[str, ...]:
    position = {release_id: i for i, release_id in enumerate(item.haystack_session_ids)}
    kept: list[str] = []
    for release_id in item.answer_session_ids:
        if release_id in position:
            kept.append(session_name(position[release_id]))
        else:
            repairs.append(EvidenceRepair(question_id=item.question_id, released=release_id,
                                          dropped=release_id, reason="not in haystack_session_ids"))
    return tuple(dict.fromkeys(kept))


def format_longmemeval_date(value: datetime) -> str:
    """A date written the way the release writes it ("2023/05/20 (Sat) 02:21")."""
    return value.strftime(_DATE_FORMAT)


def parse_longmemeval_date(value: str) -> datetime:
    """"2023/05/20 (Sat) 02:21" -> datetime(2023, 5, 20, 2, 21) (naive: the release has no zone)."""
    return datetime.strptime(value.strip(), _DATE_FORMAT)


def _date(value: str, path: Path, text: str, where: tuple[int | str, ...], field: str) -> datetime:
    try:
        return parse_longmemeval_date(value)
    except ValueError:
        raise BadInput(f"date {value!r} is not like '2023/05/20 (Sat) 02:21'", file=str(path),
                       line=line_of(text, where), field=field) from None


def _documents(item: _Item, index: int, path: Path, text: str) -> tuple[Document, ...]:
    docs: list[Document] = []
    sessions = zip(item.haystack_session_ids, item.haystack_dates, item.haystack_sessions)
    for s_index, (_release_id, date, turns) in enumerate(sessions):
        when = _date(date, path, text, (index, "haystack_dates"),
                     f"[{index}].haystack_dates[{s_index}]")
        session = session_name(s_index)
        for t_index, turn in enumerate(turns):
            docs.append(Document(
                doc_id=f"{session}:{t_index}", text=turn.content, author=turn.role,
                role=turn.role, channel=session, timestamp=when, position=len(docs),
            ))
    return tuple(docs)


def load_longmemeval(path: Path, *, question_limit: int | None = None,
                     kinds: Iterable[str] | None = None) -> Dataset:
    """Read a LongMemEval file into a Dataset: one scope per question, its haystack inside.

    `kinds` keeps the questions of those question types; `question_limit` keeps the first N
    (selected) questions in file order.
    """
    path = Path(path)
    if question_limit is not None and question_limit < 1:
        raise BadInput("question_limit must be at least 1", field="question_limit")
    value, text = read_json(path)
    if not isinstance(value, list):
        raise BadInput("top level must be a JSON list of questions", file=str(path), line=1)
    scopes: dict[str, tuple[Document, ...]] = {}
    questions: list[Question] = []
    documents_available = 0
    seen: set[str] = set()
    repairs: list[EvidenceRepair] = []
    wanted = set(kinds) if kinds else None
    types_seen: dict[str, None] = {}
    available = 0
    for index, raw in enumerate(value):
        item = validate(_Item, raw, file=path, text=text, prefix=(index,))
        if item.question_id in seen:
            raise BadInput(f"question_id {item.question_id!r} repeats", file=str(path),
                           line=line_of(text, (index,)), field=f"[{index}].question_id")
        seen.add(item.question_id)
        docs = _documents(item, index, path, text)
        documents_available += len(docs)
        types_seen[item.question_type] = None
        if wanted is not None and item.question_type not in wanted:
            continue
        available += 1
        if question_limit is not None and len(questions) >= question_limit:
            continue
        questions.append(Question(
            question_id=item.question_id, kind=item.question_type, text=item.question,
            gold=str(item.answer), abstention=item.question_id.endswith("_abs"),
            scope_key=item.question_id, evidence=_evidence(item, repairs),
            question_time=_date(item.question_date, path, text, (index,),
                                f"[{index}].question_date"),
            extra={HAYSTACK_LABELS: haystack_labels(raw)},
        ))
        scopes[item.question_id] = docs
    if wanted is not None and (unknown := sorted(wanted - set(types_seen))):
        raise BadInput(f"no question of type {', '.join(unknown)} in the file (it holds "
                       f"{', '.join(types_seen)})", file=str(path), field="kinds")
    types_available = tuple(types_seen)
    return Dataset(
        benchmark="LongMemEval", subset=path.stem, adapter_version=ADAPTER_VERSION,
        source=str(path), scopes=scopes, questions=tuple(questions),
        selection=LongMemEvalSelection(kinds=tuple(kinds or ()), question_limit=question_limit),
        release=ReleaseFacts(documents_available=documents_available, questions_available=available,
                             kinds_available=types_available, evidence_level=EVIDENCE_LEVEL,
                             evidence_repairs=tuple(repairs)),
    )
