"""The LoCoMo declaration: each conversation its own scope, categories named explicitly, the official
protocol (RAG dialog-mode QA prompt, token F1) by default and the typed protocol as an alternative."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.locomo.loader import CATEGORY_NAMES, load_locomo
from benchledger.adapters.benchmarks.locomo.official import LoCoMoOfficial
from benchledger.adapters.benchmarks.locomo.publishable import CONDITIONS
from benchledger.adapters.benchmarks.locomo.report import llm_judge_section, official_retrieval, official_section
from benchledger.adapters.benchmarks.locomo.selection import LoCoMoSelection
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.adapters.benchmarks.locomo.source import SOURCE
from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.projections.publishable import Check
from benchledger.projections.report import SectionFold
from benchledger.projections.state import RunState
from benchledger.settings import Protocol, Selection

__all__ = ["LoCoMo"]


class LoCoMo(Benchmark):
    name = "LoCoMo"
    command = "locomo"
    summary = "very long two-person conversations, five QA categories, evidence per turn"
    docs_page = "docs/benchmarks/locomo.md"
    kind = "answer"
    source_metavar = "FILE"
    selection_model = LoCoMoSelection
    kind_label = "categories"
    kinds = tuple(CATEGORY_NAMES.values())
    protocols: ClassVar[tuple[Protocol, ...]] = ("official", "typed")
    model_options_offered: ClassVar[frozenset[str]] = frozenset({"prompts_dir"})
    official = LoCoMoOfficial()
    retrieval = True
    conditions: ClassVar[tuple[Check, ...]] = CONDITIONS
    source: ClassVar[ReleaseSource | None] = SOURCE
    sections: ClassVar[tuple[SectionFold, ...]] = (official_section, llm_judge_section)

    def official_retrieval(self, state: RunState, k: int) -> dict | None:
        return official_retrieval(state, k)

    def load(self, source: Path, selection: Selection) -> Dataset:
        chosen = self.selection_of(selection)
        assert isinstance(chosen, LoCoMoSelection)
        categories = [int(c) if c.isdigit() else c for c in chosen.kinds] or None
        return load_locomo(source, categories=categories, question_limit=chosen.question_limit,
                           conversation_ids=list(chosen.conversation_ids) or None)
