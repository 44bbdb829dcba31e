"""`hold_to_budget`: the protocol's prefix within k and the budget, what is cut counted, a fitting recall untouched."""

from __future__ import annotations

from benchledger.adapters.memory.protocol import Candidate, estimate_tokens
from benchledger.orchestration.context import hold_to_budget


def _facts(*sizes: int) -> list[Candidate]:
    """Candidates ranked 1..n whose texts cost exactly `sizes` estimated tokens."""
    out = [Candidate(rank=rank, score=1.0 / rank, kind="fact", text=str(rank) * (4 * size), sources=())
           for rank, size in enumerate(sizes, start=1)]
    assert [estimate_tokens(c.text) for c in out] == list(sizes)
    return out


def test_a_recall_within_k_and_the_budget_comes_back_as_it_was() -> None:
    recall = _facts(3, 4, 5)
    for budget in (12, 13, None):
        held = hold_to_budget(recall, k=3, token_budget=budget)
        assert held.candidates == recall and (held.truncated_candidates, held.truncated_tokens) == (0, 0)


def test_the_longest_prefix_that_fits_is_kept_and_the_rest_counted() -> None:
    recall = _facts(3, 4, 5, 1)
    held = hold_to_budget(recall, k=10, token_budget=11)  # 3 + 4 fit, 5 does not: the 1 after it is cut too
    assert [c.rank for c in held.candidates] == [1, 2]
    assert (held.truncated_candidates, held.truncated_tokens) == (2, 6)
    held = hold_to_budget(list(reversed(recall)), k=10, token_budget=7)  # rank order, not list order
    assert [c.rank for c in held.candidates] == [1, 2] and held.truncated_tokens == 6
    nothing = hold_to_budget(recall, k=10, token_budget=2)
    assert nothing.candidates == [] and (nothing.truncated_candidates, nothing.truncated_tokens) == (4, 13)


def test_k_cuts_as_the_budget_does() -> None:
    held = hold_to_budget(_facts(1, 1, 1, 1, 1), k=3, token_budget=None)
    assert [c.rank for c in held.candidates] == [1, 2, 3] and (held.truncated_candidates, held.truncated_tokens) == (2, 2)
    assert hold_to_budget(_facts(1, 1), k=0, token_budget=None).truncated_candidates == 2


def test_a_newest_history_keeps_its_newest_ranked_from_one() -> None:
    recall = _facts(5, 4, 3)  # oldest first, as full-context returns it
    held = hold_to_budget(recall, k=10, token_budget=7, keep_newest=True)
    assert [c.text for c in held.candidates] == [recall[1].text, recall[2].text]
    assert [c.rank for c in held.candidates] == [1, 2] and (held.truncated_candidates, held.truncated_tokens) == (1, 5)
