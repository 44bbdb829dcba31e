"""Memora criteria judging in the models: the derived verdict, the offline lexical rule, and the
reference and typed judges' per-criterion calls (and their parse failures) against the loopback."""

from __future__ import annotations

import pytest
from benchledger.adapters.benchmarks.base import Criterion, Question
from benchledger.adapters.models.base import Answer, ModelParseError
from benchledger.adapters.models.criteria import parse_yes_no, verdict_from_criteria
from benchledger.adapters.models.factory import build_models
from benchledger.settings import ModelCalls
from benchledger.adapters.models.offline import OfflineLexicalJudge, lexical_criterion

PRESENT = Criterion(criterion_id="p", question="Does the response mention repairing the water butt lid?",
                    expected="yes", kind="memory_presence")
FORGOT = Criterion(criterion_id="f", question="Does the response mention the broad beans in plot 7?",
                   expected="no", kind="forgetting_absence")
QUESTION = Question(question_id="q", kind="remembering", text="Which allotment jobs are still open?", gold="",
                    criteria=(PRESENT, FORGOT))


def answer(text: str, abstained: bool = False) -> Answer:
    return Answer(answer=text, abstained=abstained, raw=text, model="test")


@pytest.mark.parametrize("answers, verdict", [
    ({"p": "yes", "f": "no"}, "correct"),
    ({"p": "yes", "f": "yes"}, "incorrect"),
    ({"p": "unclear", "f": "no"}, "unclear"),
    ({"p": "unclear", "f": "yes"}, "incorrect"),
    ({"p": "yes"}, "unclear"),  # a criterion the judge never answered is not as expected
])
def test_the_verdict_is_correct_only_when_every_criterion_is_as_expected(answers, verdict):
    assert verdict_from_criteria((PRESENT, FORGOT), answers)[0] == verdict


def test_the_lexical_rule_reads_term_coverage_and_avoidance():
    assert lexical_criterion(PRESENT.question, "Repair the lid of the water butt.")[0] == "yes"
    assert lexical_criterion(PRESENT.question, "Weed the onion bed.")[0] == "no"
    assert lexical_criterion("Does the response avoid suggesting small-stave copies?", "Print A4.")[0] == "yes"
    assert lexical_criterion("Does the response avoid suggesting small-stave copies?",
                             "Small-stave copies are fine.")[0] == "no"
    abstaining = "There is no information available in the conversation to answer this question."
    assert lexical_criterion(PRESENT.question, abstaining)[0] == "no"


def test_the_offline_judge_penalises_remembering_what_was_forgotten():
    verdict = OfflineLexicalJudge().judge(QUESTION, answer("Repair the water butt lid, then sow broad beans in "
                                                           "plot 7."), None)
    assert verdict.criteria == {"p": "yes", "f": "yes"} and verdict.verdict == "incorrect"
    assert "f=yes (expected no)" in verdict.reason
    clean = OfflineLexicalJudge().judge(QUESTION, answer("Repair the water butt lid."), None)
    assert clean.criteria == {"p": "yes", "f": "no"} and clean.verdict == "correct"


@pytest.mark.parametrize("final, said", [("Yes.", "yes"), ("no, it does not", "no"), ("Partly", "unclear")])
def test_yes_no_parsing_never_guesses(final, said):
    assert parse_yes_no(final) == said


@pytest.mark.parametrize("protocol", ["reference", "typed"])
def test_real_judges_ask_each_criterion_and_agree_with_the_offline_rule(loopback, protocol):
    _, judge = build_models(agent_model=None, judge_model="loopback-judge", protocol=protocol,
                            calls=ModelCalls(base_url=loopback.base_url), cache=None)
    given = answer("Repair the water butt lid, then sow broad beans in plot 7.")
    verdict = judge.judge(QUESTION, given, None)
    assert verdict.criteria == OfflineLexicalJudge().judge(QUESTION, given, None).criteria
    assert verdict.verdict == "incorrect" and loopback.count(role="judge") == 2
    assert verdict.usage.prompt_tokens > 0 and verdict.model == "loopback-judge"
    prompts = [body["messages"][1]["content"] for body in loopback.requests]
    assert [p.rsplit("Evaluation Question:\n", 1)[1].strip() for p in prompts] == [PRESENT.question,
                                                                                   FORGOT.question]


@pytest.mark.parametrize("protocol, fault", [("reference", "no_final"), ("typed", "wrong_schema")])
def test_a_criterion_reply_out_of_shape_is_a_parse_failure(loopback, protocol, fault):
    _, judge = build_models(agent_model=None, judge_model="loopback-judge", protocol=protocol,
                            calls=ModelCalls(base_url=loopback.base_url), cache=None)
    loopback.faults.push(fault, role="judge", contains=FORGOT.question)
    with pytest.raises(ModelParseError):
        judge.judge(QUESTION, answer("Repair the water butt lid."), None)
