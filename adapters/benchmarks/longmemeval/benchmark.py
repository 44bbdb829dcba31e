"""The LongMemEval declaration: one scope per question, holding that question's haystack; the official
protocol (reader prompt, per-type judge) by default, the typed protocol as an alternative."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.longmemeval.loader import load_longmemeval
from benchledger.adapters.benchmarks.longmemeval.official import LongMemEvalOfficial
from benchledger.adapters.benchmarks.longmemeval.publishable import CONDITIONS
from benchledger.adapters.benchmarks.longmemeval.report import official_retrieval, qa_section
from benchledger.adapters.benchmarks.longmemeval.selection import LongMemEvalSelection
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.adapters.benchmarks.longmemeval.source import SOURCE
from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.projections.publishable import Check
from benchledger.projections.report import SectionFold
from benchledger.projections.state import RunState
from benchledger.settings import Protocol, Selection

__all__ = ["LongMemEval"]

QUESTION_TYPES = ("single-session-user", "single-session-assistant", "single-session-preference",
                  "multi-session", "knowledge-update", "temporal-reasoning")


class LongMemEval(Benchmark):
    name = "LongMemEval"
    command = "longmemeval"
    summary = "one haystack of chat sessions per question, six question types plus abstention"
    docs_page = "docs/benchmarks/longmemeval.md"
    kind = "answer"
    source_metavar = "FILE"
    selection_model = LongMemEvalSelection
    kind_label = "types"
    kinds = QUESTION_TYPES
    protocols: ClassVar[tuple[Protocol, ...]] = ("official", "typed")
    model_options_offered: ClassVar[frozenset[str]] = frozenset({"prompts_dir"})
    official = LongMemEvalOfficial()
    retrieval = True
    conditions: ClassVar[tuple[Check, ...]] = CONDITIONS
    source: ClassVar[ReleaseSource | None] = SOURCE
    sections: ClassVar[tuple[SectionFold, ...]] = (qa_section,)

    def official_retrieval(self, state: RunState, k: int) -> dict | None:
        return official_retrieval(state, k)

    def load(self, source: Path, selection: Selection) -> Dataset:
        chosen = self.selection_of(selection)
        return load_longmemeval(source, question_limit=chosen.question_limit,
                                kinds=list(chosen.kinds) or None)
