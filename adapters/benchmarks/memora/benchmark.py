"""The Memora declaration: one scope per persona, judged per criterion, scored with FAMA; the official
protocol (model-track prompts, three judges voting) by default, the typed protocol as an alternative."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.memora.loader import CATEGORIES, load_memora
from benchledger.adapters.benchmarks.memora.official import MemoraOfficial
from benchledger.adapters.benchmarks.memora.publishable import CONDITIONS
from benchledger.adapters.benchmarks.memora.sections import fama_section
from benchledger.adapters.benchmarks.memora.selection import MemoraSelection
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.adapters.benchmarks.memora.source import SOURCE
from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.projections.publishable import Check
from benchledger.projections.report import SectionFold
from benchledger.settings import Protocol, Selection

__all__ = ["Memora"]


class Memora(Benchmark):
    name = "Memora"
    command = "memora"
    summary = "persona histories by period, judged per criterion, scored with FAMA"
    docs_page = "docs/benchmarks/memora.md"
    kind = "answer"
    source_metavar = "ROOT"
    source_is_dir = True
    selection_model = MemoraSelection
    kind_label = "tasks"
    kinds = CATEGORIES
    question_limit_means = "the first N questions of each persona in file order"
    protocols: ClassVar[tuple[Protocol, ...]] = ("official", "typed")
    model_options_offered: ClassVar[frozenset[str]] = frozenset({"prompts_dir", "judge_models"})
    official = MemoraOfficial()
    retrieval = True
    conditions: ClassVar[tuple[Check, ...]] = CONDITIONS
    sections: ClassVar[tuple[SectionFold, ...]] = (fama_section,)
    source: ClassVar[ReleaseSource | None] = SOURCE

    def files_read(self, source: Path, dataset: Dataset) -> list[Path]:
        """Every file of the selected personas' folders of the split."""
        split = Path(source) / dataset.subset
        return sorted(path for persona in dataset.scopes for path in (split / persona).rglob("*") if path.is_file())

    def load(self, source: Path, selection: Selection) -> Dataset:
        chosen = self.selection_of(selection)
        assert isinstance(chosen, MemoraSelection)
        return load_memora(source, split=chosen.split, personas=list(chosen.personas) or None,
                           kinds=list(chosen.kinds) or None, question_limit=chosen.question_limit)
