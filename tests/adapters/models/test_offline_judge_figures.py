"""The offline judge never accepts an answer whose numbers, times or dates differ from gold.

Table-driven: each row is (gold, answer, verdict). The same figure written another way ("9 PM" and
"21:00", "July 18, 2025" and "2025-07-18") is still judged on overlap; a different figure is
incorrect however many words the answer shares with gold. The loopback endpoint judges with the
same function, so a run against it obeys the same rule (checked through the HTTP judge too).
"""

from __future__ import annotations

import pytest

from benchledger.adapters.models.offline import lexical_verdict
from benchledger.adapters.models.quantities import quantities

DIFFERENT_FIGURES = [
    ("9 PM to 8 AM", "10 PM to 7 AM"),
    ("9 PM to 8 AM", "9 PM to 7 AM"),
    ("The meeting is at 3:30 PM", "The meeting is at 3 PM"),
    ("2025-07-18", "2025-07-17"),
    ("July 18, 2025", "July 18, 2024"),
    ("The design freeze was on 16 May 2025", "The design freeze was on 17 May 2025"),
    ("Melanie painted it on 8 May 2023", "Melanie painted it in June 2023"),
    ("1,200 users are in the beta cohort", "1,300 users are in the beta cohort"),
    ("15 minutes", "50 minutes"),
    ("two weeks", "three weeks"),
    ("3.5% churn", "3.6% churn"),
    ("every Monday", "every Tuesday"),
    ("at noon", "at midnight"),
    ("The snooze default is 10 minutes", "The snooze default is minutes"),
]

SAME_FIGURES = [  # the figure check lets these through; word overlap then decides
    ("9 PM to 8 AM", "quiet hours run from 9pm until 8am"),
    ("9 PM to 8 AM", "21:00 to 08:00"),
    ("2025-07-18", "It happened on July 18, 2025."),
    ("July 18, 2025", "2025-07-18"),
    ("1,200 users", "1200 users"),
    ("two weeks", "2 weeks"),
]

OVERLAP_DECIDES = [
    ("9 PM to 8 AM", "Quiet hours are 9 PM to 8 AM on weekdays.", "correct"),
    ("15 minutes", "The default snooze is 15 minutes.", "correct"),
    ("1,200 users", "about 1,200 users", "correct"),
    ("weekly", "The PagerDuty schedule is weekly", "correct"),  # no figures: overlap alone decides
    ("Postgres", "Redis", "incorrect"),
]


@pytest.mark.parametrize(("gold", "answer"), DIFFERENT_FIGURES)
def test_an_answer_with_other_figures_is_incorrect(gold, answer):
    verdict, reason = lexical_verdict(question="When?", gold=gold, answer=answer, abstention=False)
    assert verdict == "incorrect", reason
    assert reason.startswith("the answer does not state the gold's ")


@pytest.mark.parametrize(("gold", "answer"), SAME_FIGURES)
def test_the_same_figures_written_otherwise_pass_the_figure_check(gold, answer):
    assert quantities(gold) <= quantities(answer)
    _, reason = lexical_verdict(question="When?", gold=gold, answer=answer, abstention=False)
    assert reason.startswith("containment="), reason


@pytest.mark.parametrize(("gold", "answer", "expected"), OVERLAP_DECIDES)
def test_with_the_same_figures_word_overlap_decides(gold, answer, expected):
    verdict, reason = lexical_verdict(question="When?", gold=gold, answer=answer, abstention=False)
    assert verdict == expected, reason


def test_figures_are_read_as_values():
    assert quantities("9 PM to 8 AM") == quantities("21:00 to 08:00") == {"time:21:00", "time:08:00"}
    assert quantities("18th of July 2025") == quantities("2025-07-18") == {"year:2025", "month:7", "day:18"}
    assert quantities("I may go, the one on the left") == set()  # "may" and "one" are words here
    assert quantities("version 3.10, 1,000,000 rows, twice") == {"num:3.1", "num:1000000", "num:2"}


def test_the_loopback_judge_applies_the_same_rule():
    from benchledger.adapters.models.loopback import LoopbackOpenAI
    from benchledger.adapters.models.factory import build_models
    from benchledger.settings import ModelCalls
    from benchledger.adapters.models.base import Answer
    from benchledger.values import Question
    import os

    with LoopbackOpenAI() as server:
        os.environ["OPENAI_API_KEY"] = "sk-test-figures"
        try:
            _, judge = build_models(agent_model="loopback-agent", judge_model="loopback-judge", protocol="typed",
                                    calls=ModelCalls(base_url=server.base_url), cache=None)
            question = Question(question_id="q", kind="temporal", text="When are quiet hours?", gold="9 PM to 8 AM")
            wrong = judge.judge(question, Answer(answer="10 PM to 7 AM", abstained=False, raw="", model="m"), None)
            right = judge.judge(question, Answer(answer="from 9 PM to 8 AM", abstained=False, raw="", model="m"), None)
        finally:
            del os.environ["OPENAI_API_KEY"]
    assert (wrong.verdict, right.verdict) == ("incorrect", "correct")
