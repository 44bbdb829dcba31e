"""Benchmarks, registered like memory systems: one declaration object per benchmark.

A benchmark is a subclass of `Benchmark` that declares, in one place: its name (as reports show
it) and its command (`benchledger run <command>`), what its SOURCE argument is, its selection
model (whose fields become the run's selection options), its `kind` (what it scores: recall, answer
or action; `benchledger.values.BENCHMARK_KINDS`), its question kinds, the protocols it can be asked
under and its default, its official protocol (`official`: templates, answer model, scorers; or the
name of the protocol that is its official one), whether it can be scored for retrieval, its
publishable conditions, the sections it adds to reports (its official statistics), and how to load
a release into a `Dataset`. Built-in benchmarks register through the entry-point
group `benchledger.benchmarks` (see `pyproject.toml`), exactly as a third party would:

    [project.entry-points."benchledger.benchmarks"]
    toy = "toy_benchmark:ToyBenchmark"

so adding a benchmark touches one folder (and its tests). `benchledger benchmarks` lists them.

The benchmark's `kind` has no default: a class that does not declare one is not loaded (its entry
says why), so no later benchmark is an action benchmark scored by retrieval by omission. An action
benchmark is never given a retrieval run (`retrieval_refusal`), whatever it labels.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, get_args

from pydantic import ValidationError

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.official import OfficialProtocol
from benchledger.adapters.plugins import Plugin, choose, load_group
from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.errors import BadInput
from benchledger.pins import PinTable
from benchledger.projections.publishable import (
    Check, no_limits, real_models, unknown_benchmark, zero_failures,
)
from benchledger.projections.report import Section, SectionFold
from benchledger.projections.report_digest import benchmark_digest
from benchledger.projections.retrieval import RetrievalFold
from benchledger.projections.state import RunState
from benchledger.settings import Protocol, Selection
from benchledger.values import BenchmarkKind

__all__ = [
    "ENTRY_POINT_GROUP", "Benchmark", "BenchmarkEntry", "ReportFolds", "available_benchmarks", "benchmark_named",
    "benchmark_for_run", "conditions_for_benchmark", "folds_for_benchmark", "retrieval_refusal", "QuestionNotes",
]

ENTRY_POINT_GROUP = "benchledger.benchmarks"

QuestionNotes = Callable[[RunState, str, "str | None"], list[str]]
"""(run state, question id, scorer) -> lines a benchmark adds to `benchledger question` (an action's scores
and why it went wrong)."""


class Benchmark(ABC):
    """One benchmark's declaration. Subclass it, fill the class attributes, implement `load`."""

    name: ClassVar[str]
    """The name reports show and RunStarted records ("GroupMemBench")."""
    command: ClassVar[str]
    """The subcommand of `benchledger run` and `benchledger retrieval` ("groupmem")."""
    summary: ClassVar[str]
    """One line for `benchledger benchmarks` and the command's help."""
    kind: ClassVar[BenchmarkKind]
    """What the benchmark scores: "recall" (evidence retrieval), "answer" (a free-text or typed answer,
    judged) or "action" (a tool call, scored as an action). Every benchmark declares it; reports,
    compare and `retrieval` read it (an action benchmark has no retrieval score)."""
    source_metavar: ClassVar[str] = "SOURCE"
    source_is_dir: ClassVar[bool] = False
    """True when SOURCE is a release folder, False when it is a release file."""
    selection_model: ClassVar[type[Selection]] = Selection
    """The benchmark's selection: its fields become the run's options (`--question-limit`, ...)."""
    kind_label: ClassVar[str] = "kinds"
    """What the benchmark calls its question kinds (the `kinds` option is named after it)."""
    kinds: ClassVar[tuple[str, ...]] = ()
    """Every kind the benchmark defines (a release may hold fewer)."""
    question_limit_means: ClassVar[str] = "the first N questions in file order"
    protocols: ClassVar[tuple[Protocol, ...]] = ("typed",)
    """The model protocols a run may use; the first is the default."""
    official: ClassVar[OfficialProtocol | None] = None
    """The official protocol's templates, answer model and scorers (when "official" is offered)."""
    official_protocol: ClassVar[Protocol] = "official"
    demo: ClassVar[tuple[str, tuple[tuple[str, str], ...]] | None] = None
    """An example release shipped in the package (`benchledger.examples`) and the selection it is
    run with, for `run BENCHMARK --demo`; None where the benchmark ships none."""
    model_options_offered: ClassVar[frozenset[str]] = frozenset()
    """Model settings beyond the common ones that `run BENCHMARK` offers as options: `prompts_dir`
    (official templates read from files), `judge_models` (several official judges)."""
    """The protocol that is the benchmark's official one (`--protocol official` asks for it)."""
    retrieval: ClassVar[bool] = False
    """True when the release labels evidence, so `benchledger retrieval` can score recall."""
    conditions: ClassVar[tuple[Check, ...]] = (no_limits, real_models, zero_failures)
    """The publishable conditions (`benchledger.projections.publishable`); complete_run is added."""
    sections: ClassVar[tuple[SectionFold, ...]] = ()
    """Report sections the benchmark adds: its own statistics for its scorers (`projections.report`)."""
    source: ClassVar[ReleaseSource | None] = None
    """Where its release and official prompts come from, pinned (`benchledger fetch`); None: not fetchable."""

    docs_page: ClassVar[str | None] = None
    """Its documentation page: a path inside the repository that ships it (`docs/benchmarks/locomo.md`)
    or a URL; the benchmark contract checks it is declared and, given the docs root, that it exists."""

    def conformance_checks(self) -> tuple[Any, ...]:
        """The `FixtureCheck`s `benchledger conformance` runs for it: `CHECKS` of the `conformance` module
        beside its class (found from the class, so no list names it); () when it has none."""
        package = type(self).__module__.rpartition(".")[0]
        if not package:
            return ()
        try:
            module = importlib.import_module(f"{package}.conformance")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.conformance":
                raise
            return ()
        return tuple(getattr(module, "CHECKS", ()))

    def release_source(self) -> ReleaseSource | None:
        """The release's sources (a benchmark with a large declaration builds it here, when asked)."""
        return self.source

    def pin_table(self) -> PinTable | None:
        """The benchmark's pin table (`benchledger.pins`): every official file, pinned or not; None when
        the benchmark declares no source."""
        source = self.release_source()
        return None if source is None else source.pins

    @property
    def default_protocol(self) -> Protocol:
        return self.protocols[0]

    def combine(self, states: Sequence[RunState], scorers: Sequence[str | None]) -> Section:
        """One section over several runs of this benchmark (`benchledger combine`); BadInput when the
        benchmark reports no combination."""
        raise BadInput(f"{self.name} declares no report over several runs", field="runs")

    def official_retrieval(self, state: RunState, k: int) -> dict[str, Any] | None:
        """The benchmark's official retrieval numbers for a run's recalls (a `RetrievalFold`); None
        when it has none."""
        return None

    def report_digest(self) -> str:
        """The digest of what its reports say (`conditions` with their texts, `sections`, `kind`), from the
        code itself: a saved view of its runs carries it, so a reworded condition makes an older view
        stale, never tampering (`projections.report_digest`); nothing to bump by hand."""
        folds = self.report_folds()
        return benchmark_digest(folds.conditions, folds.sections, folds.kind)

    def report_folds(self) -> ReportFolds:
        """What reports and views of this benchmark's runs fold with."""
        return ReportFolds(self.conditions, self.sections, self.official_retrieval, self.kind)

    def default_prompts_dir(self, source: Path) -> Path:
        """Where the official templates are looked for when no folder is given: `prompts/` inside a
        release folder, or beside a release file."""
        source = Path(source)
        return (source if self.source_is_dir else source.parent) / "prompts"

    def files_read(self, source: Path, dataset: Dataset) -> list[Path]:
        """The release files a load of `source` read, for the run to record by SHA-256: the release
        file itself, or every file of a release folder (a benchmark that reads a part says which)."""
        source = Path(source)
        if source.is_file():
            return [source]
        return sorted(p for p in source.rglob("*") if p.is_file() and not any(
            part.startswith(".") for part in p.relative_to(source).parts))

    @abstractmethod
    def load(self, source: Path, selection: Selection) -> Dataset:
        """Read the release at `source` and select from it (BadInput naming file, line, field)."""

    def selection_choices(self, field: str, source: Path) -> tuple[str, ...]:
        """The values the release at `source` offers for a selection field (a domain, a split), so a
        missing option can list them; () where the benchmark cannot tell."""
        return ()

    def selection_of(self, values: Selection | dict[str, object]) -> Selection:
        """The benchmark's own selection from a recorded one (or from option values)."""
        data = values.model_dump() if isinstance(values, Selection) else dict(values)
        try:
            return self.selection_model.model_validate(data)
        except ValidationError as err:
            first = err.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "selection"
            raise BadInput(f"{first['msg']}", field=field) from None

    def check_protocol(self, protocol: Protocol | None) -> Protocol:
        """The protocol a run uses: the one asked for if this benchmark offers it, else the default."""
        if protocol is None:
            return self.default_protocol
        if protocol == "official":
            protocol = self.official_protocol
        if protocol not in self.protocols:
            raise BadInput(f"{self.name} runs under the {' or '.join(self.protocols)} protocol, not {protocol}",
                           field="protocol")
        return protocol


