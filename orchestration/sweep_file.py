"""A sweep file: the matrix of runs `benchledger sweep` plans, runs and reports, read from TOML.

A sweep is benchmarks x memory systems x models x epochs, every cell an ordinary run. The file is
read with `tomllib` into frozen models that forbid unknown keys, so a misspelt key is refused, not
ignored: one `BadInput` naming the file, the line where the table or key is (when it can be found
in the text) and the field, before anything runs (exit 2).

A cell is said the way a user would type its run: `Cell.run_args` are the arguments of
`benchledger run` that make it (`sweep plan` prints them), and the CLI parses exactly those with the
`run` command's own options, so a cell's settings are built as `run` builds them and never forked.
Epochs repeat a cell; where a component takes a seed (a benchmark selection field named `*_seed`,
such as Mem2ActBench's `candidate_seed`), epoch e runs with seed `seed + e - 1`, recorded in the
run's selection as any seed is. Components that take none (the offline models, the SQLite
baselines) repeat the same run, and the spread over epochs is then honestly zero.

The sweep's `name` is its id: each cell's run records `SweepTag(sweep, cell, epoch)` in its
settings, which is how a later `sweep run` or `sweep show` finds the cell on the ledger. A cell's
id is made of the labels of its parts (`groupmem-Demo/sqlite/offline/e1`), so adding a memory system
to the file leaves the cells already run done.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchledger.adapters.benchmarks.registry import Benchmark, benchmark_named
from benchledger.adapters.memory.registry import load_memory_class
from benchledger.errors import BadInput
from benchledger.settings import SweepTag

__all__ = ["BenchmarkEntry", "MemoryEntry", "ModelEntry", "SweepFile", "Cell", "read_sweep", "seed_fields"]

OptionValue = str | int | float | bool | list[str]
_LABEL = r"^[A-Za-z0-9][A-Za-z0-9_.:+-]*$"


class _Entry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class BenchmarkEntry(_Entry):
    """One benchmark of the sweep: which release, which slice, which protocol."""

    name: str
    """The benchmark's command or name (`benchledger benchmarks`)."""
    release: str | None = None
    """The release to read (a path, relative to the sweep file's folder); unset: the fetched release."""
    demo: bool = False
    """Run the example release shipped inside benchledger (`run BENCHMARK --demo`) instead of `release`."""
    domain: str | None = None
    """The domain to ask (GroupMemBench), as `--domain`."""
    protocol: str | None = None
    """reference, typed, official or paper, as the benchmark offers them (unset: its default)."""
    options: dict[str, OptionValue] = Field(default_factory=dict)
    """Any other option of `benchledger run BENCHMARK`, by its flag without dashes (`question-limit = 5`,
    `k = 10`); a true flag is given as `true`."""
    label: str | None = Field(default=None, pattern=_LABEL)
    """How cells and the report name it (default: the name, and the domain)."""


class MemoryEntry(_Entry):
    """One memory system of the sweep."""

    name: str
    """The registered name (`benchledger memories`)."""
    options: dict[str, str | int | float | bool] = Field(default_factory=dict)
    """The system's own options, each given to `run` as `--memory-option KEY=VALUE`."""
    label: str | None = Field(default=None, pattern=_LABEL)
    """How cells and the report name it (default: the name; needed when a name is listed twice)."""


class ModelEntry(_Entry):
    """One choice of answer and judge model (none given: benchledger's offline deterministic models)."""

    agent: str | None = None
    """The answer model, as `--agent-model` (unset: the offline extractive baseline)."""
    judge: str | None = None
    """The judge model, as `--judge-model` (unset: as `run` chooses it)."""
    base_url: str | None = None
    """The OpenAI-compatible endpoint, as `--base-url`."""
    api_key_env: str | None = None
    """The variable holding the key, as `--api-key-env` (its value is never recorded)."""
    label: str | None = Field(default=None, pattern=_LABEL)
    """How cells and the report name it (default: `offline`, or the agent model's name)."""


