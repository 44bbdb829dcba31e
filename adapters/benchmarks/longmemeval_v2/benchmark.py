"""The LongMemEval-V2 declaration: one domain and tier per run, memory built as the official harness builds
it (one shared scope, or one per question), the official protocol by default (reader prompts,
six scoring functions, gpt-5.2 for the two LLM checkers), the typed protocol as an alternative."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.longmemeval_v2.loader import load_longmemeval_v2
from benchledger.adapters.benchmarks.longmemeval_v2.official import LongMemEvalV2Official
from benchledger.adapters.benchmarks.longmemeval_v2.publishable import CONDITIONS
from benchledger.adapters.benchmarks.longmemeval_v2.report import combined_section, official_section
from benchledger.adapters.benchmarks.longmemeval_v2.release import haystack_path
from benchledger.adapters.benchmarks.longmemeval_v2.selection import LongMemEvalV2Selection
from benchledger.adapters.benchmarks.longmemeval_v2.source import SOURCE
from benchledger.adapters.benchmarks.longmemeval_v2.spec import CATEGORY_MAP
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.projections.publishable import Check
from benchledger.projections.report import Section, SectionFold
from benchledger.projections.state import RunState
from benchledger.settings import Protocol, Selection

__all__ = ["LongMemEvalV2"]


class LongMemEvalV2(Benchmark):
    name = "LongMemEval-V2"
    command = "longmemeval-v2"
    summary = "web-agent trajectories as memory: two domains, two haystack tiers, six scoring functions, LAFS"
    docs_page = "docs/longmemeval-v2.md"
    kind = "answer"
    source_metavar = "DIR"
    source_is_dir = True
    selection_model = LongMemEvalV2Selection
    kind_label = "types"
    kinds = tuple(CATEGORY_MAP)
    question_limit_means = "the first N questions of the domain in file order"
    protocols: ClassVar[tuple[Protocol, ...]] = ("official", "typed")
    official = LongMemEvalV2Official()
    model_options_offered: ClassVar[frozenset[str]] = frozenset({"prompts_dir"})
    retrieval = True
    conditions: ClassVar[tuple[Check, ...]] = CONDITIONS
    sections: ClassVar[tuple[SectionFold, ...]] = (official_section,)
    source: ClassVar[ReleaseSource | None] = SOURCE

    def load(self, source: Path, selection: Selection) -> Dataset:
        chosen = self.selection_of(selection)
        assert isinstance(chosen, LongMemEvalV2Selection)
        return load_longmemeval_v2(source, chosen)

    def files_read(self, source: Path, dataset: Dataset) -> list[Path]:
        """The files the load read: the questions, the trajectories, the tier's haystack and the question
        images (the screenshots of the states are not hashed: they are many, and only sent as images)."""
        root = Path(source)
        tier = str(getattr(dataset.selection, "tier", "small"))
        images = sorted({Path(q.extra["question_image"]) for q in dataset.questions if q.extra.get("question_image")})
        return [root / "questions.jsonl", root / "trajectories.jsonl", haystack_path(root, tier), *images]

    def combine(self, states: Sequence[RunState], scorers: Sequence[str | None]) -> Section:
        return combined_section(states, scorers)
