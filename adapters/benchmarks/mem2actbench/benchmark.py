"""The Mem2ActBench declaration: an action benchmark, run as the paper describes it (no official scorer exists).

Its answers are tool calls (`answer.py`), scored as actions (`scoring.py`), reported per level,
grounding type and temporal conflict with the failure attribution (`report.py`); it is never given a
retrieval run (kind "action"), though its tasks label evidence (the `oracle` recalls each task's own
evolution chain). The one protocol is `paper`; `--protocol official` is refused, saying why.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.mem2actbench.answer import Mem2ActPaper
from benchledger.adapters.benchmarks.mem2actbench.loader import load_mem2actbench
from benchledger.adapters.benchmarks.mem2actbench.publishable import CONDITIONS
from benchledger.adapters.benchmarks.mem2actbench.release import SPLITS, split_files
from benchledger.adapters.benchmarks.mem2actbench.report import actions_section, question_notes
from benchledger.adapters.benchmarks.mem2actbench.schema import LEVELS
from benchledger.adapters.benchmarks.mem2actbench.selection import Mem2ActSelection
from benchledger.adapters.benchmarks.mem2actbench.source import SOURCE
from benchledger.adapters.benchmarks.registry import Benchmark, ReportFolds
from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.errors import BadInput
from benchledger.projections.publishable import Check
from benchledger.projections.report import SectionFold
from benchledger.settings import Protocol, Selection

__all__ = ["Mem2ActBench"]


class Mem2ActBench(Benchmark):
    name = "Mem2ActBench"
    command = "mem2actbench"
    summary = "memory judged by the action it leads to: one tool call per task, four levels, tool-selection stress test"
    docs_page = "docs/benchmarks/mem2actbench.md"
    kind = "action"
    source_metavar = "DIR"
    source_is_dir = True
    selection_model = Mem2ActSelection
    kind_label = "levels"
    kinds = LEVELS
    question_limit_means = "the first N tasks of the split in file order"
    protocols: ClassVar[tuple[Protocol, ...]] = ("paper",)
    official = Mem2ActPaper()
    official_protocol: ClassVar[Protocol] = "paper"
    retrieval = False
    conditions: ClassVar[tuple[Check, ...]] = CONDITIONS
    sections: ClassVar[tuple[SectionFold, ...]] = (actions_section,)
    source: ClassVar[ReleaseSource | None] = SOURCE

    def load(self, source: Path, selection: Selection) -> Dataset:
        chosen = self.selection_of(selection)
        assert isinstance(chosen, Mem2ActSelection)
        return load_mem2actbench(source, chosen)

    def files_read(self, source: Path, dataset: Dataset) -> list[Path]:
        split = str(getattr(dataset.selection, "split", SPLITS[0]))
        return [path for path in split_files(Path(source), split) if path.is_file()]

    def selection_choices(self, field: str, source: Path) -> tuple[str, ...]:
        if field == "split":
            return tuple(split for split in SPLITS if (Path(source) / split).is_dir())
        return ()

    def check_protocol(self, protocol: Protocol | None) -> Protocol:
        if protocol == "official":
            raise BadInput("Mem2ActBench has no official protocol: its repository publishes no scorer; it runs as the "
                           "paper describes it (--protocol paper)", field="protocol")
        return super().check_protocol(protocol)

    def report_folds(self) -> ReportFolds:
        return ReportFolds(self.conditions, self.sections, None, self.kind,
                           question_notes=question_notes)
