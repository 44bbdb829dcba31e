"""What a Mem2ActBench run selects: a split, levels, and the candidate tools the agent chooses among.

The candidate-set setting is the paper's tool-selection stress test, and part of the run's
recorded configuration (a selection field, so `RunStarted` records it and every option is one):
`candidates` 1 is the main setting (the gold tool's schema is given); 2 or 5 add negatives drawn
from the other tasks' tools, `random` ones or the `hard` ones most like the gold tool, by the
recorded `candidate_seed`, and the order the agent sees them in is drawn by the same seed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, field_validator

from benchledger.adapters.benchmarks.mem2actbench.release import Split
from benchledger.settings import Selection

__all__ = ["Mem2ActSelection", "CANDIDATE_SETS"]

CANDIDATE_SETS = (1, 2, 5)
"""The candidate-set sizes the paper's stress test uses."""


class Mem2ActSelection(Selection):
    """Every task of one split, unless limited by level or number."""

    model_config = ConfigDict(extra="forbid")

    split: Split = "toolmembench_small"
    """Which folder of the release: toolmembench_small (the paper's evaluation split) or Mem2ActBench (all sessions)."""
    candidates: Literal[1, 2, 5] = 1
    """Tools offered per task: 1 gives the gold tool's schema (the paper's main setting); 2 or 5 add negatives."""
    negatives: Literal["random", "hard"] = "hard"
    """How the negatives are drawn from the other tasks' tools: at random, or the most similar to the gold tool."""
    candidate_seed: int = 0
    """The seed that draws the negatives (ties among hard ones, all of random ones) and the order shown."""
    message_limit: None = None
    """Not offered: a task's sessions are always ingested whole."""

    @field_validator("candidates", mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        """`--candidates 5` arrives as the text of a choice."""
        return int(value) if isinstance(value, str) and value.isdigit() else value
