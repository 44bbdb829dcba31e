"""Reading a Mem2ActBench release folder unchanged, and finding the known defects of the pinned commit.

The release (github.com/Cantaloupe-M/Mem2ActBench) has two folders, each a split:

- `toolmembench_small/`: the evaluation split the paper uses (400 tasks, 429 sessions);
- `Mem2ActBench/`: all 2,029 sessions and the same 400 tasks;

and each holds `qa_dataset.jsonl` (tasks), `toolmem_conversation.jsonl` (sessions) and
`benchmark_statistics.json` (`{total_sessions, total_qa}`). Every line is validated into the frozen
models of `schema.py`; a line that is not JSON, not an object or not of the published shape is one
`BadInput` naming the file, the line and the field, and a repeated `qa_id` or `session_id` too.

What the pinned commit is known to get wrong is found and kept as `Defect`s, never refused:

- `missing_source`: a task's source id (in `source_conversation_ids` or an `evolution_chain` step)
  that no session of the split holds (`original_conversation_ids`); 11 in the small split;
- `tool_name_not_a_string`: `tool_call.name` is not a string (`qa_283`: the number 4, its schema
  naming "4D Dream Dictionary"); the gold tool is then the schema's name, and the defect says so;
- `statistics`: `benchmark_statistics.json` disagrees with the lines counted.

`check mem2actbench` prints them; a run records each on its task (`loader.py`) so the scorecard
counts them from the ledger.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from benchledger.adapters.benchmarks.json_source import dotted
from benchledger.adapters.benchmarks.mem2actbench.schema import Session, Statistics, Task, unmodelled
from benchledger.errors import BadInput
from benchledger.json_input import load_file, load_lines

__all__ = ["SPLITS", "Split", "TASKS_FILE", "SESSIONS_FILE", "STATISTICS_FILE", "Defect", "Release",
           "read_release", "split_files", "gold_tool_name"]

Split = Literal["toolmembench_small", "Mem2ActBench"]
SPLITS: tuple[Split, ...] = ("toolmembench_small", "Mem2ActBench")
TASKS_FILE = "qa_dataset.jsonl"
SESSIONS_FILE = "toolmem_conversation.jsonl"
STATISTICS_FILE = "benchmark_statistics.json"

ModelT = TypeVar("ModelT", bound=BaseModel)


class Defect(BaseModel):
    """One thing the release gets wrong, found on reading it."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["missing_source", "tool_name_not_a_string", "statistics"]
    qa_id: str | None = None
    detail: str
    file: str
    line: int | None = None

    def line_text(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.kind}{' ' + self.qa_id if self.qa_id else ''}: {self.detail}"


@dataclass(frozen=True)
class Release:
    root: Path
    split: Split
    tasks: tuple[Task, ...]
    """Every task, in file order."""
    task_lines: dict[str, int]
    sessions: tuple[Session, ...]
    """Every session, in file order."""
    statistics: Statistics | None
    defects: tuple[Defect, ...]
    unmodelled: dict[str, tuple[str, ...]]
    """record type -> released fields the models do not name."""

    def sessions_of(self, source_ids: tuple[str, ...]) -> tuple[Session, ...]:
        """The sessions holding any of `source_ids`, in file order."""
        wanted = set(source_ids)
        return tuple(s for s in self.sessions if wanted & set(s.original_conversation_ids))


def split_files(root: Path, split: str) -> tuple[Path, Path, Path]:
    folder = Path(root) / split
    return folder / TASKS_FILE, folder / SESSIONS_FILE, folder / STATISTICS_FILE


def gold_tool_name(task: Task) -> str:
    """The gold tool's name: the released name, or the schema's where the released one is not a string."""
    name = task.tool_call.name
    return name if isinstance(name, str) else task.target_tool_schema.name


def _lines(path: Path, model: type[ModelT]) -> Iterator[tuple[int, ModelT]]:
    if not path.is_file():
        raise BadInput(f"release file not found (a Mem2ActBench split folder holds {TASKS_FILE}, {SESSIONS_FILE} "
                       f"and {STATISTICS_FILE}; `benchledger fetch mem2actbench` lays one out)", file=str(path))
    for number, value in load_lines(path):
        if not isinstance(value, dict):
            raise BadInput("each line must be a JSON object", file=str(path), line=number)
        try:
            yield number, model.model_validate(value)
        except ValidationError as err:
            first = err.errors()[0]
            raise BadInput(first["msg"], file=str(path), line=number, field=dotted(first["loc"]) or None) from None


def _unique(records: list[tuple[int, ModelT]], key: str, path: Path) -> None:
    seen: dict[str, int] = {}
    for number, record in records:
        value = getattr(record, key)
        if value in seen:
            raise BadInput(f"{key} {value!r} repeats line {seen[value]}", file=str(path), line=number, field=key)
        seen[value] = number


def _defects(tasks: list[tuple[int, Task]], sessions: list[Session], path: Path) -> list[Defect]:
    held = {cid for session in sessions for cid in session.original_conversation_ids}
    found = []
    for number, task in tasks:
        named = dict.fromkeys((*task.source_conversation_ids, *(step.source_id for step in task.evolution_chain)))
        missing = [cid for cid in named if cid not in held]
        if missing:
            found.append(Defect(kind="missing_source", qa_id=task.qa_id, file=str(path), line=number,
                                detail=f"source id(s) {', '.join(missing)} in no session of the split"))
        if not isinstance(task.tool_call.name, str):
            found.append(Defect(kind="tool_name_not_a_string", qa_id=task.qa_id, file=str(path), line=number,
                                detail=f"tool_call.name is {json.dumps(task.tool_call.name)}, not a string; its schema "
                                       f"names {task.target_tool_schema.name!r}, the gold tool scored"))
    return found


def read_release(root: Path, split: Split) -> Release:
    """Read one split of the release folder `root`, every line validated, defects found (see module doc)."""
    tasks_path, sessions_path, statistics_path = split_files(root, split)
    tasks = list(_lines(tasks_path, Task))
    sessions = list(_lines(sessions_path, Session))
    _unique(tasks, "qa_id", tasks_path)
    _unique(sessions, "session_id", sessions_path)
    defects = _defects(tasks, [s for _, s in sessions], tasks_path)
    statistics = None
    if statistics_path.is_file():
        value, _ = load_file(statistics_path)
        try:
            statistics = Statistics.model_validate(value)
        except ValidationError as err:
            first = err.errors()[0]
            raise BadInput(first["msg"], file=str(statistics_path), field=dotted(first["loc"]) or None) from None
        counted = (len(sessions), len(tasks))
        if (statistics.total_sessions, statistics.total_qa) != counted:
            defects.append(Defect(kind="statistics", file=str(statistics_path), detail=(
                f"says {statistics.total_sessions} sessions and {statistics.total_qa} tasks; the split holds "
                f"{counted[0]} and {counted[1]}")))
    extra = {"task": sorted(set().union(*(unmodelled(t) for _, t in tasks))),
             "session": sorted(set().union(*(unmodelled(s) for _, s in sessions)))}
    return Release(root=Path(root), split=split, tasks=tuple(t for _, t in tasks),
                   task_lines={t.qa_id: n for n, t in tasks}, sessions=tuple(s for _, s in sessions),
                   statistics=statistics, defects=tuple(defects),
                   unmodelled={kind: tuple(names) for kind, names in extra.items() if names})
