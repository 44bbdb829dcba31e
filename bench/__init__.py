"""Speed benchmarks, run as `python -m benchledger.bench [--quick] [--json]`; never part of the unit tests.

A benchmark is a function `fn(quick: bool) -> float | dict[str, float | None]` registered under
the name of the figure it measures (`@register("append_single_ratio")`); a dict return adds further
named figures (raw rates beside a ratio; None where a figure could not be measured here, say why on
stderr). `python -m benchledger.bench` imports every
`*_bench.py` module of this package, runs what is registered, and prints one JSON object. The
machine is shared and noisy, so each figure that can be is a ratio against a baseline measured in
the same process.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable, Mapping

__all__ = ["Benchmark", "BENCHMARKS", "register", "bench_modules"]

Benchmark = Callable[[bool], "float | Mapping[str, float | None]"]

BENCHMARKS: dict[str, Benchmark] = {}
"""figure name -> function measuring it, in registration order."""


def register(name: str) -> Callable[[Benchmark], Benchmark]:
    """Register `fn(quick) -> float | dict` as the benchmark for figure `name`."""
    def add(function: Benchmark) -> Benchmark:
        if name in BENCHMARKS and BENCHMARKS[name] is not function:
            raise ValueError(f"benchmark {name!r} is registered twice")
        BENCHMARKS[name] = function
        return function
    return add


def bench_modules() -> list[str]:
    """Every `*_bench` module of this package, in name order."""
    return sorted(f"{__name__}.{info.name}" for info in pkgutil.iter_modules(__path__)
                  if info.name.endswith("_bench"))
