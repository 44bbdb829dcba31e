"""A Mem2ActBench split as a `Dataset`: one Document per session turn, one scope per task's sessions.

A task belongs to the sessions whose `original_conversation_ids` hold one of its source ids (its
`source_conversation_ids` and its `evolution_chain` steps' `source_id`); those sessions, in file
order, are its memory: one scope per session (keyed by `session_id`), or, for a task whose ids
span several, one scope of them all (`<id>+<id>`). A task none of whose ids any session holds gets
the empty scope `no-session`: it is asked with nothing to remember, and its defect is on record.

One Document is one turn: `doc_id` `<session_id>:<turn index>`, `author` its role, `channel` its
`source_id` (the original conversation it comes from), `position` its order in the scope. Its text
is the turn's content; a tool call made in the session is written `called NAME(ARGUMENTS)`, one
per call, and a tool's reply `NAME returned: CONTENT`. `extra` keeps the session, the role, the
tool's name and the calls as JSON, so nothing of the turn's structure is lost.

Evidence, per task, at document level: for each `evolution_chain` step, the turns of its source
conversation in the task's scope whose text holds the step's `source_text` (compared casefolded,
whitespace collapsed). A step whose text is in no turn of its (present) conversation stands for the
whole conversation, and a step whose conversation is missing is dropped; both are
`release.evidence_repairs`. Each gold argument's grounding is located the same way: the turns
holding its `source_text`, or else every evidence turn of the task.

What a scorer and the reports read is kept on the task (`extra`, never sent to a memory system):
the gold call with its grounding and where it was found, the gold tool's schema (its defaults and
types), the candidate tools offered (`candidates.py`), the temporal-conflict flag and the task's
defects.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from benchledger.adapters.benchmarks.base import Dataset, Document, EvidenceRepair, Question, ReleaseFacts
from benchledger.adapters.benchmarks.mem2actbench.candidates import offered_tools, tool_pool
from benchledger.adapters.benchmarks.mem2actbench.release import Release, gold_tool_name, read_release
from benchledger.adapters.benchmarks.mem2actbench.schema import LEVELS, Session, Task, Turn
from benchledger.adapters.benchmarks.mem2actbench.selection import Mem2ActSelection
from benchledger.errors import BadInput

__all__ = ["ADAPTER_VERSION", "NO_SESSION", "turn_text", "session_documents", "load_mem2actbench", "canonical",
           "EXTRA_FIELDS"]

ADAPTER_VERSION = "mem2actbench/1"
NO_SESSION = "no-session"
EXTRA_FIELDS = ("gold_call", "grounding", "tool_schema", "candidate_tools", "temporal_conflict", "level_name",
                "defects")
"""What each planned task carries in `extra` (JSON or text), for its scorer and reports."""
_SPACE = re.compile(r"\s+")


def canonical(value: Any) -> str:
    """JSON with sorted keys and no spaces: how calls and schemas are kept on a task."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _folded(text: str) -> str:
    return _SPACE.sub(" ", text.casefold()).strip()


def turn_text(turn: Turn) -> str:
    parts = [] if turn.content is None else [turn.content]
    for call in turn.tool_calls or ():
        arguments = call.function.arguments
        shown = arguments if isinstance(arguments, str) else canonical(arguments or {})
        parts.append(f"called {call.function.name}({shown})")
    text = "\n".join(parts)
    if turn.role == "tool" and turn.name:
        text = f"{turn.name} returned: {text}"
    return text


def session_documents(session: Session, start: int = 0) -> list[Document]:
    docs: list[Document] = []
    for index, turn in enumerate(session.turns):
        calls = [call.function.model_dump(mode="json") for call in turn.tool_calls or ()]
        docs.append(Document(
            doc_id=f"{session.session_id}:{index}", text=turn_text(turn), author=turn.role, role=turn.role,
            channel=turn.source_id, position=start + len(docs),
            extra={"session_id": session.session_id, "role": turn.role, "tool_name": turn.name or "",
                   "tool_calls": canonical(calls) if calls else ""}))
    return docs


def _scope(release: Release, task: Task) -> tuple[str, tuple[Session, ...]]:
    sessions = release.sessions_of((*task.source_conversation_ids, *(s.source_id for s in task.evolution_chain)))
    if not sessions:
        return NO_SESSION, ()
    return "+".join(s.session_id for s in sessions), sessions


def _holding(docs: tuple[Document, ...], text: str | None, source: str | None = None) -> list[str]:
    if not text or not _folded(text):
        return []
    wanted = _folded(text)
    return [d.doc_id for d in docs if (source is None or d.channel == source) and wanted in _folded(d.text)]


