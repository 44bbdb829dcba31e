"""Synthetic but realistic run events for benchmarks: a start, a plan, then per question a
recall of k=10 items, an answer and a judgment (the mix and sizes of a GroupMemBench run).

`question_events(n_events)` yields exactly n events; benchmarks of folds (`fold_50k_s`) can
append them to a fresh ledger with `fill_ledger`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

from benchledger.ledger.events import (
    ContextRecalled, Event, Judged, Provenance, QuestionAnswered,
    QuestionsPlanned, RecalledItem, RunConfig, RunStarted,
)
from benchledger.ledger.store import Ledger
from benchledger.settings import RunSettings, Selection
from benchledger.values import Question

__all__ = ["run_started", "question_events", "fill_ledger", "BODY"]

BODY = b"[1] User_3 in #finance-ops: budget line approved.\nFinal: Line approved."
"""The one blob every synthetic recall and answer names: store it with the events."""
_DIGEST = hashlib.sha256(BODY).hexdigest()


def run_started(questions: int) -> list[Event]:
    """RunStarted and QuestionsPlanned for a synthetic run of `questions` questions."""
    config = RunConfig(benchmark="GroupMemBench", subset="Finance", corpus_path="/data/gm",
                       selection=Selection(domain="Finance"), settings=RunSettings(memory_store=Path("/m.db")),
                       memory="sqlite", memory_version="1", agent_model="offline-agent",
                       judge_model="offline-judge", offline_models=True)
    provenance = Provenance(package_version="0.1.0", python="3.11")
    planned = tuple(Question(question_id=f"q{i:06d}", kind="single_hop",
                                    text=f"What did User_{i % 40} decide about budget line {i}?",
                                    gold=f"Line {i} was approved.") for i in range(questions))
    return [RunStarted(config=config, provenance=provenance),
            QuestionsPlanned(questions=planned, available=questions)]


def _per_question(index: int) -> tuple[Event, Event, Event]:
    qid = f"q{index:06d}"
    items = tuple(RecalledItem(doc_id=f"Msg_{index * 10 + rank}", score=1.0 / (rank + 1),
                               rank=rank + 1, author=f"User_{rank}", channel="finance-ops")
                  for rank in range(10))
    recalled = ContextRecalled(question_id=qid, query=f"budget line {index}", k=10, items=items,
                               context_hash=_DIGEST, context_tokens=812, latency_ms=3.2)
    answered = QuestionAnswered(question_id=qid, answer=f"Line {index} was approved.",
                                abstained=False, model="offline-agent", raw_hash=_DIGEST)
    judged = Judged(question_id=qid, scorer_id="s1", verdict="correct", reason="matches gold",
                    model="offline-judge")
    return recalled, answered, judged


def question_events(n_events: int, start: int = 0) -> Iterator[Event]:
    """Exactly n_events per-question events (recall, answer, judge, recall, ...)."""
    produced, index = 0, start
    while produced < n_events:
        for event in _per_question(index):
            if produced == n_events:
                return
            yield event
            produced += 1
        index += 1


def fill_ledger(path: Path, run_id: str, n_events: int, batch: int = 500) -> Ledger:
    """A ledger at path holding one run of n_events events (start and plan included)."""
    ledger = Ledger.open(path)
    head = run_started(n_events // 3 + 1)
    ledger.writer.append(run_id, head, blobs=[BODY])
    pending: list[Event] = []
    for event in question_events(n_events - len(head)):
        pending.append(event)
        if len(pending) == batch:
            ledger.writer.append(run_id, pending)
            pending = []
    if pending:
        ledger.writer.append(run_id, pending)
    return ledger