class SweepFile(_Entry):
    """The matrix: benchmarks x memories x models x epochs."""

    name: str = Field(pattern=_LABEL)
    """The sweep's id: every cell's run is tagged with it, so a later `sweep run` finds what is done."""
    epochs: int = Field(default=1, ge=1, le=100)
    """How many times each cell is run (each a run of its own, with its own seed where one is taken)."""
    seed: int = 0
    """The first epoch's seed, for components that take one (epoch e: seed + e - 1)."""
    parallel: int = Field(default=1, ge=1, le=64)
    """Cells run at once (cells on one memory store never run at the same time)."""
    benchmarks: list[BenchmarkEntry] = Field(min_length=1)
    memories: list[MemoryEntry] = Field(min_length=1)
    models: list[ModelEntry] = Field(default_factory=lambda: [ModelEntry()])
    """Unset: one choice, the offline deterministic models."""


def _benchmark_label(entry: BenchmarkEntry) -> str:
    return entry.label or (f"{entry.name}-{entry.domain}" if entry.domain else entry.name)


def _model_label(entry: ModelEntry) -> str:
    if entry.label:
        return entry.label
    if entry.agent is None:
        return "offline"
    return entry.agent if entry.judge in (None, entry.agent) else f"{entry.agent}+{entry.judge}"


def seed_fields(benchmark: Benchmark) -> list[str]:
    """The benchmark's selection fields that are seeds (named `*_seed`), each set per epoch."""
    return [name for name in benchmark.selection_model.model_fields if name.endswith("_seed")]


def _flag(value: OptionValue, name: str) -> list[str]:
    if value is True:
        return [f"--{name}"]
    if value is False:
        return [f"--no-{name}"]
    if isinstance(value, list):
        return [f"--{name}", ",".join(value)]
    return [f"--{name}", str(value)]


class Cell(NamedTuple):
    """One run of the sweep: a benchmark, a memory system, a model choice and an epoch."""

    sweep: str
    number: int
    """Its place in the plan, from 1."""
    benchmark: str
    """The benchmark's label."""
    memory: str
    """The memory system's label."""
    model: str
    """The model choice's label."""
    epoch: int
    seed: int
    """The seed this epoch gives components that take one."""
    args: tuple[str, ...]
    """The arguments of `benchledger run` that make this run."""

    @property
    def id(self) -> str:
        return f"{self.benchmark}/{self.memory}/{self.model}/e{self.epoch}"

    @property
    def system(self) -> str:
        """The report's row: the memory system, and the models when the sweep has several."""
        return self.memory if self.model == "offline" else f"{self.memory} / {self.model}"

    @property
    def tag(self) -> SweepTag:
        return SweepTag(sweep=self.sweep, cell=self.id, epoch=self.epoch)

    def command(self) -> str:
        """The `benchledger run` command line of this cell."""
        import shlex

        return shlex.join(["benchledger", "run", *self.args])


class Sweep(NamedTuple):
    """A sweep file as read: where it is, what it says, and its cells in plan order."""

    path: Path
    file: SweepFile
    cells: tuple[Cell, ...]

    @property
    def name(self) -> str:
        return self.file.name


def _cell_args(path: Path, bench: BenchmarkEntry, benchmark: Benchmark, memory: MemoryEntry, model: ModelEntry,
               seed: int) -> tuple[str, ...]:
    args = [benchmark.command]
    if bench.demo:
        args.append("--demo")
    elif bench.release is not None:
        release = Path(bench.release).expanduser()
        args.append(str(release if release.is_absolute() else path.parent / release))
    if bench.domain is not None:
        args += ["--domain", bench.domain]
    if bench.protocol is not None:
        args += ["--protocol", bench.protocol]
    args += ["--memory", memory.name]
    for key, option in memory.options.items():
        args += ["--memory-option", f"{key}={str(option).lower() if isinstance(option, bool) else option}"]
    for flag, named in (("agent-model", model.agent), ("judge-model", model.judge), ("base-url", model.base_url),
                        ("api-key-env", model.api_key_env)):
        if named is not None:
            args += [f"--{flag}", named]
    for name, value in bench.options.items():
        args += _flag(value, name)
    for field in seed_fields(benchmark):
        if field.replace("_", "-") not in bench.options:
            args += [f"--{field.replace('_', '-')}", str(seed)]
    return tuple(args)


