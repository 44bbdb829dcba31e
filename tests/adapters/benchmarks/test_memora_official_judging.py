"""Memora's judge: reply parsing, the client's failures and the majority vote (quirks 21-24).

Each expected verdict follows from the rule in the test's comment, not from a fixture file.
"""

from __future__ import annotations

import json

import pytest

from benchledger.adapters.benchmarks.memora.judge_verdict import (
    JudgeCallFailed, JudgeVerdict, agent_track_verdict, model_track_verdict, needs_retry,
    parse_judge_response,
)
from benchledger.adapters.benchmarks.memora.vote import majority


def _json(**fields) -> str:
    return json.dumps(fields)


@pytest.mark.parametrize(("reply", "answer", "confidence"), [
    (_json(answer="yes", confidence=0.9, explanation="ok"), "yes", 0.9),
    (_json(answer=" No ", confidence="0.8"), "no", 0.8),  # lower, strip, float("0.8")
    (_json(answer="YES.", confidence=1, explanation="fine"), "unclear", 1.0),  # "yes." is not yes
    (_json(answer="unsure", explanation="Cannot tell"), "no", 0.0),  # "no" inside "cannot"
    (_json(answer="maybe", explanation="Yes, partly"), "yes", 0.0),
    (_json(explanation="I know it"), "no", 0.0),  # missing answer; "know" holds "no"
    (_json(answer="y", explanation="The item appears"), "unclear", 0.0),
])
def test_json_replies(reply: str, answer: str, confidence: float) -> None:
    verdict = parse_judge_response(reply, "no")
    assert (verdict.llm_answer, verdict.confidence) == (answer, confidence)
    assert verdict.is_correct is (answer == "no")
    assert verdict.parse_error is None and verdict.error is None


@pytest.mark.parametrize("reply", [
    '"yes"', "true", "1", '[{"answer": "yes"}]',  # valid JSON, not an object
    _json(answer=True), _json(answer="yes", confidence="high"),
    _json(answer="yes", confidence=None),
    _json(answer="maybe", explanation=7),  # the inference lower-cases a number
])
def test_replies_the_parser_cannot_read_make_the_judge_error(reply: str) -> None:
    verdict = parse_judge_response(reply, "yes")
    assert verdict.llm_answer == "error" and verdict.error and not verdict.is_correct
    assert verdict.confidence == 0.0


@pytest.mark.parametrize(("reply", "answer"), [
    ("Yes.", "yes"), ("NO - it is missing", "no"), ("Yes and no.", "unclear"),
    ("I cannot determine this.", "no"), ("The answer is yes; nothing else", "unclear"),
    ("Here is my evaluation:\n" + _json(answer="no", explanation="x"), "no"),  # text before JSON
    ("{'answer': 'yes'}", "yes"),  # single quotes are not JSON
    ("", "unclear"),
])
def test_text_replies_use_the_substring_test_with_confidence_half(reply: str, answer: str) -> None:
    verdict = parse_judge_response(reply, "yes")
    assert (verdict.llm_answer, verdict.confidence) == (answer, 0.5)
    assert verdict.parse_error is not None


def test_fences_are_handled_only_at_the_start_and_lose_the_last_line() -> None:
    fenced = "```json\n" + _json(answer="yes") + "\n```"
    assert parse_judge_response(fenced, "yes").llm_answer == "yes"
    # no closing fence: the last line "}" is dropped, the rest is not JSON -> text fallback
    unclosed = "```json\n{\n\"answer\": \"no\"\n}"
    assert parse_judge_response(unclosed, "no").parse_error is not None
    # one line: "```JSON" is not deleted (case-sensitive), so the JSON does not parse
    one_line = "```JSON " + _json(answer="no") + "```"
    verdict = parse_judge_response(one_line, "no")
    assert verdict.parse_error is not None and verdict.llm_answer == "no"


def test_the_model_track_text_fallback_reads_the_raw_reply_the_agent_track_the_stripped() -> None:
    # the fence line "```yes" is dropped by the stripping, so the agent track sees only "maybe"
    reply = "```yes\nmaybe\n```"
    assert model_track_verdict(reply, "yes").llm_answer == "yes"
    assert agent_track_verdict(reply, "yes").llm_answer == "unclear"


@pytest.mark.parametrize("outcome", [None, "", "  \n", JudgeCallFailed("HTTP 429")])
def test_a_failed_call_or_empty_content_is_an_error_judge_on_both_tracks(outcome) -> None:
    assert needs_retry(outcome)
    for verdict in (model_track_verdict(outcome, "yes"), agent_track_verdict(outcome, "yes")):
        assert verdict.llm_answer == "error" and not verdict.is_correct
    assert "HTTP 429" in model_track_verdict(JudgeCallFailed("HTTP 429"), "yes").error


def test_expected_answers_compare_lower_cased() -> None:
    assert parse_judge_response(_json(answer="yes"), "Yes").is_correct


def _v(answer: str, correct: bool, confidence: float = 1.0) -> JudgeVerdict:
    error = "boom" if answer == "error" else None
    return JudgeVerdict(answer, correct, confidence, error=error)


def test_errors_are_left_out_so_one_valid_judge_decides_alone() -> None:
    vote = majority([_v("error", False), _v("yes", True, 0.4), _v("error", False)])
    assert (vote.is_correct, vote.num_valid_judges, vote.correct_votes) == (True, 1, 1)
    assert vote.confidence == 0.4


def test_a_split_of_two_valid_judges_is_not_correct_and_a_tie() -> None:
    verdicts = [_v("yes", True), _v("no", False), _v("error", False)]
    model = majority(verdicts)
    assert (model.is_correct, model.llm_answer, model.agreement_rate) == (False, "tie", 0.5)
    assert majority(verdicts, track="agent").llm_answer == "no"


def test_no_valid_judge_is_not_correct() -> None:
    vote = majority([_v("error", False)] * 3)
    assert (vote.is_correct, vote.llm_answer, vote.num_valid_judges) == (False, "error", 0)
    assert vote.correct_votes is None and majority([], track="agent").correct_votes == 0


def test_unclear_judges_vote_but_count_toward_neither_answer() -> None:
    vote = majority([_v("unclear", False), _v("unclear", False), _v("yes", True)])
    assert (vote.is_correct, vote.llm_answer) == (False, "yes")
    assert vote.agreement_rate == pytest.approx(1 / 3)
