"""The LongMemEval declaration: one scope per question, holding that question's haystack."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.longmemeval.loader import load_longmemeval
from benchledger.adapters.benchmarks.longmemeval.selection import LongMemEvalSelection
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.settings import Protocol, Selection

__all__ = ["LongMemEval"]

QUESTION_TYPES = ("single-session-user", "single-session-assistant", "single-session-preference",
                  "multi-session", "knowledge-update", "temporal-reasoning")


class LongMemEval(Benchmark):
    name = "LongMemEval"
    command = "longmemeval"
    summary = "one haystack of chat sessions per question, six question types plus abstention"
    source_metavar = "FILE"
    selection_model = LongMemEvalSelection
    kind_label = "types"
    kinds = QUESTION_TYPES
    protocols: ClassVar[tuple[Protocol, ...]] = ("typed",)
    retrieval = True

    def load(self, source: Path, selection: Selection) -> Dataset:
        chosen = self.selection_of(selection)
        return load_longmemeval(source, question_limit=chosen.question_limit,
                                kinds=list(chosen.kinds) or None)