def _step_evidence(task: Task, docs: tuple[Document, ...], repairs: list[EvidenceRepair]) -> list[list[str]]:
    """Per `evolution_chain` step, the turns that say it (see the module docstring)."""
    found: list[list[str]] = []
    reported: set[str] = set()
    for step in task.evolution_chain:
        held = _holding(docs, step.source_text, step.source_id)
        if not held:
            held = [d.doc_id for d in docs if d.channel == step.source_id]
            if step.source_id not in reported:
                reported.add(step.source_id)
                repairs.append(EvidenceRepair(
                    question_id=task.qa_id, released=step.source_id,
                    kept=f"{len(held)} turns of {step.source_id}" if held else None,
                    dropped=None if held else step.source_id,
                    reason="the step's source_text is in no turn of its conversation" if held
                    else "no session of the split holds this conversation"))
        found.append(held)
    return found


def _grounding(task: Task, docs: tuple[Document, ...], steps: list[list[str]], evidence: list[str]) -> dict[str, Any]:
    """Per gold argument: its grounding, and the turns that say it: those holding its source_text, else
    those of the chain steps of that text (none when their conversation is missing), else the task's evidence."""
    grounded = {}
    for param, info in task.tool_call.grounding_info.items():
        held: list[str] = []
        if info.type != "default":
            held = _holding(docs, info.source_text)
            if not held:
                linked = [doc for step, turns in zip(task.evolution_chain, steps)
                          if info.source_text and _folded(step.source_text) == _folded(info.source_text) for doc in turns]
                linked_any = any(info.source_text and _folded(step.source_text) == _folded(info.source_text)
                                 for step in task.evolution_chain)
                held = list(dict.fromkeys(linked)) if linked_any else evidence
        grounded[param] = {"type": info.type, "source_text": info.source_text, "evidence": held}
    return grounded


def _question(task: Task, scope_key: str, docs: tuple[Document, ...], offered: tuple, defects: list[str],
              repairs: list[EvidenceRepair]) -> Question:
    gold = {"name": gold_tool_name(task), "arguments": task.tool_call.arguments}
    steps = _step_evidence(task, docs, repairs)
    evidence = list(dict.fromkeys(doc for turns in steps for doc in turns))
    schema = task.target_tool_schema.model_copy(update={"name": gold["name"]})
    return Question(
        question_id=task.qa_id, kind=task.complexity_metadata.level, text=task.query, gold=canonical(gold),
        scope_key=scope_key, evidence=tuple(evidence),
        extra={"gold_call": canonical(gold), "grounding": canonical(_grounding(task, docs, steps, evidence)),
               "tool_schema": canonical(schema.model_dump(mode="json")),
               "candidate_tools": canonical([tool.model_dump(mode="json") for tool in offered]),
               "temporal_conflict": "true" if task.complexity_metadata.has_temporal_conflict else "false",
               "level_name": task.complexity_metadata.level_name, "defects": canonical(defects)})


def load_mem2actbench(root: Path, selection: Mem2ActSelection) -> Dataset:
    """Read one split of a release folder and select levels (and optionally a limit)."""
    root = Path(root)
    release = read_release(root, selection.split)
    wanted = set(selection.kinds) if selection.kinds else None
    if wanted and (unknown := sorted(wanted - set(LEVELS))):
        raise BadInput(f"no level {', '.join(unknown)} (levels: {', '.join(LEVELS)})", field="kinds")
    of_levels = [t for t in release.tasks if wanted is None or t.complexity_metadata.level in wanted]
    chosen = of_levels[:selection.question_limit] if selection.question_limit is not None else of_levels
    pool = tool_pool(release.tasks)
    defects: dict[str, list[str]] = {}
    for defect in release.defects:
        if defect.qa_id is not None:
            defects.setdefault(defect.qa_id, []).append(f"{defect.kind}: {defect.detail}")
    scopes: dict[str, tuple[Document, ...]] = {}
    questions: list[Question] = []
    repairs: list[EvidenceRepair] = []
    for task in chosen:
        key, sessions = _scope(release, task)
        if key not in scopes:
            docs: list[Document] = []
            for session in sessions:
                docs += session_documents(session, start=len(docs))
            scopes[key] = tuple(docs)
        offered = offered_tools(task, pool, candidates=selection.candidates, negatives=selection.negatives,
                                seed=selection.candidate_seed)
        questions.append(_question(task, key, scopes[key], offered, defects.get(task.qa_id, []), repairs))
    return Dataset(
        benchmark="Mem2ActBench", subset=selection.split, adapter_version=ADAPTER_VERSION, source=str(root),
        scopes=scopes, questions=tuple(questions), selection=selection,
        release=ReleaseFacts(
            documents_available=sum(len(docs) for docs in scopes.values()),
            questions_available=len(of_levels),
            kinds_available=tuple(level for level in LEVELS
                                  if any(t.complexity_metadata.level == level for t in release.tasks)),
            evidence_level="document", evidence_repairs=tuple(repairs),
            extra_fields=dict(release.unmodelled)))
