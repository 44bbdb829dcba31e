"""Speed benchmarks, run as `python -m bench [--quick] [--json]`; never part of the unit tests.

A benchmark is a function `fn(quick: bool) -> float | dict[str, float]` registered under the
name of the figure it measures (`@register("append_single_ratio")`); a dict return adds further
named figures (raw rates beside a ratio). `python -m bench` imports every `bench/*_bench.py`
module and each of `EXTRA_MODULES` that exists (so `projections.bench` can register
`fold_50k_s` without touching this package), runs what is registered, and prints one JSON
object. A name in `PLACEHOLDERS` that nothing registered is printed as null, so the figure's
absence is visible.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable

__all__ = ["Benchmark", "BENCHMARKS", "EXTRA_MODULES", "PLACEHOLDERS", "register", "bench_modules"]

Benchmark = Callable[[bool], "float | dict[str, float]"]

BENCHMARKS: dict[str, Benchmark] = {}
"""figure name -> function measuring it, in registration order."""

EXTRA_MODULES = ("projections.bench",)
"""Modules outside this package that register benchmarks (skipped when absent)."""

PLACEHOLDERS = ("fold_50k_s",)
"""Figures expected from modules owned elsewhere; printed as null until registered."""


def register(name: str) -> Callable[[Benchmark], Benchmark]:
    """Register `fn(quick) -> float | dict` as the benchmark for figure `name`."""
    def add(function: Benchmark) -> Benchmark:
        if name in BENCHMARKS and BENCHMARKS[name] is not function:
            raise ValueError(f"benchmark {name!r} is registered twice")
        BENCHMARKS[name] = function
        return function
    return add


def bench_modules() -> list[str]:
    """Every `bench.*_bench` module, in name order, then `EXTRA_MODULES`."""
    own = sorted(f"{__name__}.{info.name}" for info in pkgutil.iter_modules(__path__)
                 if info.name.endswith("_bench"))
    return [*own, *EXTRA_MODULES]