BenchmarkEntry = Plugin[Benchmark]
"""An installed benchmark as `benchledger benchmarks` lists it (`loaded` is the Benchmark object)."""


def _make(loaded: object) -> Benchmark:
    benchmark = loaded() if isinstance(loaded, type) else loaded
    if not isinstance(benchmark, Benchmark):
        raise TypeError(f"{loaded!r} is not a benchledger Benchmark")
    declared = getattr(benchmark, "kind", None)
    if declared not in get_args(BenchmarkKind):
        raise TypeError(f"{type(benchmark).__name__} declares kind {declared!r}: a benchmark declares what it "
                        f"scores, one of {', '.join(get_args(BenchmarkKind))}")
    return benchmark


def retrieval_refusal(benchmark: Benchmark) -> str | None:
    """Why `benchmark` has no retrieval run, in one line; None when it has one."""
    if benchmark.kind == "action":
        return (f"{benchmark.name} is an action benchmark: its score is the tool call the agent makes, and a "
                "retrieval figure says nothing about whether the agent acted on what it recalled; "
                f"`benchledger run {benchmark.command}` shows evidence recall as a diagnostic of the memory")
    if not benchmark.retrieval:
        return f"{benchmark.name} labels no evidence, so it has no retrieval run"
    return None


def available_benchmarks() -> list[BenchmarkEntry]:
    """Every installed benchmark, loaded or with the error that stopped it (read once, cached)."""
    return list(load_group(ENTRY_POINT_GROUP, _make))


