"""The numpy arithmetic LongMemEval's printouts rely on, checked against numpy itself.

numpy is installed with the test extra (rank-bm25 depends on it); benchledger does not depend on
it, it reproduces the two behaviours that matter in `longmemeval/numpy_like.py`.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings, strategies as st

from benchledger.adapters.benchmarks.longmemeval.numpy_like import (
    np_mean, np_round, np_str, pairwise_sum,
)

_floats = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=300)
@given(st.lists(_floats, max_size=600))
def test_pairwise_sum_is_numpy_s_bit_for_bit(values: list[float]) -> None:
    assert pairwise_sum(values) == float(np.sum(np.array(values, dtype=np.float64)))


@settings(max_examples=300)
@given(st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=400))
def test_mean_is_numpy_s_bit_for_bit(values: list[float]) -> None:
    assert np_mean(values) == float(np.mean(values))


@settings(max_examples=500)
@given(st.floats(min_value=0, max_value=1), st.integers(min_value=0, max_value=6))
def test_round_is_numpy_s(value: float, decimals: int) -> None:
    assert np_round(value, decimals) == float(round(np.float64(value), decimals))


def test_the_two_roundings_part_on_a_stored_half() -> None:
    assert np_round(0.12345, 4) == 0.1234 and round(0.12345, 4) == 0.1235


def test_pairwise_summation_differs_from_left_to_right() -> None:
    # 1e16 swallows single 1.0s left to right, but 8 accumulators add them among themselves
    values = [1e16] + [1.0] * 15
    assert sum(values) == 1e16
    assert pairwise_sum(values) == float(np.sum(values)) != sum(values)


def test_printing_matches_numpy_floats() -> None:
    assert np_str(np_mean([])) == "nan" == str(np.float64("nan"))
    for value in (0.4868, 1.0, 0.0, 0.0001, 1 / 3):
        assert np_str(value) == str(np.float64(value))
    assert math.isnan(np_round(math.nan, 4))
