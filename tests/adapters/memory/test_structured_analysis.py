"""The structured memory's text analysis and time recognisers, on plain inputs."""

from __future__ import annotations

from datetime import datetime

from benchledger.adapters.memory.structured.analysis import analyze, question_intent, tokenize
from benchledger.adapters.memory.structured.temporal import date_closeness, dates_named, has_time_cue


def test_tokenize_drops_possessives_and_keeps_contractions() -> None:
    assert tokenize("Caroline's dog didn't bark, 3 times!") == [
        "caroline", "dog", "didn't", "bark", "3", "times"]


def test_analyze_stems_content_words_and_drops_function_words() -> None:
    assert analyze("What did she research about the camping trips?") == ["research", "camp", "trip"]
    assert analyze("Camping trips", stemmed=False) == ["camping", "trips"]


def test_question_intent_reads_when_first_person_and_decisions() -> None:
    when = question_intent("When did Melanie paint a sunrise?")
    assert when.asks_when and not when.first_person and not when.asks_decision
    assert question_intent("How long has Caroline had her friends?").asks_when
    assert not question_intent("What did Caroline research?").asks_when
    mine = question_intent("What did we decide about my budget?")
    assert mine.first_person and mine.asks_decision


def test_time_cues_mark_turns_that_date_something() -> None:
    assert has_time_cue("I went to a support group yesterday")
    assert has_time_cue("Back in 2019 we moved")
    assert has_time_cue("See you on Friday")
    assert not has_time_cue("The transgender stories were so inspiring!")


def test_dates_named_reads_day_month_year_in_common_orders() -> None:
    assert dates_named("What did Maria start, as mentioned on 3 June, 2023?") == [(2023, 6, 3)]
    assert dates_named("on August 10, 2022") == [(2022, 8, 10)]
    assert dates_named("camping in June") == [(None, 6, None)]
    assert dates_named("in May 2022 and in 2021") == [(2022, 5, None), (2021, None, None)]
    assert dates_named("may I ask what you read?") == []


def test_date_closeness_counts_agreeing_components() -> None:
    when = datetime(2023, 6, 3, 13, 0)
    assert date_closeness(when, [(2023, 6, 3)]) == 3
    assert date_closeness(when, [(None, 6, None)]) == 1
    assert date_closeness(when, [(2023, 7, None)]) == 0
    assert date_closeness(when, [(2022, None, None), (2023, 6, None)]) == 2
    assert date_closeness(when, []) == 0
