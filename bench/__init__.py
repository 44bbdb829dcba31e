"""Speed benchmarks, run as `python -m bench [--quick] [--json]`; never part of the unit tests.

A benchmark is a function `fn(quick: bool) -> float | dict[str, float]` registered under the
name of the figure it measures (`@register("append_single_ratio")`); a dict return adds further
named figures (raw rates beside a ratio). `python -m bench` imports every module listed in
`BENCH_MODULES` that exists (so `projections.bench` can register `fold_50k_s` without touching
this package), runs what is registered, and prints one JSON object. A name in `PLACEHOLDERS`
that nothing registered is printed as null, so the figure's absence is visible.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Benchmark", "BENCHMARKS", "BENCH_MODULES", "PLACEHOLDERS", "register"]

Benchmark = Callable[[bool], "float | dict[str, float]"]

BENCHMARKS: dict[str, Benchmark] = {}
"""figure name -> function measuring it, in registration order."""

BENCH_MODULES = ("bench.ledger_bench", "projections.bench")
"""Modules imported by `python -m bench` to register their benchmarks (missing ones are skipped)."""

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
