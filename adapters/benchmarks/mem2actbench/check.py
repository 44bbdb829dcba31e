"""Check a Mem2ActBench release folder before running it: both splits counted, their defects named.

Each split folder is read exactly as a run reads it (`release.read_release`). A split that is
missing or has an invalid line is a problem (the check is not ok, and `check` exits 2); the known
defects of the pinned commit (a source id no session holds, a tool name that is not a string, counts
that disagree with `benchmark_statistics.json`) are listed, one line each, and leave the release
usable: a run counts them on its scorecard.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict, computed_field

from benchledger.adapters.benchmarks.mem2actbench.release import SPLITS, read_release, split_files
from benchledger.adapters.benchmarks.mem2actbench.schema import GROUNDING_TYPES, LEVELS
from benchledger.errors import BadInput

__all__ = ["SplitCheck", "Mem2ActCheck", "check_mem2actbench"]


class SplitCheck(BaseModel):
    model_config = ConfigDict(frozen=True)

    split: str
    present: bool
    tasks: int = 0
    sessions: int = 0
    levels: dict[str, int] = {}
    temporal_conflicts: int = 0
    grounding: dict[str, int] = {}
    """Gold arguments by grounding type."""
    sessions_with_tool_calls: int = 0
    defects: tuple[str, ...] = ()
    """One line each: file, line, kind, task, what."""
    problem: str | None = None
    """Why the split cannot be read (a BadInput line), or None."""


class Mem2ActCheck(BaseModel):
    model_config = ConfigDict(frozen=True)

    root: str
    splits: tuple[SplitCheck, ...]

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented pattern
    @property
    def ok(self) -> bool:
        return all(s.present and s.problem is None for s in self.splits)


def _check_split(root: Path, split: str) -> SplitCheck:
    if not all(path.is_file() for path in split_files(root, split)[:2]):
        return SplitCheck(split=split, present=False, problem=f"{root / split}: the split's task or session file is missing")
    try:
        release = read_release(root, split)  # type: ignore[arg-type]
    except BadInput as err:
        return SplitCheck(split=split, present=True, problem=str(err))
    grounding: Counter[str] = Counter(g.type for t in release.tasks for g in t.tool_call.grounding_info.values())
    return SplitCheck(
        split=split, present=True, tasks=len(release.tasks), sessions=len(release.sessions),
        levels={level: sum(t.complexity_metadata.level == level for t in release.tasks) for level in LEVELS},
        temporal_conflicts=sum(t.complexity_metadata.has_temporal_conflict for t in release.tasks),
        grounding={kind: grounding.get(kind, 0) for kind in GROUNDING_TYPES},
        sessions_with_tool_calls=sum(any(turn.tool_calls for turn in s.turns) for s in release.sessions),
        defects=tuple(defect.line_text() for defect in release.defects))


def check_mem2actbench(root: Path) -> Mem2ActCheck:
    """Both splits of the release folder `root`, each counted or its problem named."""
    return Mem2ActCheck(root=str(root), splits=tuple(_check_split(Path(root), split) for split in SPLITS))
