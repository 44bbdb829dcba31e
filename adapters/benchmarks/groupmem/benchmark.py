"""The GroupMemBench declaration: what `benchledger run groupmem` and the reports need to know."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.groupmem.loader import BENCHMARK, load_groupmem
from benchledger.adapters.benchmarks.groupmem.publishable import CONDITIONS
from benchledger.adapters.benchmarks.groupmem.schema import KINDS
from benchledger.adapters.benchmarks.groupmem.selection import GroupMemSelection
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.projections.publishable import Check
from benchledger.settings import Protocol, Selection

__all__ = ["GroupMemBench"]


class GroupMemBench(Benchmark):
    name = BENCHMARK
    command = "groupmem"
    summary = "multi-party group chat memory: four domains, six question kinds"
    source_metavar = "CORPUS_DIR"
    source_is_dir = True
    selection_model = GroupMemSelection
    kinds = KINDS
    question_limit_means = "the first N questions of each kind"
    protocols: ClassVar[tuple[Protocol, ...]] = ("reference", "typed")
    retrieval = False
    conditions: ClassVar[tuple[Check, ...]] = CONDITIONS

    def load(self, source: Path, selection: Selection) -> Dataset:
        chosen = self.selection_of(selection)
        assert isinstance(chosen, GroupMemSelection)
        return load_groupmem(source, chosen.domain, kinds=list(chosen.kinds) or None,
                             message_limit=chosen.message_limit, question_limit=chosen.question_limit)
