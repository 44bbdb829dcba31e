"""The official retrieval corpus of one LongMemEval question (`process_item_flat_index`).

The official retrieval indexes a question's haystack as flat rows and names each row:

- session granularity: one row per session, its text the user turns joined by " ", its id the
  release's session id; an `answer_…` session none of whose user turns has `has_answer` is
  renamed `noans_…`;
- turn granularity: one row per **user** turn, id `<session id>_<i>` with i the 1-based index
  among all turns of the session; in an `answer_…` session a user turn without `has_answer` is
  renamed `noans_…` (every user turn of an answer session must say True or False).

Gold (`official_correct_docs`) is every id containing "answer", so the evidence and non-evidence
turns of one answer session become two pseudo-sessions at session level (quirk 14). Evidence
labels (`has_answer`, the `answer_` prefix) are read here only to score, never to build what a
memory system sees.

`HaystackCorpus.rankings(recalled)` turns what a memory recalled (haystack positions (session,
turn), best first; `haystack_position` reads them from the loader's doc ids) into the official
`rankings`: rows in order of first appearance, a row once,
so a memory's recall is scored by `retrieval_metrics` exactly as the official retriever's is.
Assistant turns have no row at turn granularity; recalling one ranks nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from benchledger.errors import BadInput

__all__ = ["HaystackCorpus", "flat_index", "haystack_corpus", "haystack_position",
           "official_correct_docs"]

Granularity = Literal["session", "turn"]
Turn = Mapping[str, Any]
_LOADER_DOC_ID = re.compile(r"session_(\d+):(\d+)")


def _noans(doc_id: str) -> str:
    return doc_id.replace("answer", "noans")


def _has_answer(turn: Turn, session_id: str, index: int) -> bool:
    """The user turn's `has_answer`; the official indexer stops on a missing or non-boolean one."""
    if "has_answer" not in turn or turn["has_answer"] not in (True, False):
        raise BadInput(f"turn {index} of answer session {session_id!r} needs has_answer true or "
                       "false", field="has_answer")
    return bool(turn["has_answer"])


def flat_index(session_id: str, turns: Sequence[Turn], granularity: Granularity
               ) -> list[tuple[str, str, int | None]]:
    """(row id, row text, turn index or None for a whole session) of one haystack session."""
    user = [(index, turn) for index, turn in enumerate(turns) if turn["role"] == "user"]
    if granularity == "session":
        text = " ".join(turn["content"] for _, turn in user)
        doc_id = session_id
        if "answer" in session_id and not any(_has_answer(turn, session_id, index)
                                              for index, turn in user):
            doc_id = _noans(session_id)
        return [(doc_id, text, None)]
    if granularity != "turn":
        raise BadInput(f"granularity {granularity!r} is not session or turn", field="granularity")
    rows: list[tuple[str, str, int | None]] = []
    for index, turn in user:
        doc_id = f"{session_id}_{index + 1}"
        if "answer" in session_id and not _has_answer(turn, session_id, index):
            doc_id = _noans(doc_id)
        rows.append((doc_id, turn["content"], index))
    return rows


@dataclass(frozen=True)
class HaystackCorpus:
    """One question's official rows: ids, texts and where each came from in the haystack."""

    granularity: Granularity
    ids: tuple[str, ...]
    texts: tuple[str, ...]
    origins: tuple[tuple[int, int | None], ...]
    """(session position, turn index or None) of each row."""

    def rankings(self, recalled: Iterable[tuple[int, int]]) -> list[int]:
        """Row indices, best first, for recalled (session position, turn index) pairs."""
        row_of = {origin: row for row, origin in enumerate(self.origins)}
        ranked: list[int] = []
        seen: set[int] = set()
        for session, turn in recalled:
            key = (session, None) if self.granularity == "session" else (session, turn)
            row = row_of.get(key)
            if row is not None and row not in seen:
                seen.add(row)
                ranked.append(row)
        return ranked

    @property
    def correct_docs(self) -> list[str]:
        return official_correct_docs(self.ids)


def haystack_corpus(session_ids: Sequence[str], sessions: Sequence[Sequence[Turn]],
                    granularity: Granularity) -> HaystackCorpus:
    """The rows the official retrieval builds for one question, in haystack order."""
    if len(session_ids) != len(sessions):
        raise BadInput("haystack_session_ids and haystack_sessions differ in length",
                       field="haystack_session_ids")
    ids: list[str] = []
    texts: list[str] = []
    origins: list[tuple[int, int | None]] = []
    for position, (session_id, turns) in enumerate(zip(session_ids, sessions)):
        for doc_id, text, turn in flat_index(session_id, turns, granularity):
            ids.append(doc_id)
            texts.append(text)
            origins.append((position, turn))
    return HaystackCorpus(granularity, tuple(ids), tuple(texts), tuple(origins))


def official_correct_docs(corpus_ids: Iterable[str]) -> list[str]:
    """The official gold: every distinct id containing "answer" (sorted for a stable order)."""
    return sorted({doc_id for doc_id in corpus_ids if "answer" in doc_id})


def haystack_position(doc_id: str) -> tuple[int, int] | None:
    """(session position, turn index) of a document `load_longmemeval` made, else None."""
    found = _LOADER_DOC_ID.fullmatch(doc_id)
    return (int(found.group(1)), int(found.group(2))) if found else None
