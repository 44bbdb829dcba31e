"""LongMemEval's judge, QA metrics and reader prompt on hand-made inputs (quirks 15, 16, 18).

The official templates are read from the shared data folder (never copied into the project).
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.longmemeval.judge import (
    OFFICIAL_JUDGE_MODEL, judge_label, judge_request,
)
from benchledger.adapters.benchmarks.longmemeval.prompts import (
    QUESTION_TYPES, judge_template_name, load_templates, reader_template_name,
)
from benchledger.adapters.benchmarks.longmemeval.qa_metrics import (
    QaLabel, evaluate_qa_summary, judge_requests, label_replies, print_qa_metrics, qa_metrics,
)
from benchledger.adapters.benchmarks.longmemeval.reader import (
    ReaderSettings, con_note_prompts, prepare_prompt, reader_prompt, reader_request,
    retrieved_chunks, with_notes,
)
from benchledger.errors import BadInput


@pytest.fixture
def templates(shared_data: Path) -> dict[str, str]:
    return load_templates(shared_data / "longmemeval" / "prompts")


@pytest.mark.parametrize(("reply", "label"), [
    ("yes", True), ("  YES.  ", True), ("Eyes closed: no", True), ("Yesterday..., so no", True),
    ("No. The model says yes to it", True), ("no", False), ("Y", False), ("y e s", False),
    ("", False),
])
def test_the_label_is_a_substring_test(reply: str, label: bool) -> None:
    assert judge_label(reply) is label


def test_abstention_ids_use_the_abstention_prompt_whatever_their_type() -> None:
    assert judge_template_name("temporal-reasoning", "q7_abs") == "judge_abstention.txt"
    assert judge_template_name("temporal-reasoning", "q7") == "judge_temporal-reasoning.txt"
    with pytest.raises(BadInput, match="question_type"):
        judge_template_name("open-domain", "q7")


def test_three_types_share_one_judge_text(templates: dict[str, str]) -> None:
    texts = {templates[judge_template_name(t, "q")] for t in
             ("single-session-user", "single-session-assistant", "multi-session")}
    assert len(texts) == 1
    assert len({templates[judge_template_name(t, "q")] for t in QUESTION_TYPES}) == 4


def test_the_request_is_the_official_one(templates: dict[str, str]) -> None:
    reference = {"question_id": "q1", "question_type": "knowledge-update",
                 "question": "How many {} cats?", "answer": 7}
    request = judge_request(templates, reference, "Seven {question}", model="gpt-4o")
    assert request.model == OFFICIAL_JUDGE_MODEL  # the CLI alias resolves
    kwargs = request.create_kwargs()
    assert (kwargs["n"], kwargs["temperature"], kwargs["max_tokens"]) == (1, 0, 10)
    assert kwargs["messages"] == [{"role": "user", "content": request.prompt}]
    # the slots are filled in order; an integer gold prints as 7; braces in values stay
    assert ("Question: How many {} cats?\n\nCorrect Answer: 7\n\n"
            "Model Response: Seven {question}\n\n") in request.prompt


def _labels(*rows: tuple[str, str, bool]) -> list[QaLabel]:
    return [QaLabel(qid, qtype, label, OFFICIAL_JUDGE_MODEL) for qid, qtype, label in rows]


def test_a_type_with_no_question_prints_nan_and_spoils_the_task_average() -> None:
    labels = _labels(*[(f"q{i}", t, i % 2 == 0) for i, t in enumerate(QUESTION_TYPES[1:])])
    printed = print_qa_metrics(qa_metrics(labels))
    assert "\tsingle-session-user: nan (0)\n" in printed
    assert "Task-averaged Accuracy: nan\n" in printed
    assert "Overall Accuracy: 0.6\n" in printed  # 3 of 5
    assert printed.endswith("Abstention Accuracy: nan (0)\n")


def test_abstention_questions_count_in_their_type_and_in_abstention() -> None:
    labels = _labels(*[(f"q{t}", t, True) for t in QUESTION_TYPES],
                     ("a1_abs", "multi-session", False), ("a2_abs", "temporal-reasoning", True))
    metrics = qa_metrics(labels)
    assert metrics.by_type["multi-session"] == (0.5, 2)
    assert (metrics.abstention, metrics.abstention_n) == (0.5, 2)
    # task average: mean of (1, 1, 1, 0.5, 1, 1)
    assert metrics.task_averaged == pytest.approx(5.5 / 6)


def test_the_printout_uses_numpy_rounding() -> None:
    # 3 of 160 is 0.01875; numpy rounds 187.5 (scaled) half to even -> 0.0188
    labels = _labels(*[(f"q{i}", "multi-session", i < 3) for i in range(160)])
    assert "\tmulti-session: 0.0188 (160)\n" in print_qa_metrics(qa_metrics(labels))


def test_the_printout_refuses_another_judge_unless_asked() -> None:
    labels = [QaLabel("q1", "multi-session", True, "gpt-4o-mini-2024-07-18")]
    with pytest.raises(BadInput, match="gpt-4o-2024-08-06"):
        print_qa_metrics(qa_metrics(labels))
    assert "multi-session: 1.0 (1)" in print_qa_metrics(qa_metrics(labels),
                                                         require_official_judge=False)


def test_evaluate_qa_skips_unknown_ids_and_uses_python_round_overall(
        templates: dict[str, str]) -> None:
    reference = [{"question_id": f"q{i}", "question_type": "multi-session", "question": "?",
                  "answer": "a"} for i in range(160)]
    hypotheses = [{"question_id": r["question_id"], "hypothesis": "h"} for r in reference]
    unknown = {"question_id": "x", "hypothesis": ""}
    plan = judge_requests(templates, reference, [*hypotheses, unknown])
    assert plan.skipped == ("x",)
    replies = {f"q{i}": "yes" if i < 3 else "no" for i in range(160)}
    summary = evaluate_qa_summary(label_replies(plan, replies), ["multi-session"])
    assert summary.accuracy == 0.0187  # Python's round of 0.01875 (stored just below)
    assert summary.by_type["multi-session"] == (0.0188, 160)  # numpy's round


ENTRY = {
    "question": "Which colour?", "question_date": "2023/06/01 (Thu) 10:00",
    "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/03 (Wed) 11:40"],
    "haystack_session_ids": ["answer_a1_1", "sharegpt_b_0"],
    "haystack_sessions": [
        [{"role": "user", "content": "It is teal ", "has_answer": True},
         {"role": "assistant", "content": "Nice", "has_answer": False}],
        [{"role": "user", "content": "Pancakes?"}, {"role": "assistant", "content": "Flour"}],
    ],
    "retrieval_results": {"ranked_items": [{"corpus_id": "answer_a1_1"},
                                           {"corpus_id": "sharegpt_b_0"}]},
}


def test_sessions_are_sorted_by_their_date_string_and_lose_has_answer(
        templates: dict[str, str]) -> None:
    settings = ReaderSettings("flat-session", topk_context=5, history_format="json", cot=False)
    prompt = prepare_prompt(ENTRY, settings, templates)
    first = prompt.index("Session Date: 2023/05/03")
    assert first < prompt.index("Session Date: 2023/05/20")  # ranked second, dated first
    assert '### Session 1:\nSession Date: 2023/05/03 (Wed) 11:40\nSession Content:\n\n[{"role": ' \
           '"user", "content": "Pancakes?"}' in prompt
    assert "has_answer" not in prompt
    assert prompt.endswith("Current Date: 2023/06/01 (Thu) 10:00\nQuestion: Which colour?\nAnswer:")


def test_topk_keeps_the_first_ranked_and_orig_keeps_the_latest(templates: dict[str, str]) -> None:
    flat = retrieved_chunks(ENTRY, ReaderSettings("flat-session", topk_context=1))
    assert [c.date for c in flat] == ["2023/05/20 (Sat) 02:21"]
    orig = retrieved_chunks(ENTRY, ReaderSettings("orig-session", topk_context=1))
    assert [c.date for c in orig] == ["2023/05/03 (Wed) 11:40"]


def test_nl_history_strips_each_turn_and_useronly_keeps_user_turns(
        templates: dict[str, str]) -> None:
    settings = ReaderSettings("flat-session", topk_context=1, useronly=True,
                              history_format="nl", cot=False)
    prompt = prepare_prompt(ENTRY, settings, templates)
    assert "Session Content:\n\n\nuser: It is teal\n\n\nCurrent Date" in prompt


def test_flat_turn_takes_the_turn_and_the_next_and_skips_unknown_ids(
        templates: dict[str, str]) -> None:
    entry = {**ENTRY, "retrieval_results": {"ranked_items": [
        {"corpus_id": "noans_a1_1_1"}, {"corpus_id": "ultrachat_missing_1"}]}}
    chunks = retrieved_chunks(entry, ReaderSettings("flat-turn", topk_context=5))
    assert [[t["content"] for t in c.content] for c in chunks] == [["It is teal ", "Nice"]]
    with pytest.raises(BadInput, match="useronly"):
        ReaderSettings("flat-turn", topk_context=5, useronly=True)


def test_no_retrieval_cot_is_the_question_then_the_instruction(templates: dict[str, str]) -> None:
    settings = ReaderSettings("no-retrieval", topk_context=5, cot=True)
    assert prepare_prompt(ENTRY, settings, templates) == "Which colour?Answer step by step."


def test_the_merge_direct_template_has_no_period(templates: dict[str, str]) -> None:
    text = templates[reader_template_name(retrieval=True, cot=False, expansion="merge")]
    assert "the user facts\n\n\nHistory Chats:" in text


def test_chain_of_note_replaces_chunks_with_notes(templates: dict[str, str]) -> None:
    settings = ReaderSettings("flat-session", topk_context=1, cot=True)
    chunks = retrieved_chunks(ENTRY, settings)
    (note_prompt,) = con_note_prompts(chunks, ENTRY, templates)
    assert "Session Date: 2023/05/20 (Sat) 02:21\nSession Content:\n[{" in note_prompt
    prompt = reader_prompt(with_notes(chunks, [" teal bike \n"]), ENTRY, settings, templates)
    assert '\n{"session_summary": "teal bike"}\n' in prompt


def test_the_reader_call_settings() -> None:
    assert reader_request("m", "p", cot=True).max_tokens == 800
    assert reader_request("m", "p", cot=False).create_kwargs()["max_tokens"] == 500
    assert reader_request("m", "p", cot=False, gen_length=64).max_tokens == 64


def test_a_template_that_is_not_the_official_one_is_refused(shared_data: Path,
                                                            tmp_path: Path) -> None:
    folder = tmp_path / "prompts"
    shutil.copytree(shared_data / "longmemeval" / "prompts", folder)
    path = folder / "judge_abstention.txt"
    path.write_bytes(path.read_bytes() + b" ")
    with pytest.raises(BadInput, match="judge_abstention.txt"):
        load_templates(folder)


def test_empty_history_is_refused_as_the_official_assert_does(templates: dict[str, str]) -> None:
    with pytest.raises(BadInput, match="no retrieved chunk"):
        reader_prompt([], ENTRY, ReaderSettings("flat-session", topk_context=1), templates)


def test_no_labels_give_nan_everywhere_as_numpy_means_of_nothing() -> None:
    metrics = qa_metrics([])
    assert math.isnan(metrics.overall) and math.isnan(metrics.abstention)
