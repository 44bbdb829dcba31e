"""Speed benchmarks, run as `python -m benchledger.bench [--quick] [--json]`; never part of the unit tests.

A benchmark is a function `fn(quick: bool) -> float | dict[str, float | None]` registered under
the name of the figure it measures (`@register("append_single_ratio")`); a dict return adds further
named figures (raw rates beside a ratio; None where a figure could not be measured here, say why on
stderr). A figure may have a goal (`goal("append_single_ratio", at_least=0.75,
baseline="append_single_bare_per_s")`), declared beside its benchmark: the bench prints each goal,
the figure, the baseline measured in the same run, and whether the goal is met. `python -m
benchledger.bench` imports every `*_bench.py` module of this package, runs what is registered, and
prints one JSON object, so a new figure is one new module. The machine is shared and noisy, so each
figure that can be is a ratio against a baseline measured in the same process.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable, Mapping
from typing import NamedTuple

__all__ = ["Benchmark", "BENCHMARKS", "GOALS", "Goal", "register", "goal", "bench_modules"]

Benchmark = Callable[[bool], "float | Mapping[str, float | None]"]

BENCHMARKS: dict[str, Benchmark] = {}
"""figure name -> function measuring it, in registration order."""


class Goal(NamedTuple):
    """What a figure should reach: at least or at most `bound`, beside `baseline` (another figure
    of the same run, the thing it is measured against), or `relative` to that baseline."""

    figure: str
    bound: float
    at_least: bool
    baseline: str | None = None
    relative: bool = False
    """The bound is a multiple of the baseline figure (say, 10x a bare Python start)."""

    def limit(self, figures: Mapping[str, float | None]) -> float | None:
        """The bound in the figure's own unit (None when a relative goal's baseline is missing)."""
        if not self.relative:
            return self.bound
        base = figures.get(self.baseline or "")
        return None if base is None else self.bound * base

    def met(self, figures: Mapping[str, float | None]) -> bool | None:
        """Whether the figure meets the goal; None when it (or its baseline) was not measured."""
        value, limit = figures.get(self.figure), self.limit(figures)
        if value is None or limit is None:
            return None
        return value >= limit if self.at_least else value <= limit


GOALS: dict[str, Goal] = {}
"""figure name -> its goal, in declaration order."""


def register(name: str) -> Callable[[Benchmark], Benchmark]:
    """Register `fn(quick) -> float | dict` as the benchmark for figure `name`."""
    def add(function: Benchmark) -> Benchmark:
        if name in BENCHMARKS and BENCHMARKS[name] is not function:
            raise ValueError(f"benchmark {name!r} is registered twice")
        BENCHMARKS[name] = function
        return function
    return add


def goal(figure: str, *, at_least: float | None = None, at_most: float | None = None,
         baseline: str | None = None, relative: bool = False) -> Goal:
    """Declare the goal of `figure` (exactly one of `at_least`, `at_most`); see `Goal`."""
    if (at_least is None) == (at_most is None):
        raise ValueError(f"goal of {figure!r}: give exactly one of at_least and at_most")
    if relative and baseline is None:
        raise ValueError(f"goal of {figure!r}: a relative goal needs its baseline")
    declared = Goal(figure, at_least if at_least is not None else at_most,  # type: ignore[arg-type]
                    at_least is not None, baseline, relative)
    if GOALS.get(figure, declared) != declared:
        raise ValueError(f"figure {figure!r} has two goals")
    GOALS[figure] = declared
    return declared


def bench_modules() -> list[str]:
    """Every `*_bench` module of this package, in name order."""
    return sorted(f"{__name__}.{info.name}" for info in pkgutil.iter_modules(__path__)
                  if info.name.endswith("_bench"))
