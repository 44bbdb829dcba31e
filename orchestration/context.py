"""The packed context stored on ContextRecalled: the passages exactly as the answer model sees them.

The passage shape is the release's (`adapters.models.reference.format_passage`), numbered in rank
order; the same text is stored as a blob, so what the model saw can always be shown again.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.reference import format_passage

__all__ = ["render_context"]


def render_context(candidates: Sequence[Candidate]) -> str:
    ordered = sorted(candidates, key=lambda c: c.rank)
    return "\n\n".join(f"[{i}] {format_passage(c.passage)}" for i, c in enumerate(ordered, start=1))