def _line_of(text: str, loc: Sequence[int | str]) -> int | None:
    """The line of the table (`[[memories]]` number loc[1]) and key loc[-1] names, where the text says it."""
    lines = text.splitlines()
    start, rest = 0, list(loc)
    if len(rest) >= 2 and isinstance(rest[1], int):
        headers = [n for n, line in enumerate(lines) if line.strip() == f"[[{rest[0]}]]"]
        if rest[1] >= len(headers):
            return None
        start, rest = headers[rest[1]], rest[2:]
        if not rest:
            return start + 1
    if rest and isinstance(rest[0], str):
        key = re.compile(rf"^\s*{re.escape(rest[0])}\s*=")
        for n in range(start, len(lines)):
            if n > start and start and lines[n].lstrip().startswith("["):
                break
            if key.match(lines[n]):
                return n + 1
    return start + 1 if start else None


def _field(loc: Sequence[int | str]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else (f".{part}" if i else str(part))
                   for i, part in enumerate(loc)) or "sweep"


def _unique(path: Path, text: str, table: str, labels: list[str]) -> None:
    for index, label in enumerate(labels):
        if labels.index(label) != index:
            raise BadInput(f"two {table} are both labelled {label!r}; give one a `label`", file=str(path),
                           line=_line_of(text, (table, index)), field=f"{table}[{index}].label")


def read_sweep(path: Path) -> Sweep:
    """The sweep file at `path`, checked (BadInput naming file, line and field), with its cells."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise BadInput(f"cannot read the sweep file ({type(err).__name__}: {err})", file=str(path)) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        found = re.search(r"\(at line (\d+), column \d+\)", str(err))
        raise BadInput(f"not TOML: {str(err).split(' (at line')[0]}", file=str(path),
                       line=int(found.group(1)) if found else None) from None
    try:
        sweep = SweepFile.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        loc = tuple(first["loc"])
        raise BadInput(first["msg"], file=str(path), line=_line_of(text, loc), field=_field(loc)) from None
    benchmarks = []
    for index, entry in enumerate(sweep.benchmarks):
        line = _line_of(text, ("benchmarks", index, "name"))
        try:
            benchmarks.append(benchmark_named(entry.name))
        except BadInput as err:
            raise BadInput(err.detail, file=str(path), line=line, field=f"benchmarks[{index}].name") from None
        if entry.demo and entry.release is not None:
            raise BadInput("give `demo = true` or `release`, not both", file=str(path), line=line,
                           field=f"benchmarks[{index}]")
        if entry.demo and benchmarks[-1].demo is None:
            raise BadInput(f"{benchmarks[-1].name} ships no demo release", file=str(path), line=line,
                           field=f"benchmarks[{index}].demo")
    for index, memory in enumerate(sweep.memories):
        try:
            load_memory_class(memory.name)
        except BadInput as err:
            raise BadInput(err.detail, file=str(path), line=_line_of(text, ("memories", index, "name")),
                           field=f"memories[{index}].name") from None
    _unique(path, text, "benchmarks", [_benchmark_label(b) for b in sweep.benchmarks])
    _unique(path, text, "memories", [m.label or m.name for m in sweep.memories])
    _unique(path, text, "models", [_model_label(m) for m in sweep.models])
    cells: list[Cell] = []
    for epoch in range(1, sweep.epochs + 1):  # a whole epoch first: a sweep stopped halfway has every system once
        seed = sweep.seed + epoch - 1
        for bench, benchmark in zip(sweep.benchmarks, benchmarks):
            for memory in sweep.memories:
                for model in sweep.models:
                    cells.append(Cell(sweep.name, len(cells) + 1, _benchmark_label(bench), memory.label or memory.name,
                                      _model_label(model), epoch, seed,
                                      _cell_args(path, bench, benchmark, memory, model, seed)))
    return Sweep(path, sweep, tuple(cells))