def _aliases(entry: BenchmarkEntry) -> tuple[str, ...]:
    benchmark = entry.loaded
    return (entry.name.lower(),) + (() if benchmark is None else (benchmark.command.lower(), benchmark.name.lower()))


def benchmark_named(name: str) -> Benchmark:
    """The installed benchmark whose command or name is `name` (case-insensitive), or whose qualified
    `COMMAND@DISTRIBUTION` it is; BadInput when none is, or when several are."""
    loaded = tuple(entry for entry in load_group(ENTRY_POINT_GROUP, _make) if entry.loaded is not None)
    chosen = choose(loaded, name.lower(), what="benchmark", field="benchmark", aliases=_aliases)
    if chosen is not None and chosen.loaded is not None:
        return chosen.loaded
    known = ", ".join(f"{e.loaded.command} ({e.loaded.name})" for e in loaded if e.loaded is not None) or "none"
    raise BadInput(f"no benchmark {name!r} is installed; installed: {known}", field="benchmark")


def benchmark_for_run(benchmark_name: str) -> Benchmark | None:
    """The installed adapter of a recorded run's benchmark, or None when none is installed."""
    try:
        return benchmark_named(benchmark_name)
    except BadInput:
        return None


def conditions_for_benchmark(benchmark_name: str) -> tuple[Check, ...]:
    """The publishable conditions of a recorded run's benchmark (never met when it is unknown)."""
    return folds_for_benchmark(benchmark_name).conditions


@dataclass(frozen=True)
class ReportFolds:
    """What a recorded run's benchmark declares for its reports and views."""

    conditions: tuple[Check, ...]
    sections: tuple[SectionFold, ...] = ()
    retrieval_official: RetrievalFold | None = None
    kind: BenchmarkKind | None = None
    """What the benchmark scores (`Benchmark.kind`); None for a run whose benchmark has no installed adapter."""
    question_notes: QuestionNotes | None = None
    """Lines the benchmark adds to one question's view (None: none)."""


def folds_for_benchmark(benchmark_name: str) -> ReportFolds:
    """The conditions and report folds of a recorded run's benchmark (never publishable when unknown)."""
    benchmark = benchmark_for_run(benchmark_name)
    if benchmark is None:
        return ReportFolds((unknown_benchmark(benchmark_name),))
    return benchmark.report_folds()
