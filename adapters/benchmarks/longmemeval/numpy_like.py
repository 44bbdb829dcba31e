"""The three numpy behaviours LongMemEval's printouts depend on, in plain Python, bit for bit.

The official scripts average with `np.mean` and print `round(np.mean(v), 4)`. Two details make
that differ from the obvious `sum(v) / len(v)` and `round(x, 4)`:

- `np.mean` sums float64 with numpy's pairwise summation (eight interleaved accumulators over
  blocks of at most 128 values, halves split at a multiple of 8), not left to right;
- `round` of a numpy float is numpy's `around`: `rint(x * 10**d) / 10**d`, half to even on the
  scaled binary value. Python's `round` rounds the exact decimal value instead, so the two part
  on halves: `round(0.12345, 4)` is 0.1235 in Python and 0.1234 in numpy.

numpy itself is not a dependency for this: the arithmetic is small and exact to reproduce, and
`tests/adapters/benchmarks/test_longmemeval_numpy_like.py` checks it against numpy where numpy is installed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["pairwise_sum", "np_mean", "np_round", "np_str"]

_BLOCK = 128
_UNROLL = 8


def pairwise_sum(values: Sequence[float]) -> float:
    """numpy's float64 `add.reduce` of a contiguous array: 0.0 plus the pairwise sum."""
    return 0.0 + _pairwise(values, 0, len(values))


def _pairwise(values: Sequence[float], start: int, n: int) -> float:
    if n < _UNROLL:
        total = -0.0
        for i in range(start, start + n):
            total += float(values[i])
        return total
    if n <= _BLOCK:
        acc = [float(values[start + j]) for j in range(_UNROLL)]
        i = _UNROLL
        while i < n - (n % _UNROLL):
            for j in range(_UNROLL):
                acc[j] += float(values[start + i + j])
            i += _UNROLL
        total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
        for k in range(i, n):
            total += float(values[start + k])
        return total
    half = n // 2
    half -= half % _UNROLL
    return _pairwise(values, start, half) + _pairwise(values, start + half, n - half)


def np_mean(values: Sequence[float]) -> float:
    """`np.mean(values)`: nan for an empty list, as numpy returns (with a warning)."""
    if not values:
        return math.nan
    return pairwise_sum(values) / len(values)


def np_round(value: float, decimals: int) -> float:
    """`round(np.float64(value), decimals)`: scale, round half to even, scale back."""
    if not math.isfinite(value):
        return value
    scale = 10.0 ** decimals
    return float(round(value * scale)) / scale


def np_str(value: float) -> str:
    """How `print` and `'{}'.format` show a numpy float64 (the shortest repr, `nan`)."""
    return "nan" if math.isnan(value) else repr(float(value))
