"""Memora: one split (weekly, monthly, quarterly) of the release folder read into a `Dataset`.

Layout: `<split>/<persona>/conversations/session_NNNN.json` and
`<split>/<persona>/evaluation_questions_<persona>.json`. Each persona is one scope. Each turn of
each session becomes a Document: doc_id "session_<id>:<turn>", channel "session_<id>", author =
the speaker, role "user" or "assistant", timestamp = the session date, position in session order.

What tells the harness how memory changed is a label and never reaches a Document: the session's
`session_type`, `operation`, `operation_details` and each turn's `share_memory` are not read into
it. Questions keep their category as `kind` (remembering, reasoning, recommending), their
evaluation questions as `Criterion`s, and as evidence the sessions named by `memory_evidence`
(session level, like LongMemEval). Memora releases no gold answer sentence: the criteria are the
gold, so `gold` is empty. `questions` may be one object keyed by category or, as released, a list
of such objects (one per query date). Question ids are prefixed by persona to stay unique. A
session or question file that is a link leading out of the release folder is refused, naming it
(`release_paths`): its text would become memory the run ingests.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from benchledger.adapters.benchmarks.base import (
    Criterion, Dataset, Document, EvidenceRepair, Question, ReleaseFacts,
)
from benchledger.adapters.benchmarks.json_source import read_json, validate
from benchledger.adapters.benchmarks.memora.selection import MemoraSelection, Split
from benchledger.adapters.benchmarks.release_paths import contained_file
from benchledger.errors import BadInput

__all__ = ["ADAPTER_VERSION", "CATEGORIES", "EVIDENCE_LEVEL", "SPLITS", "load_memora", "session_name"]

ADAPTER_VERSION = "memora/1"
SPLITS = ("weekly", "monthly", "quarterly")
CATEGORIES = ("remembering", "reasoning", "recommending")
EVIDENCE_LEVEL = "session"
_ROLES = {"user_agent": "user", "ai_agent": "assistant"}
_SESSION_FILE = re.compile(r"session_(\d+)\.json")


class _Raw(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class _Turn(_Raw):
    turn: int
    speaker: str
    message: str


class _Session(_Raw):
    session_id: int
    date: str
    conversation: list[_Turn]


class _EvaluationQuestion(_Raw):
    evaluation_question_id: str
    evaluation_question: str
    expected_answer: Literal["yes", "no"]
    evaluation_type: Literal["memory_presence", "forgetting_absence"]

    @field_validator("expected_answer", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


class _Evaluation(_Raw):
    evaluation_questions: list[_EvaluationQuestion]


class _Question(_Raw):
    question_id: str | int
    question: str
    question_date: str
    memory_evidence: Any = None
    evaluation: _Evaluation


class _QuestionFile(_Raw):
    persona: str
    questions: list[dict[str, list[_Question]]]
    """As released, one object per query date; a single object is read as a list of one."""

    @field_validator("questions", mode="before")
    @classmethod
    def _as_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value


def session_name(session_id: int) -> str:
    return f"session_{session_id}"


def _date(value: str, file: Path, field: str) -> datetime:
    try:
        return datetime.strptime(value.strip(), "%Y-%m-%d")
    except ValueError:
        raise BadInput(f"date {value!r} is not YYYY-MM-DD", file=str(file), field=field) from None


def _session_ids(evidence: Any) -> list[int]:
    """Every `session_id` anywhere inside a memory_evidence value, in order, once each."""
    found: list[int] = []
    stack = [evidence]
    while stack:
        value = stack.pop(0)
        if isinstance(value, dict):
            if isinstance(value.get("session_id"), int) or str(value.get("session_id", "")).isdigit():
                found.append(int(value["session_id"]))
            stack[:0] = list(value.values())
        elif isinstance(value, list):
            stack[:0] = list(value)
    return list(dict.fromkeys(found))


def _documents(root: Path, persona_dir: Path) -> tuple[tuple[Document, ...], set[int]]:
    folder = persona_dir / "conversations"
    files = sorted(((int(m.group(1)), f) for f in folder.glob("session_*.json")
                    if (m := _SESSION_FILE.fullmatch(f.name))), key=lambda pair: pair[0])
    if not files:
        raise BadInput("no session_NNNN.json files", file=str(folder))
    docs: list[Document] = []
    sessions: set[int] = set()
    for _number, file in files:
        contained_file(root, file)  # a session file may not be a link out of the release
        value, text = read_json(file)
        session = validate(_Session, value, file=file, text=text)
        if session.session_id in sessions:
            raise BadInput(f"session_id {session.session_id} repeats", file=str(file),
                           line=1, field="session_id")
        sessions.add(session.session_id)
        when = _date(session.date, file, "date")
        name = session_name(session.session_id)
        for turn in session.conversation:
            docs.append(Document(
                doc_id=f"{name}:{turn.turn}", text=turn.message, author=turn.speaker,
                role=_ROLES.get(turn.speaker), channel=name, timestamp=when, position=len(docs),
            ))
    return tuple(docs), sessions


def _questions(root: Path, persona: str, persona_dir: Path, sessions: set[int],
               repairs: list[EvidenceRepair]) -> list[Question]:
    file = persona_dir / f"evaluation_questions_{persona}.json"
    contained_file(root, file)
    value, text = read_json(file)
    parsed = validate(_QuestionFile, value, file=file, text=text)
    out: list[Question] = []
    for group_index, group in enumerate(parsed.questions):
        for category, items in group.items():
            if category not in CATEGORIES:
                raise BadInput(f"unknown category {category!r}; Memora has "
                               f"{', '.join(CATEGORIES)}", file=str(file),
                               field=f"questions[{group_index}].{category}")
            for item in items:
                question_id = f"{persona}:{item.question_id}"
                evidence: list[str] = []
                for session_id in _session_ids(item.memory_evidence):
                    if session_id in sessions:
                        evidence.append(session_name(session_id))
                    else:
                        repairs.append(EvidenceRepair(question_id=question_id, released=str(session_id),
                                                      dropped=str(session_id), reason="no such session"))
                out.append(Question(
                    question_id=question_id, kind=category, text=item.question, gold="",
                    scope_key=persona, evidence=tuple(evidence),
                    question_time=_date(item.question_date, file, "question_date"),
                    criteria=tuple(
                        Criterion(criterion_id=c.evaluation_question_id,
                                  question=c.evaluation_question, expected=c.expected_answer,
                                  kind=c.evaluation_type)
                        for c in item.evaluation.evaluation_questions),
                ))
    return out


def load_memora(root: Path, *, split: Split, personas: Iterable[str] | None = None,
                kinds: Iterable[str] | None = None, question_limit: int | None = None) -> Dataset:
    """Read the personas of one split of a Memora release folder into a Dataset.

    `personas` keeps those persona folders (default: all), `kinds` those task categories
    (remembering, reasoning, recommending), `question_limit` the first N selected questions of
    each persona in file order. A persona left with no question is left out with its history.
    """
    root = Path(root)
    if split not in SPLITS:
        raise BadInput(f"split {split!r} is not one of {', '.join(SPLITS)}", field="split")
    if question_limit is not None and question_limit < 1:
        raise BadInput("question_limit must be at least 1", field="question_limit")
    split_dir = root / split
    if not root.exists():
        raise BadInput("no such folder; pass the Memora release folder (the one holding weekly/, monthly/, "
                       "quarterly/)", file=str(root))
    if not split_dir.is_dir():
        raise BadInput(f"no {split}/ folder in the Memora release", file=str(root))
    found = sorted(p.name for p in split_dir.iterdir() if p.is_dir())
    if not found:
        raise BadInput("no persona folders", file=str(split_dir))
    chosen = list(personas) if personas else found
    if missing := sorted(set(chosen) - set(found)):
        raise BadInput(f"no persona {', '.join(missing)} in {split}/ (it holds {', '.join(found)})",
                       file=str(split_dir), field="personas")
    wanted_kinds = {k.lower() for k in kinds} if kinds else None
    if wanted_kinds is not None and (unknown := sorted(wanted_kinds - set(CATEGORIES))):
        raise BadInput(f"unknown task {', '.join(unknown)}; Memora has {', '.join(CATEGORIES)}",
                       field="kinds")
    scopes: dict[str, tuple[Document, ...]] = {}
    questions: list[Question] = []
    repairs: list[EvidenceRepair] = []
    documents_available = questions_available = 0
    for persona in chosen:
        docs, sessions = _documents(root, split_dir / persona)
        persona_questions = [q for q in _questions(root, persona, split_dir / persona, sessions, repairs)
                             if wanted_kinds is None or q.kind in wanted_kinds]
        questions_available += len(persona_questions)
        documents_available += len(docs)
        if question_limit is not None:
            persona_questions = persona_questions[:question_limit]
        if persona_questions:
            scopes[persona] = docs
            questions.extend(persona_questions)
    counts = Counter(q.question_id for q in questions)
    if repeated := sorted(i for i, n in counts.items() if n > 1):
        raise BadInput(f"question ids repeat: {', '.join(repeated[:5])}", file=str(split_dir))
    return Dataset(
        benchmark="Memora", subset=split, adapter_version=ADAPTER_VERSION, source=str(root),
        scopes=scopes, questions=tuple(questions),
        selection=MemoraSelection(split=split, personas=tuple(personas or ()),
                                  kinds=tuple(sorted(wanted_kinds or ())), question_limit=question_limit),
        release=ReleaseFacts(documents_available=documents_available, questions_available=questions_available,
                             kinds_available=CATEGORIES, evidence_level=EVIDENCE_LEVEL,
                             evidence_repairs=tuple(repairs)),
    )
