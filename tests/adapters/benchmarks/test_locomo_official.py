"""LoCoMo's official scorer, statistics, evidence recall and prompt, against the official outputs.

The conformance test recomputes every fixture the official code produced; the table tests pin
each quirk of `../shared/data/conformance/README.md` with hand-written inputs whose expected
values are worked out from the rule in the comment beside them.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from benchledger.adapters.benchmarks.conformance import ConformanceOptions, run_conformance
from benchledger.adapters.benchmarks.locomo.conformance import CHECKS
from benchledger.adapters.benchmarks.locomo.prompts import (
    MAX_TOKENS, TEMPERATURE, Cat5Options, Session, Templates, Turn, build_query, cat5_choice,
    conversation_context, official_messages, question_text, rag_dialog_context, sessions_from_release,
)
from benchledger.adapters.benchmarks.locomo.scoring import (
    category5_score, evidence_recall, f1_score, multi_answer_f1, normalize_answer, numpy_mean, score_item,
)
from benchledger.adapters.benchmarks.locomo.stats import ScoredItem, aggregate


def test_every_official_locomo_output_is_reproduced(shared_data):
    options = ConformanceOptions(locomo_release=shared_data / "locomo" / "locomo-dev.json")
    results = run_conformance(shared_data / "conformance", options, checks=list(CHECKS))
    assert sorted(r.check for r in results) == ["locomo.cat5_choice", "locomo.evidence_recall", "locomo.qa_scores"]
    for result in results:
        assert result.ok, (result.file, result.skipped, result.first_mismatch)
        assert result.cases > 40


def test_without_the_release_the_score_fixtures_cannot_be_checked(shared_data):
    results = run_conformance(shared_data / "conformance", ConformanceOptions(), checks=list(CHECKS))
    skipped = {r.check: r.skipped for r in results if not r.ok}
    assert set(skipped) == {"locomo.qa_scores", "locomo.evidence_recall"}
    assert all("--locomo-release" in why for why in skipped.values())


@pytest.mark.parametrize("text, normalised", [
    ("1,000 users", "1000 users"),                     # commas go first: "1,000" becomes "1000"
    ("Cats and dogs", "cats dogs"),                    # "and" is deleted like an article
    ("The  cat, a dog; an owl!", "cat dog owl"),       # articles, ASCII punctuation, spaces
    ("Melanie’s book", "melanie’s book"),              # a typographic apostrophe is not ASCII punctuation
    ("Sandy and", "sandy"),
])
def test_normalize_answer(text, normalised):
    assert normalize_answer(text) == normalised


def test_token_f1_rules():
    assert f1_score("running", "runs") == 1.0               # both stem to "run"
    assert f1_score("melanie’s", "Melanie's") == 0          # "melanie’s" vs "melani": no overlap
    assert f1_score("cats and dogs", "cats, dogs") == 1.0   # "and" and "," both vanish
    assert f1_score("", "anything") == 0 and type(f1_score("x", "y")) is int
    # "red car" vs "red bike": 1 shared of 2 and 2 -> precision = recall = 0.5 -> F1 0.5
    assert f1_score("red car", "red bike") == 0.5


def test_category_one_splits_on_commas_before_normalising():
    # gold parts "1" and "000 users"; best F1s 0 and 0.5 (1 of 2 stemmed tokens each way) -> mean 0.25
    assert multi_answer_f1("1000 users", "1,000 users") == 0.25
    assert f1_score("1000 users", "1,000 users") == 1.0
    # a list written with "and" is one part: "paris london" vs gold parts paris / london -> F1 2/3 each
    assert multi_answer_f1("Paris and London", "Paris, London") == pytest.approx(2 / 3)
    assert multi_answer_f1("London, Paris", "Paris, London") == 1.0


@pytest.mark.parametrize("prediction, answer, category, score", [
    ("because she likes it", "Yes; because she likes it", 3, 0),   # category 3 keeps only "Yes"
    ("yes", "Yes; because she likes it", 3, 1.0),
    ("2022", 2022, 2, 1.0),                                        # the gold is str(answer)
    ("(b) Not mentioned", None, 5, 1),
    ("No information available.", None, 5, 1),
    ("Not-mentioned", None, 5, 0),                                  # plain substrings only
    ("no information  available", None, 5, 0),
    ("The conversation does not mention this.", None, 5, 0),
])
def test_item_scores_by_category(prediction, answer, category, score):
    got = score_item(prediction, answer, category)
    assert got == score and type(got) is type(score)
    if category == 5:
        assert category5_score(prediction) == score


def test_numpy_mean_is_bit_exact():
    rng = random.Random(7)
    for _ in range(2000):
        values = [rng.choice([0, 1.0, 2 / 3, 0.4, rng.random()]) for _ in range(rng.randint(1, 300))]
        assert numpy_mean(values) == float(np.mean(values))


@pytest.mark.parametrize("evidence, context, recall", [
    ([], ["D1:1"], 1),                                # no evidence: 1 per item
    (["D1:3", "D2:4"], ["D2:4", "D9:9"], 0.5),         # verbatim dia ids
    (["D8:6; D9:17"], ["D8:6", "D9:17"], 0.0),         # a malformed evidence string never matches
    (["D1:5", "D3:1"], ["S1", "S2"], 0.5),             # session mode: "D1:5" -> "1"
    (["D2:3"], ["S1", "D2:3"], 0.0),                   # the first id alone picks session mode
    (["D1:5"], ["D2:3", "S1"], 0.0),                   # ... and dia mode
    (["D1:5"], [], 0.0),
])
def test_evidence_recall(evidence, context, recall):
    assert evidence_recall(evidence, context) == recall


def test_statistics_population_order_and_printout():
    items = [
        ScoredItem("conv-26", 1, 1.0, ("D1:1",), 1.0),
        ScoredItem("conv-26", 1, 0.5, (), 1),            # no evidence: counts, adds no recall
        ScoredItem("conv-26", 2, 0, ("D1:2",), 0.0),
        ScoredItem("conv-26", 3, 1.0, ("D1:3",), 1.0),
        ScoredItem("conv-26", 4, 0.25, ("D1:4",), 0.5),
        ScoredItem("conv-26", 5, 1, ("D1:5",), 1.0),
        ScoredItem("conv-26", 5, 1, ("D1:6",), 0.0),
    ]
    stats = aggregate(items, rag=True)
    assert stats.recall_by_category == {1: 0.5, 2: 0.0, 3: 1.0, 4: 0.5, 5: 0.5}
    # overall: 1.0 + 0.5 + 0 + 1.0 + 0.25 + 1 + 1 = 4.75 over 7 items, category 5 included
    assert stats.overall.count == 7 and stats.overall.sum == 4.75
    assert stats.overall_excluding_cat5.sum == 2.75
    assert stats.printout() == (
        "Total number of questions and corresponding accuracy in each category: \n"
        "4 1 0.25 0.25\n1 2 1.5 0.75\n2 1 0 0.0\n3 1 1.0 1.0\n5 2 2 1.0\n"
        f"Overall accuracy:  {round(4.75 / 7, 3)}\n"
        "Category and corresponding recall accuracy in each category: \n"
        "4 0.5\n1 0.5\n2 0.0\n3 1.0\n5 0.5\n"
        f"Overall recall accuracy:  {(1.0 + 0.0 + 1.0 + 0.5 + 1.0) / 7}\n")


def test_the_official_conversation_order_decides_the_summation():
    # 0.1 + 0.2 + 0.3 differs from 0.3 + 0.1 + 0.2 in the last bit; conv-41 is read before conv-26
    items = [ScoredItem("conv-26", 4, 0.1), ScoredItem("conv-26", 4, 0.2), ScoredItem("conv-41", 4, 0.3)]
    assert aggregate(items).per_category[4].sum == (0.3 + 0.1) + 0.2


@pytest.mark.parametrize("reply, chosen", [
    ("a", "A"), ("x", "B"), (" (A) ", "A"), ("(c)", "B"),     # 1 and 3 characters pick an option
    ("a.", "a."), ("(a) Not mentioned", "(a) not mentioned"),  # anything else is the lower-cased reply
])
def test_forced_choice_mapping(reply, chosen):
    assert cat5_choice(reply, Cat5Options("A", "B")) == chosen


@pytest.fixture
def templates(shared_data) -> Templates:
    return Templates.read(shared_data / "locomo" / "prompts")


def test_templates_are_pinned(templates):
    assert templates.unofficial() == []
    changed = Templates(**{**templates.__dict__, "qa_prompt": templates.qa_prompt + " "})
    assert changed.unofficial() == ["qa_prompt.txt"]


def test_question_text_and_query(templates):
    asked, options = question_text("When?", 2, "x", templates)
    assert asked == "When?" + templates.cat2_question_suffix and options is None
    asked, options = question_text("What?", 5, "a dog", templates, not_mentioned_first=False)
    assert options == Cat5Options("a dog", templates.cat5_not_mentioned_option)
    assert asked == "What?" + templates.cat5_question_suffix.format("a dog", templates.cat5_not_mentioned_option)
    query = build_query("CONTEXT", "What?", 5, "a dog", templates)
    assert query.prompt == "CONTEXT\n\n" + templates.qa_prompt_cat5.format(
        "What?" + templates.cat5_question_suffix.format(templates.cat5_not_mentioned_option, "a dog"))
    assert cat5_choice("a", query.cat5_options) == templates.cat5_not_mentioned_option
    assert build_query("C", "Who?", 4, "x", templates).prompt == "C\n\n" + templates.qa_prompt.format("Who?")
    assert (TEMPERATURE, MAX_TOKENS) == (0, 32)
    assert official_messages("gpt-3.5-turbo", "q") == [{"role": "system", "content": "q"}]
    assert official_messages("gpt-4-turbo", "q") == [{"role": "user", "content": "q"}]


CONVERSATION = {
    "speaker_a": "Ann", "speaker_b": "Bob",
    "session_1_date_time": "d1", "session_1": [
        {"speaker": "Ann", "dia_id": "D1:1", "text": "hi", "img_url": ["u"], "blip_caption": "a cat"},
        {"speaker": "Bob", "dia_id": "D1:2", "text": "no image", "blip_caption": "ignored"}],
    "session_2_date_time": "d2", "session_2": [],
    "session_3_date_time": "d3", "session_3": [{"speaker": "Bob", "dia_id": "D3:1", "text": "yo"}],
    "session_4_date_time": "d4", "session_4": [],
}


def test_full_conversation_context_as_the_official_loop_builds_it(templates):
    sessions = sessions_from_release(CONVERSATION)
    assert [s.number for s in sessions] == [1, 2, 3, 4]
    # newest non-empty session is 3; each session appends "\n\n" to the END of what is built so far,
    # then its turns and its header go in front: the separators pile up after the last session
    body = ('DATE: d1\nCONVERSATION:\nAnn said, "hi"\n[shares a cat]\nBob said, "no image"\n'
            'DATE: d2\nCONVERSATION:\n'
            'DATE: d3\nCONVERSATION:\nBob said, "yo"\n' + "\n\n" * 3)
    start = templates.conv_start_prompt.format("Ann", "Bob")
    assert conversation_context(sessions, ("Ann", "Bob"), templates) == start + body


def test_the_token_budget_drops_the_oldest_turns_first(templates):
    sessions = [Session(1, "d1", (Turn("A", "one two"),)), Session(2, "d2", (Turn("B", "three"), Turn("A", "four")))]
    words = lambda text: len(text.split())  # noqa: E731 - a token counter the test can reason about
    # room: 62 - 50 = 12 words. 'A said, "four"' with its header is 6 words, nothing built yet: kept.
    # 'B said, "three"' is 6 + the 3 built = 9: kept. Session 1's turn is 7 + the 9 built = 16: the
    # loop stops there, but session 1's header still goes in front, after its "\n\n" went to the end.
    got = conversation_context(sessions, ("A", "B"), templates, count_tokens=words, limit=50 + 12)
    assert got == templates.conv_start_prompt.format("A", "B") + (
        'DATE: d1\nCONVERSATION:\nDATE: d2\nCONVERSATION:\nB said, "three"\nA said, "four"\n' + "\n\n" * 2)


def test_rag_dialog_context():
    turns = [("d3", Turn("Bob", "yo")), ("d1", Turn("Ann", "hi", "a cat"))]
    assert rag_dialog_context(turns) == 'd3: Bob said, "yo"\nd1: Ann said, "hi"'
