"""`benchledger run mem2actbench` end to end on a synthetic release: offline against the sqlite baseline,
the oracle (each task's own evolution chain) and full context; through the openai SDK against the
loopback endpoint's tool calls; the candidate-set stress test; wrong actions kept apart from
operational failures; and no retrieval run for an action benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.mem2actbench.synth import synthesize_mem2actbench
from ledger_cli import conditions, events_of, invoke


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mem2act") / "release"
    synthesize_mem2actbench(root, tasks=20, seed=0)
    return root


def _run(release: Path, *args: str, expect: int = 0) -> tuple[str, dict]:
    result = invoke("run", "mem2actbench", str(release), "--out", "r.json", *args)
    assert result.exit_code == expect, result.output
    return result.output, json.loads(Path("r.json").read_text())


def _actions(report: dict) -> dict:
    return next(s for s in report["sections"] if s["name"] == "mem2actbench.actions")["values"]


@pytest.fixture(scope="module")
def held_out(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mem2act-held-out") / "release"
    synthesize_mem2actbench(root, tasks=20, seed=5)
    return root


def test_on_a_held_out_seed_too_the_oracle_acts_best(held_out):
    f1 = {memory: _actions(_run(held_out, "--memory", memory)[1])["groups"]["overall"]["f1"]["mean"]
          for memory in ("sqlite", "oracle", "full-context")}
    assert f1["oracle"] > f1["sqlite"] and f1["oracle"] > f1["full-context"]


def test_the_oracle_acts_better_than_the_sqlite_baseline_and_full_context(release):
    outputs, reports = {}, {}
    for memory in ("sqlite", "oracle", "full-context"):
        outputs[memory], reports[memory] = _run(release, "--memory", memory)
    f1 = {memory: _actions(report)["groups"]["overall"]["f1"]["mean"] for memory, report in reports.items()}
    assert f1["oracle"] > f1["sqlite"] and f1["oracle"] > f1["full-context"]
    for memory, report in reports.items():
        values = _actions(report)
        assert report["kind"] == "action" and report["score"] == f1[memory]
        assert report["metric"] == "Mem2ActBench argument F1"
        assert {level for level in ("L1", "L2", "L3", "L4") if values["groups"][level]["n"]} == {"L1", "L2", "L3", "L4"}
        attribution = values["counts"]["attribution"]
        assert sum(attribution.values()) == report["total"] == 20
        assert attribution["correct"] == report["correct"]  # an exact action is the correct verdict
        assert values["counts"]["defects"] == {"missing_source": 2, "tool_name_not_a_string": 1}
        met = conditions(report)
        assert not met["official_protocol"] and not met["official_release"] and met["unsampled_questions"]
        reasons = {c["name"]: c["reason"] for c in report["conditions"]}
        assert reasons["official_protocol"].startswith("protocol: as the paper describes it")
        assert "no pin can be known here" in reasons["official_release"]
        text = outputs[memory]
        assert "failure attribution (from the recorded recall and answer)" in text and "temporal conflict" in text
        assert "a diagnostic of the memory, never the score" in text and "offline deterministic baseline: --agent-model" in text
    assert _actions(reports["oracle"])["evidence_recall"]["recall"] == 1.0
    assert _actions(reports["oracle"])["counts"]["attribution"]["retrieval_miss"] == 0
    assert _actions(reports["sqlite"])["counts"]["attribution"]["retrieval_miss"] > 0
    started = next(e for e in events_of(reports["sqlite"]["run_id"]) if e.type == "ScorerStarted")
    assert (started.method, started.official, started.model_free) == ("mem2act-action", False, True)


def test_five_hard_negatives_lower_tool_selection_and_the_setting_is_recorded(release):
    _, given = _run(release)
    _, hard = _run(release, "--candidates", "5", "--negatives", "hard", "--candidate-seed", "1")
    tool = {name: _actions(r)["groups"]["overall"]["tool_selected"]["mean"] for name, r in (("given", given), ("hard", hard))}
    assert tool["given"] == 1.0 > tool["hard"]
    assert _actions(hard)["counts"]["attribution"]["tool_selection_error"] > 0
    selection = next(e for e in events_of(hard["run_id"]) if e.type == "RunStarted").config.selection.model_dump()
    assert (selection["candidates"], selection["negatives"], selection["candidate_seed"]) == (5, "hard", 1)
    planned = next(e for e in events_of(hard["run_id"]) if e.type == "QuestionsPlanned").questions
    assert all(len(json.loads(q.extra["candidate_tools"])) == 5 for q in planned)


def test_an_action_benchmark_has_no_retrieval_run(release):
    result = invoke("retrieval", "mem2actbench", str(release))
    assert result.exit_code == 2 and not Path("ledger.db").exists()
    (line,) = result.output.strip().splitlines()
    assert "Mem2ActBench is an action benchmark" in line and "retrieval figure" in line
    refused = invoke("run", "mem2actbench", str(release), "--protocol", "official")
    assert refused.exit_code == 2 and not Path("ledger.db").exists()


def test_through_the_loopback_the_answers_are_forced_tool_calls_and_the_question_view_says_why(release, loopback):
    queries = [json.loads(line)["query"] for line in
               (release / "toolmembench_small" / "qa_dataset.jsonl").read_text().splitlines()[:12]]
    chat, broken = queries[1], next(q for q in queries[2:] if q != queries[1])
    loopback.faults.always("reply", text="I would rather just chat.", role="agent", contains=f"Request:\n{chat}")
    loopback.faults.always("500", role="agent", contains=f"Request:\n{broken}")
    out, report = _run(release, "--agent-model", "loopback-agent", "--base-url", loopback.base_url, "--question-limit",
                       "12", "--max-attempts", "1", expect=3)
    counts = _actions(report)["counts"]
    events = events_of(report["run_id"])
    failed = [e for e in events if e.type == "Failed"]
    texts = {q.question_id: q.text for q in next(e for e in events if e.type == "QuestionsPlanned").questions}
    assert failed and all(texts[f.question_id] == broken for f in failed)
    refused = [qid for qid, text in texts.items() if text == chat]
    assert counts["no_call"] == {"total": len(refused), "missing": len(refused)} and refused
    assert counts["interfaces"] == {"tools": 12 - len({f.question_id for f in failed})}
    assert report["failed"] == len({f.question_id for f in failed})  # operational, never a wrong action
    assert all(b.get("tool_choice") == {"type": "function", "function": {"name": b["tools"][0]["function"]["name"]}}
               for b in loopback.requests if b.get("tools"))
    shown = invoke("question", report["run_id"], refused[0]).output
    assert "action (tools): no valid call (the reply makes no tool call (it answered in text))" in shown
    assert "attribution: no_call" in shown
    answered = next(e.question_id for e in events if e.type == "QuestionAnswered" and e.question_id not in refused)
    assert "attribution: " in invoke("question", report["run_id"], answered).output


def test_a_failed_call_is_resumed_into_an_action(release, loopback):
    broken = json.loads((release / "toolmembench_small" / "qa_dataset.jsonl").read_text().splitlines()[0])["query"]
    loopback.faults.always("503", role="agent", contains=f"Request:\n{broken}")
    _, report = _run(release, "--agent-model", "loopback-agent", "--base-url", loopback.base_url, "--question-limit",
                     "4", "--max-attempts", "1", expect=3)
    assert report["failed"] >= 1 and _actions(report)["groups"]["overall"]["n"] == 4 - report["failed"]
    loopback.faults.clear()
    resumed = invoke("resume", report["run_id"])
    assert resumed.exit_code == 0, resumed.output
    again = json.loads(invoke("show", report["run_id"], "--json").output)
    assert again["failed"] == 0 and _actions(again)["counts"]["interfaces"] == {"tools": 4}
