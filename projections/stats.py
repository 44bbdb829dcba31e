"""Small exact statistics the reports need: Wilson intervals, exact McNemar, paired bootstrap,
Cohen's kappa.

Each is a few lines of closed-form arithmetic over counts; a heavy numeric dependency would add
nothing. The bootstrap takes an explicit seed so a diff is reproducible byte for byte.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

__all__ = ["wilson_interval", "mcnemar_exact", "paired_bootstrap_diff", "bootstrap_mean", "cohen_kappa", "Z95",
           "t95", "mean_spread"]

Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion; (0, 0) when n is 0."""
    if n <= 0:
        return 0.0, 0.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts b and c."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / (1 << n)
    return min(1.0, 2 * tail)


def paired_bootstrap_diff(
    a: Sequence[float], b: Sequence[float], *, resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """Mean of b - a over paired outcomes (0/1, or per-question scores such as recall) and its 95%
    percentile bootstrap interval."""
    if len(a) != len(b):
        raise ValueError("paired outcomes must have the same length")
    n = len(a)
    if n == 0:
        return 0.0, 0.0, 0.0
    diffs = [y - x for x, y in zip(a, b)]
    observed = sum(diffs) / n
    rng = random.Random(seed)
    stats = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    low = stats[int(0.025 * (resamples - 1))]
    high = stats[int(math.ceil(0.975 * (resamples - 1)))]
    return observed, low, high


def bootstrap_mean(values: Sequence[float], *, resamples: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean of `values` (per-question scores) and its 95% percentile bootstrap interval, seeded."""
    return paired_bootstrap_diff([0.0] * len(values), values, resamples=resamples, seed=seed)


_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
"""Student's t, two-sided 95%, for 1..30 degrees of freedom (the printed tables' values)."""


def t95(df: int) -> float:
    """Student's t quantile for a two-sided 95% interval; past 30 degrees of freedom the Cornish-Fisher
    expansion about the normal (within 0.001 of the exact value there)."""
    if df < 1:
        raise ValueError("a t interval needs at least one degree of freedom")
    if df <= len(_T95):
        return _T95[df - 1]
    z = Z95
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df)


def mean_spread(values: Sequence[float]) -> tuple[float | None, float | None, float | None, float | None]:
    """(mean, sample sd, 95% t interval low, high) of repeated measurements (a sweep's epochs); the
    spread is None with fewer than two values, the mean None with none."""
    n = len(values)
    if n == 0:
        return None, None, None, None
    mean = sum(values) / n
    if n == 1:
        return mean, None, None, None
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t95(n - 1) * sd / math.sqrt(n)
    return mean, sd, mean - half, mean + half


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float:
    """Cohen's kappa between two raters' labels over the same items (1.0 when both are constant and equal)."""
    if len(a) != len(b):
        raise ValueError("both raters must label the same items")
    n = len(a)
    if n == 0:
        return 0.0
    observed = sum(x == y for x, y in zip(a, b)) / n
    labels = set(a) | set(b)
    expected = sum((list(a).count(lab) / n) * (list(b).count(lab) / n) for lab in labels)
    if expected >= 1.0:
        return 1.0 if observed >= 1.0 else 0.0
    return (observed - expected) / (1 - expected)
