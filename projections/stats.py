"""Small exact statistics the reports need: Wilson intervals, exact McNemar, paired bootstrap,
Cohen's kappa.

Each is a few lines of closed-form arithmetic over counts; a heavy numeric dependency would add
nothing. The bootstrap takes an explicit seed so a diff is reproducible byte for byte.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

__all__ = ["wilson_interval", "mcnemar_exact", "paired_bootstrap_diff", "bootstrap_mean", "cohen_kappa", "Z95"]

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
