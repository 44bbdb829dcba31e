"""LAFS, the leaderboard's accuracy-latency score, and its gain over the hard-coded reference points.

A point is (accuracy in percentage points = 100 · overall_full_set, latency = mean memory-query
seconds, which must be > 0). The frontier sorts by (latency, −accuracy) and keeps each point that
improves on every faster one. LAFS integrates the frontier's best accuracy over log-latency from
1 s to 200 s: Σ best_acc(left) · ln(right/left) over the breakpoints {1, 200} ∪ {frontier latencies
strictly inside}, divided by ln 200, where best_acc(T) is the best accuracy at latency ≤ T (0 if
none). So a point faster than 1 s counts from 1 s, one at or past 200 s adds nothing, and accuracy
is not capped. The gain is LAFS(reference ∪ submission) − LAFS(reference).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchledger.adapters.benchmarks.longmemeval_v2.errors import OfficialError

__all__ = ["T_MIN", "T_MAX", "FLOOR_ACC", "Point", "REFERENCE_POINTS", "frontier", "lafs", "lafs_summary",
           "reference_printout"]

T_MIN, T_MAX, FLOOR_ACC = 1.0, 200.0, 0.0


@dataclass(frozen=True)
class Point:
    name: str
    acc: float
    latency: float


REFERENCE_POINTS: dict[str, tuple[Point, ...]] = {
    "small": (Point("RAG: query -> slice + notes", 51.0, 0.2), Point("Codex", 69.9, 177.2),
              Point("AgentRunbook-R", 58.6, 26.9), Point("AgentRunbook-C", 74.9, 108.3)),
    "medium": (Point("RAG: query -> slice + notes", 45.9, 0.3), Point("Codex", 68.7, 185.8),
               Point("AgentRunbook-R", 57.0, 25.8), Point("AgentRunbook-C", 70.1, 139.9)),
}
"""The leaderboard's published operating points per tier (compute_lafs.py)."""


def _checked(points: Sequence[Point]) -> list[Point]:
    for point in points:
        if not point.latency > 0:
            raise OfficialError("ValueError", f"Latency must be positive, got {point.latency} for {point.name}.")
    return list(points)


def frontier(points: Sequence[Point]) -> list[Point]:
    kept: list[Point] = []
    for point in sorted(_checked(points), key=lambda p: (p.latency, -p.acc)):
        if not kept or point.acc > kept[-1].acc:
            kept.append(point)
    return kept


def lafs(points: Sequence[Point]) -> float:
    front = frontier(points)
    breaks = sorted({T_MIN, T_MAX} | {p.latency for p in front if T_MIN < p.latency < T_MAX})

    def best(at: float) -> float:
        return max((p.acc for p in front if p.latency <= at), default=FLOOR_ACC)

    area = sum(best(left) * math.log(right / left) for left, right in zip(breaks, breaks[1:]))
    return area / math.log(T_MAX / T_MIN)


def _listed(points: Sequence[Point]) -> list[dict[str, Any]]:
    return [{"name": p.name, "accuracy": p.acc, "latency_seconds": p.latency} for p in points]


def lafs_summary(tier: str, points: Sequence[Point]) -> dict[str, Any]:
    """The leaderboard's LAFS summary of a submission's operating points on one tier."""
    reference = REFERENCE_POINTS[tier]
    both = [*reference, *_checked(points)]
    reference_lafs, submission_lafs = lafs(reference), lafs(both)
    return {"tier": tier, "t_min_seconds": T_MIN, "t_max_seconds": T_MAX, "floor_accuracy": FLOOR_ACC,
            "accuracy_unit": "percentage_points", "reference_lafs": reference_lafs, "submission_lafs": submission_lafs,
            "lafs_gain": submission_lafs - reference_lafs, "reference_frontier": _listed(frontier(reference)),
            "submission_frontier": _listed(frontier(both))}


def reference_printout(tier: str, label: str) -> str:
    """The header `compute_lafs.py` prints for a tier: its reference frontier and LAFS."""
    lines = [f"Reference frontier: {label}"]
    lines += [f"  {p.name}: acc={p.acc}, latency={p.latency}s" for p in frontier(REFERENCE_POINTS[tier])]
    lines.append(f"Reference LAFS: {lafs(REFERENCE_POINTS[tier]):.2f}")
    return "\n".join(lines) + "\n"
