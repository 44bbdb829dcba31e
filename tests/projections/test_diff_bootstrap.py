"""`diff`'s paired bootstrap interval against references computed here, independently of it.

Two references: the exact bootstrap distribution of a three-question case, enumerated over all 27
resamples (its 2.5% and 97.5% quantiles fall on different values than a 90% interval's would), and
the normal approximation mean +/- 1.96 SE for 400 paired questions, close enough to tell a 95%
interval from a 90% one (whose bounds are 0.31 SE inside). Then the seed: the same seed gives the
same bounds, another seed other bounds, and the diff records the seed it used.
"""

from __future__ import annotations

import itertools
import math
import statistics

import pytest

from benchledger.projections.diff import BOOTSTRAP_RESAMPLES, diff_runs
from benchledger.projections.state import fold_run
from benchledger.projections.stats import paired_bootstrap_diff
from events_factory import stored, stream


def _runs(pairs: list[tuple[bool, bool]]):
    """Runs A and B over the same questions: pairs[i] = (question i correct in A, correct in B)."""
    def run(run_id: str, side: int):
        outcomes = {f"q{i:03d}": ("temporal", "correct" if pair[side] else "incorrect") for i, pair in enumerate(pairs)}
        return fold_run(run_id, stored(stream(outcomes)))
    return run("A", 0), run("B", 1)


def _exact_quantile(values: list[float], p: float) -> float:
    """The smallest value whose cumulative probability reaches p (values equally likely)."""
    ordered = sorted(values)
    return ordered[math.ceil(p * len(ordered)) - 1]


def test_a_three_question_case_matches_its_enumerated_bootstrap_distribution():
    diffs = [1, 0, 0]  # one question B gets right and A does not
    means = [sum(sample) / 3 for sample in itertools.product(diffs, repeat=3)]  # all 27 resamples
    assert (_exact_quantile(means, 0.025), _exact_quantile(means, 0.975)) == (0.0, 1.0)
    assert _exact_quantile(means, 0.95) == pytest.approx(2 / 3)  # where a 90% interval would end
    a, b = _runs([(False, True), (False, False), (False, False)])
    for seed in range(5):
        overall = diff_runs(a, b, seed=seed).overall
        assert overall.difference == pytest.approx(1 / 3)
        assert (overall.ci_low, overall.ci_high) == (0.0, 1.0), seed


# 400 questions: 100 wrong -> correct, 40 correct -> wrong, 130 right in both, 130 wrong in both.
PAIRS = [(False, True)] * 100 + [(True, False)] * 40 + [(True, True)] * 130 + [(False, False)] * 130


def _normal_reference(pairs: list[tuple[bool, bool]]) -> tuple[float, float, float]:
    diffs = [int(b) - int(a) for a, b in pairs]
    mean = statistics.fmean(diffs)
    se = statistics.pstdev(diffs) / math.sqrt(len(diffs))
    return mean, se, statistics.NormalDist().inv_cdf(0.975)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_interval_is_95_percent_by_the_normal_approximation(seed):
    mean, se, z = _normal_reference(PAIRS)
    assert z == pytest.approx(1.96, abs=1e-3)
    a, b = _runs(PAIRS)
    overall = diff_runs(a, b, seed=seed).overall
    assert overall.difference == pytest.approx(mean)
    # percentile bounds of 2000 resamples sit within ~0.06 SE of the quantile; a 90% interval is 0.31 SE off
    assert overall.ci_low == pytest.approx(mean - z * se, abs=0.15 * se)
    assert overall.ci_high == pytest.approx(mean + z * se, abs=0.15 * se)
    assert (overall.ci_high - overall.ci_low) / (2 * z * se) == pytest.approx(1.0, abs=0.08)


def test_the_same_seed_gives_the_same_bounds_and_another_seed_others():
    a, b = _runs(PAIRS)
    bounds = {}
    for seed in (0, 1, 2, 3):
        first, again = diff_runs(a, b, seed=seed), diff_runs(a, b, seed=seed)
        assert (first.overall.ci_low, first.overall.ci_high) == (again.overall.ci_low, again.overall.ci_high)
        assert first.bootstrap_seed == seed and first.bootstrap_resamples == BOOTSTRAP_RESAMPLES
        bounds[seed] = (first.overall.ci_low, first.overall.ci_high)
    assert len(set(bounds.values())) > 1, bounds  # the seed reaches the resampling
    diffs = [int(y) - int(x) for x, y in PAIRS]
    assert paired_bootstrap_diff([0] * 400, diffs, seed=5) == paired_bootstrap_diff([0] * 400, diffs, seed=5)
    assert paired_bootstrap_diff([0] * 400, diffs, seed=5)[1:] != paired_bootstrap_diff([0] * 400, diffs, seed=6)[1:]
