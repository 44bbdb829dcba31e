"""The GroupMemBench declaration: what `benchledger run groupmem` and the reports need to know.

Its official protocol is `reference` (the release's prompts, read as the official code reads them);
`--protocol official` asks for it. Reports name the verdict rule they count and show the
published-table rule beside it; `benchledger combine` adds one run per domain into the paper's total.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.groupmem.loader import BENCHMARK, corpus_path, load_groupmem, questions_dir
from benchledger.adapters.benchmarks.groupmem.publishable import CONDITIONS
from benchledger.adapters.benchmarks.groupmem.schema import KINDS
from benchledger.adapters.benchmarks.groupmem.sections import combined_section, rules_section
from benchledger.adapters.benchmarks.groupmem.selection import GroupMemSelection
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.adapters.benchmarks.groupmem.source import SOURCE
from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.projections.publishable import Check
from benchledger.projections.report import Section, SectionFold
from benchledger.projections.state import RunState
from benchledger.settings import Protocol, Selection

__all__ = ["GroupMemBench"]


class GroupMemBench(Benchmark):
    name = BENCHMARK
    command = "groupmem"
    summary = "multi-party group chat memory: four domains, six question kinds"
    docs_page = "docs/benchmarks/groupmem.md"
    kind = "answer"
    source_metavar = "CORPUS_DIR"
    source_is_dir = True
    selection_model = GroupMemSelection
    kinds = KINDS
    question_limit_means = "the first N questions of each kind"
    protocols: ClassVar[tuple[Protocol, ...]] = ("reference", "typed")
    official_protocol: ClassVar[Protocol] = "reference"
    demo: ClassVar[tuple[str, tuple[tuple[str, str], ...]] | None] = ("groupmem-mini", (("domain", "Demo"),))
    retrieval = False
    conditions: ClassVar[tuple[Check, ...]] = CONDITIONS
    source: ClassVar[ReleaseSource | None] = SOURCE
    sections: ClassVar[tuple[SectionFold, ...]] = (rules_section,)

    def combine(self, states: Sequence[RunState], scorers: Sequence[str | None]) -> Section:
        return combined_section(states, scorers)

    def files_read(self, source: Path, dataset: Dataset) -> list[Path]:
        """The domain's corpus file, its question files and the system prompts."""
        root, domain = Path(source), dataset.subset
        questions = sorted(questions_dir(root, domain).glob("*.jsonl"))
        prompts = [root / "prompts" / name for name in ("agent_system.txt", "judge_system.txt")]
        return [path for path in (corpus_path(root, domain), *questions, *prompts) if path.is_file()]

    def load(self, source: Path, selection: Selection) -> Dataset:
        chosen = self.selection_of(selection)
        assert isinstance(chosen, GroupMemSelection)
        return load_groupmem(source, chosen.domain, kinds=list(chosen.kinds) or None,
                             message_limit=chosen.message_limit, question_limit=chosen.question_limit)

    def selection_choices(self, field: str, source: Path) -> tuple[str, ...]:
        if field != "domain":
            return ()
        return tuple(sorted(p.name for p in (Path(source) / "questions").glob("*") if p.is_dir()))
