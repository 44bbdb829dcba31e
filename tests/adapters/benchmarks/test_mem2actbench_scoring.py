"""Mem2ActBench's action scoring on hand-made cases: every rule docs/benchmarks/mem2actbench.md states."""

from __future__ import annotations

import math

import pytest

from benchledger.adapters.benchmarks.mem2actbench.scoring import NO_CALL, bleu1, pairs, score_action, tokens

SCHEMA = {"name": "book_flight", "parameters": {"type": "dict", "required": ["origin", "destination"], "properties": {
    "origin": {"type": "string"}, "destination": {"type": "string"},
    "passengers": {"type": "integer", "default": 1}, "seat_class": {"type": "string", "default": "economy"},
    "refundable": {"type": "boolean"}, "price": {"type": "number"}}}}
GOLD = {"name": "book_flight", "arguments": {"origin": "Lisbon", "destination": "Kyoto", "passengers": 1}}


def call(name="book_flight", **arguments):
    return {"name": name, "arguments": arguments}


@pytest.mark.parametrize("given, declared, same_as", [
    ("  LISBON ", {"type": "string"}, "lisbon"),
    ("São\u00a0 Paulo", {"type": "string"}, "são paulo"),  # NFKC makes the no-break space a space; runs collapse
    ("ﬁve", {"type": "string"}, "five"),  # NFKC unfolds the ligature
    (2, {"type": "integer"}, 2.0),
    (" 2 ", {"type": "integer"}, 2),  # a numeric string where the schema declares a number
    ("True", {"type": "boolean"}, True),
    ([" A", "b "], {"type": "array", "items": {"type": "string"}}, ["a", "b"]),
])
def test_values_are_normalised_by_their_declared_type(given, declared, same_as):
    assert pairs({"x": given}, {"x": declared}) == pairs({"x": same_as}, {"x": declared})


@pytest.mark.parametrize("given, declared, other", [
    ("2", {"type": "string"}, 2),  # a string parameter keeps "2" a string
    ("Lisbon, Portugal", {"type": "string"}, "Lisbon"),
    (True, {"type": "integer"}, 1),  # a boolean is never a number
    ("yes", {"type": "boolean"}, True),
    (["a", "b"], {"type": "array"}, ["b", "a"]),  # order counts
])
def test_nothing_else_is_forgiven(given, declared, other):
    assert pairs({"x": given}, {"x": declared}) != pairs({"x": other}, {"x": declared})


def test_an_exact_call_scores_one_everywhere_and_case_and_spacing_do_not_count():
    score = score_action(call(origin=" lisbon", destination="KYOTO", passengers="1"), GOLD, SCHEMA)
    assert (score.tool_selected, score.exact, score.precision, score.recall, score.f1, score.bleu1) == \
        (True, True, 1.0, 1.0, 1.0, 1.0)


def test_a_left_out_argument_takes_the_schema_default_only_for_the_gold_tool():
    left_out = score_action(call(origin="Lisbon", destination="Kyoto"), GOLD, SCHEMA)
    assert left_out.exact and left_out.f1 == 1.0
    wrong_tool = score_action(call("book_train", origin="Lisbon", destination="Kyoto"), GOLD, SCHEMA)
    assert not wrong_tool.tool_selected and not wrong_tool.exact
    assert (wrong_tool.precision, wrong_tool.recall) == (1.0, pytest.approx(2 / 3))
    no_default = score_action(call(origin="Lisbon"), {"name": "book_flight", "arguments": {
        "origin": "Lisbon", "destination": "Kyoto"}}, SCHEMA)
    assert no_default.wrong == ("destination",) and no_default.recall == 0.5


def test_precision_recall_and_f1_over_argument_pairs_computed_by_hand():
    # P = {origin ok, destination wrong, passengers ok, seat_class extra}: 2 of 4; G has 3: 2 of 3
    score = score_action(call(origin="Lisbon", destination="Havana", passengers=1, seat_class="business"), GOLD, SCHEMA)
    assert (score.precision, score.recall) == (0.5, pytest.approx(2 / 3))
    assert score.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert (score.wrong, score.extra, score.exact) == (("destination",), ("seat_class",), False)


def test_empty_sides_score_one_together_and_zero_apart():
    empty_gold = {"name": "book_flight", "arguments": {}}
    assert score_action(call(), empty_gold, {"parameters": {}}).f1 == 1.0
    assert score_action(call(origin="x"), empty_gold, {"parameters": {}}).f1 == 0.0
    nothing = score_action(call(), GOLD, SCHEMA)  # the default fills passengers: P = 1/1, R = 1/3
    assert (nothing.precision, nothing.recall) == (1.0, pytest.approx(1 / 3)) and not nothing.exact


def test_no_valid_call_scores_zero_on_every_metric():
    assert score_action(None, GOLD, SCHEMA) == NO_CALL
    assert (NO_CALL.called, NO_CALL.tool_selected, NO_CALL.exact, NO_CALL.f1, NO_CALL.bleu1) == (False, False, False, 0, 0)


def test_tokens_are_letter_and_digit_runs_of_the_casefolded_nfkc_text():
    assert tokens("Book_Flight: São-Paulo, 2.5 ﬁve") == ["book", "flight", "são", "paulo", "2", "5", "five"]


def test_bleu1_is_clipped_unigram_precision_times_the_brevity_penalty():
    assert bleu1(["a", "b"], ["a", "b", "c"]) == pytest.approx(math.exp(1 - 3 / 2))  # p1 = 1, c=2 < r=3
    assert bleu1(["a", "a", "a"], ["a", "a"]) == pytest.approx(2 / 3)  # clipped at the reference's count, no penalty
    assert bleu1(["x"], ["a"]) == 0.0
    assert bleu1([], ["a"]) == 0.0 and bleu1([], []) == 1.0


def test_bleu1_of_a_call_reads_name_value_pairs_in_name_order():
    # gold text: "destination kyoto origin lisbon passengers 1"; the call: "destination havana origin lisbon passengers 1"
    score = score_action(call(origin="Lisbon", destination="Havana"), GOLD, SCHEMA)
    assert score.bleu1 == pytest.approx(5 / 6)
