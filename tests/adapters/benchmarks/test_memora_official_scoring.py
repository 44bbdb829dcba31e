"""Memora's official FAMA, report, Table 3, prompts and context on hand-made inputs (quirks 19-20,
25-26). Expected numbers are derived from the rules stated beside them."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.memora.context import HEADER, build_conversation_context
from benchledger.adapters.benchmarks.memora.judge_verdict import JudgeCallFailed, JudgeVerdict
from benchledger.adapters.benchmarks.memora.prompts import (
    answer_call, answer_messages, judge_calls, judge_messages, load_templates,
    question_current_date,
)
from benchledger.adapters.benchmarks.memora.report import (
    FAILURES_EXCLUDED_LABEL, failures_excluded_report, in_official_order, official_report,
)
from benchledger.adapters.benchmarks.memora.scoring import (
    answer_response, fama_score, question_result, task_type_of,
)
from benchledger.adapters.benchmarks.memora.table3 import (
    aggregate_table3, print_table3, table3_row,
)

JUDGES = ("a", "b", "c")


@pytest.mark.parametrize(("counts", "fama"), [
    ((2, 4, 1, 2), 0.5 - (2 / 6) * 0.5),  # MPA .5, FAA .5, lambda 2/6
    ((0, 0, 3, 3), 0.0),  # no presence criterion: MPA 0 even with every forgetting one passed
    ((3, 4, 0, 0), 0.75),  # no forgetting criterion: FAMA = MPA
    ((0, 0, 0, 0), 0.0),
    ((0, 2, 0, 2), 0.0),  # max(0, 0 - 0.5)
])
def test_fama(counts: tuple[int, int, int, int], fama: float) -> None:
    assert fama_score(*counts) == pytest.approx(fama)


def _criterion(cid: str, kind: str, expected: str = "yes") -> dict:
    return {"evaluation_question_id": cid, "evaluation_question": f"{cid}?",
            "expected_answer": expected, "evaluation_type": kind}


def _verdicts(*answers: str, expected: str = "yes") -> dict[str, JudgeVerdict]:
    out = {}
    for judge, answer in zip(JUDGES, answers):
        error = "x" if answer == "error" else None
        out[judge] = JudgeVerdict(answer, answer == expected.lower(), 1.0, error=error)
    return out


def _question(qid: str, task: str, *criteria: dict) -> dict:
    return {"question_id": qid, "task_type": task,
            "evaluation": {"evaluation_questions": list(criteria)}}


def _result(qid: str, task: str, marks: dict[str, tuple], *criteria: dict, answer_error=None):
    verdicts = {c["evaluation_question_id"]: _verdicts(*marks[c["evaluation_question_id"]],
                                                       expected=c["expected_answer"])
                for c in criteria}
    return question_result(_question(qid, task, *criteria), "answer", verdicts, JUDGES,
                           answer_error=answer_error)


def test_a_tone_check_counts_in_accuracy_not_in_fama() -> None:
    result = _result("q1", "Remembering",
                     {"p": ("yes", "yes", "no"), "t": ("yes", "yes", "yes")},
                     _criterion("p", "memory_presence"), _criterion("t", "tone_check"))
    assert result.fama == 1.0 and result.correct_count == 2
    report = official_report([result], JUDGES)
    overall = report["overall_metrics"]
    # overall accuracy adds presence and forgetting correct only, over all criteria: 1 / 2
    assert (overall["total_correct_evaluations"], overall["overall_accuracy"]) == (1, 0.5)
    assert report["by_task_type"]["Remembering"]["accuracy"] == 1.0  # tone_check counted here
    assert report["per_judge_overall"]["c"] == {"correct": 1, "total": 2, "accuracy": 0.5}


def test_an_empty_task_bucket_reports_fama_zero_and_none_accuracies() -> None:
    result = _result("q1", "Reasoning", {"f": ("no", "no", "no")},
                     _criterion("f", "forgetting_absence", "No"))
    empty = official_report([result], JUDGES)["by_task_type"]["Recommending"]
    assert (empty["total_questions"], empty["fama"], empty["accuracy"]) == (0, 0.0, 0.0)
    assert empty["memory_presence_accuracy"] is None
    assert official_report([result], JUDGES)["by_task_type"]["Reasoning"]["fama"] == 0.0


def test_task_fama_is_100_times_the_mean_of_question_famas() -> None:
    full = _result("q1", "Remembering", {"p": ("yes",) * 3}, _criterion("p", "memory_presence"))
    half = _result("q2", "Remembering", {"p": ("yes",) * 3, "r": ("no",) * 3},
                   _criterion("p", "memory_presence"), _criterion("r", "memory_presence"))
    report = official_report([full, half], JUDGES)
    assert report["by_task_type"]["Remembering"]["fama"] == pytest.approx(75.0)
    assert report["by_task_type"]["Remembering"]["accuracies"] == [1.0, 0.5]
    assert report["overall_metrics"]["fama"] == pytest.approx(75.0)


def test_the_official_order_runs_tasks_in_turn_and_drops_other_types() -> None:
    rows = [_result(q, t, {}) for q, t in
            [("r1", "Reasoning"), ("m1", "Remembering"), ("x", "Other"), ("m2", "Remembering")]]
    assert [r.question_id for r in in_official_order(rows)] == ["m1", "m2", "r1"]


def test_a_failed_answer_is_judged_as_error_text_and_counted() -> None:
    shown, error = answer_response(JudgeCallFailed("provider 500"))
    assert (shown, error) == ("ERROR: provider 500", "provider 500")
    assert answer_response("fine")[1] is None and answer_response(None)[0].startswith("ERROR: ")
    failed = _result("q1", "Remembering", {"f": ("no",) * 3},
                     _criterion("f", "forgetting_absence", "no"), answer_error="provider 500")
    ok = _result("q2", "Remembering", {"p": ("no",) * 3}, _criterion("p", "memory_presence"))
    unscored = _result("q3", "Reasoning", {"p": ("error",) * 3},
                       _criterion("p", "memory_presence"))
    official = official_report([failed, ok, unscored], JUDGES)
    assert official["overall_metrics"]["total_questions"] == 3
    view = failures_excluded_report([failed, ok, unscored], JUDGES)
    assert view.label == FAILURES_EXCLUDED_LABEL
    assert set(view.excluded) == {"q1", "q3"}
    assert "provider 500" in view.excluded["q1"] and "p" in view.excluded["q3"]
    assert view.report["overall_metrics"]["total_questions"] == 1


def _report(task_famas: dict[str, tuple[float, int]]) -> dict:
    return {"overall_metrics": {"total_questions": 1, "fama": 1.0},
            "by_task_type": {t: {"fama": f, "total_questions": n}
                             for t, (f, n) in task_famas.items()}}


def test_table3_means_per_report_famas_and_skips_empty_buckets() -> None:
    path = "data/{}/{}/eval_results/m_no_reasoning/eval_report_1.json"
    rows = [
        table3_row(_report({"Remembering": (40.0, 2), "Reasoning": (0.0, 0)}),
                   path.format("weekly", "p1"), {"model_name": "m"}),
        table3_row(_report({"Remembering": (10.0, 9), "Reasoning": (30.0, 1)}),
                   path.format("weekly", "p2"), {"model_name": "m"}),
    ]
    assert rows[0]["subject"] == "m (no reasoning)" and rows[0]["persona"] == "p1"
    table = aggregate_table3(rows)
    # a mean of report FAMAs (not weighted by questions); p1's empty Reasoning is left out
    assert table == {"m (no reasoning)": {"Remembering": {"weekly": 25.0},
                                          "Reasoning": {"weekly": 30.0}}}
    printed = print_table3(table).splitlines()
    assert printed[2].split() == ["m", "(no", "reasoning)", "25.00", "-", "-", "30.00", "-", "-",
                                  "-", "-", "-"]
    assert len(printed[1]) == len(printed[0]) == 45 + 9 * 11


@pytest.fixture
def templates(shared_data: Path) -> dict[str, str]:
    return load_templates(shared_data / "memora" / "prompts")


def test_the_model_track_judge_prompt_always_names_the_target_item(templates) -> None:
    messages = judge_messages(templates, "It was {blue}", _criterion("e1", "memory_presence"))
    assert messages.system == templates["judge_system.txt"]
    assert ("EVALUATION QUESTION:\ne1?\n\nTarget item being evaluated: None\n"
            "Evaluation type: memory_presence\n\nProvide") in messages.user
    assert "AI RESPONSE TO EVALUATE:\nIt was {blue}\n" in messages.user
    agent = judge_messages(templates, "x", _criterion("e1", "memory_presence"), track="agent")
    assert "Target item" not in agent.user and "EVALUATION QUESTION:\ne1?\n\nProvide" in agent.user


def test_released_questions_carry_no_date_the_answer_prompt_reads(templates) -> None:
    released = {"question": "Q?", "question_date": "2025-06-03"}
    assert question_current_date(released) is None
    messages = answer_messages(templates, "CTX", "Q?", question_current_date(released))
    assert "Today's date" not in messages.system
    dated = answer_messages(templates, "CTX", "Q?", "2025-06-03")
    assert dated.system.count("2025-06-03") == 2
    assert messages.user.startswith("CTX\n\n---\n\n# Current Question\nUser: Q?\n")


def _session(sid: int, *turns: tuple[str, str]) -> dict:
    return {"session_id": sid, "date": f"2025-06-0{sid}",
            "conversation": [{"speaker": s, "message": m} for s, m in turns]}


def test_the_context_keeps_user_and_agent_turns_in_session_order() -> None:
    sessions = [_session(2, ("user", "b")), _session(1, ("user", "a"), ("system", "hidden"),
                                                     ("ai_agent", "ok"))]
    context, meta = build_conversation_context(sessions)
    assert context.index("## Session 1") < context.index("## Session 2")
    assert "hidden" not in context and "\nUser: a\nAssistant: ok\n" in context
    assert (meta.included_conversations, meta.was_truncated) == (2, False)


def test_under_a_budget_the_newest_sessions_are_kept_and_the_cut_is_noted() -> None:
    count_words = lambda text: len(text.split())  # noqa: E731 - a simple counter for the test
    long_old = _session(1, *[("user", "word " * 20)] * 10)
    new = _session(2, ("user", "fresh news"))
    context, meta = build_conversation_context([long_old, new], max_tokens=150,
                                               count_tokens=count_words)
    # header 16 words, so 134 left (the header is counted again in what is used: 16); the new
    # session (8 words) fits; the old one (5 + 10 x 21) does not, and 110 > 100 remain, so it
    # is cut to the turns that fit: 5 + 5 x 21 = 110
    assert len(HEADER.split()) == 16
    assert meta.included_conversations == 2 and meta.truncated_conversations == 1
    assert context.count("word " * 20) == 5
    assert "[Note: Showing 2 of 2 conversations due to token limits." in context
    assert context.index("## Session 1") < context.index("## Session 2")


def test_the_official_calls(templates) -> None:
    calls = judge_calls(templates, "answer", _criterion("e1", "memory_presence"))
    assert [c.model for c in calls.values()] == ["openai/gpt-4.1", "anthropic/claude-haiku-4.5",
                                                 "google/gemini-2.5-flash"]
    kwargs = calls["openai"].create_kwargs()
    assert kwargs["temperature"] == 0.0 and "max_tokens" not in kwargs
    assert [m["role"] for m in kwargs["messages"]] == ["system", "user"]
    answer = answer_call(templates, "m", "CTX", {"question": "Q?", "question_date": "2025-06-03"},
                         reasoning={"effort": "low"}).create_kwargs()
    assert answer["temperature"] == 0.7 and answer["extra_body"] == {"reasoning": {"effort": "low"}}
    assert task_type_of("recommending") == "Recommending" and task_type_of("other") == "other"
