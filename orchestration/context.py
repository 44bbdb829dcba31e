"""What the answer model is shown: a recall held to k and the token budget, packed as the release's passages.

The budget is the harness's rule, not the memory's. A memory is asked for `k` candidates within
`token_budget` estimated tokens, and the protocol (`adapters.memory.protocol`, the HTTP version in
docs/memory-http-protocol.md) says which it should return: the longest prefix of its ranking, in rank
order, whose `estimate_tokens` summed over the candidates' text fits the budget, at most k of them.
A memory that returns more (a server that ignores the budget, a plug-in that forgets it) is held to
that rule here, before anything is recorded or shown (`hold_to_budget`): what is cut is counted on
the recall's event (`truncated_candidates`, `truncated_tokens`), so the scorecard and `question` say
so, and the memory contract fails such a memory. A system whose class says `ranks_by_query = False`
(`full-context`: the newest history, oldest first) keeps its newest candidates, as its own packing does.

The passage shape is the release's (`adapters.models.reference.format_passage`), numbered in rank
order; the same text is stored as a blob, so what the model saw can always be shown again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from benchledger.adapters.memory.protocol import Candidate, estimate_tokens
from benchledger.adapters.models.reference import format_passage

__all__ = ["Held", "hold_to_budget", "render_context"]


class Held(NamedTuple):
    """A recall as the run keeps it: the candidates within k and the budget, and what was cut."""

    candidates: list[Candidate]
    """Kept, in the memory's rank order, ranked 1..n."""
    truncated_candidates: int
    """Candidates the memory returned past k or the budget."""
    truncated_tokens: int
    """Their estimated tokens, summed."""


def hold_to_budget(candidates: Sequence[Candidate], *, k: int, token_budget: int | None,
                   keep_newest: bool = False) -> Held:
    """The longest run of candidates in rank order (from the last, with `keep_newest`) within k and the
    budget; the rest is cut and counted. A recall that already fits comes back as it was."""
    ordered = sorted(candidates, key=lambda c: c.rank)
    walk = list(reversed(ordered)) if keep_newest else ordered
    kept: list[Candidate] = []
    used = 0
    for candidate in walk:
        if len(kept) >= k:
            break
        if token_budget is not None:
            cost = estimate_tokens(candidate.text)
            if used + cost > token_budget:
                break
            used += cost
        kept.append(candidate)
    if len(kept) == len(ordered):
        return Held(list(candidates), 0, 0)
    cut = walk[len(kept):]
    if keep_newest:
        kept.reverse()
    kept = [c if c.rank == rank else c.model_copy(update={"rank": rank}) for rank, c in enumerate(kept, start=1)]
    return Held(kept, len(cut), sum(estimate_tokens(c.text) for c in cut))


def render_context(candidates: Sequence[Candidate]) -> str:
    ordered = sorted(candidates, key=lambda c: c.rank)
    return "\n\n".join(f"[{i}] {format_passage(c.passage)}" for i, c in enumerate(ordered, start=1))
