"""`benchledger run longmemeval-v2` end to end: offline, and through the openai SDK against the loopback
server, with the reader and judge requests the official harness makes; an official abort becomes one
Failed question and the report says how the official run would have ended; the combination of a web
and an enterprise run gives the leaderboard point; rejudge, export and retrieval work as elsewhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.longmemeval_v2.aggregate import aggregate_metrics
from benchledger.adapters.benchmarks.longmemeval_v2.official import context_items
from benchledger.adapters.benchmarks.longmemeval_v2.prompts import load_templates
from benchledger.adapters.benchmarks.longmemeval_v2.reader import reader_messages, truncate
from benchledger.adapters.memory.protocol import Candidate
from ledger_cli import blob_text, conditions, events_of, invoke


@pytest.fixture
def release(shared_data) -> Path:
    return shared_data / "longmemeval-v2" / "synthetic"


@pytest.fixture
def prompts(shared_data) -> Path:
    return shared_data / "longmemeval-v2" / "prompts"


def _run(release, prompts, *args: str) -> tuple[object, dict]:
    result = invoke("run", "longmemeval-v2", str(release), "--prompts-dir", str(prompts), "--out", "r.json", *args)
    return result, json.loads(Path("r.json").read_text()) if Path("r.json").exists() else {}


def _section(report: dict, name: str = "longmemeval_v2.official") -> dict:
    return next(s for s in report["sections"] if s["name"] == name)


def test_an_offline_run_reports_the_official_aggregates_and_is_diagnostic(release, prompts):
    result, report = _run(release, prompts, "--domain", "web")
    assert result.exit_code == 0, result.output
    section = _section(report)
    overall = section["values"]["aggregated_metrics"]["overall"]
    judged = [e for e in events_of(report["run_id"]) if e.type == "Judged"]
    assert overall["count_all_questions"] == len(judged) == 23
    assert overall["overall_full_set"] == sum(e.score for e in judged) / 23
    assert "LAFS point: accuracy" in result.output and "offline" in result.output
    met = conditions(report)
    assert not met["official_release"] and not met["leaderboard_models"] and met["unsampled_questions"]


def test_reader_and_judge_requests_are_the_harness_ones(release, prompts, loopback):
    result, report = _run(release, prompts, "--domain", "web", "--agent-model", "Qwen/Qwen3.5-9B",
                          "--base-url", loopback.base_url)
    assert result.exit_code == 0, result.output
    templates = load_templates(prompts)
    bodies = list(loopback.requests)
    events = events_of(report["run_id"])
    planned = next(e for e in events if e.type == "QuestionsPlanned").questions
    questions = {q.question_id: q for q in planned}
    readers = [b for b in bodies if b["model"] == "Qwen/Qwen3.5-9B"]
    assert len(readers) == 23
    for recalled in (e for e in events if e.type == "ContextRecalled"):
        q = questions[recalled.question_id]
        candidates = [Candidate.model_validate(c) for c in json.loads(blob_text(recalled.candidates_hash))]
        cut = truncate(context_items(candidates, release), 200000, q.question_id)
        expected = reader_messages(templates, "web", cut.kept, q.text, q.extra["question_image"] or None)
        body = next(b for b in readers if b["messages"][1]["content"][-1] == expected[1]["content"][-1]
                    and b["messages"] == expected)
        assert {k: v for k, v in body.items() if k != "messages"} == {
            "model": "Qwen/Qwen3.5-9B", "max_tokens": 20000, "temperature": 0.6, "top_p": 0.95, "top_k": 20}
    assert any(part["type"] == "image_url" and part["image_url"]["url"].startswith("data:image/png;base64,")
               for b in readers for part in b["messages"][1]["content"])
    judges = [b for b in bodies if b["model"] == "gpt-5.2"]
    llm_checked = [q for q in planned if q.extra["eval_function"].startswith("llm_")]
    assert len(judges) == len(llm_checked) == 8  # the deterministic functions ask no model
    assert all(b["max_completion_tokens"] == 4096 and b["reasoning_effort"] == "medium" for b in judges)
    met = conditions(report)
    assert met["leaderboard_models"] and met["official_prompts"] and met["official_scorer"]
    assert met["zero_operational_failures"]
    assert not met["official_release"]


def test_an_unparseable_judge_reply_fails_that_question_and_says_how_the_official_run_ends(release, prompts, loopback):
    loopback.faults.always("reply", role="judge", text="The model answer is correct.", contains="Reorder")
    result, report = _run(release, prompts, "--domain", "web", "--agent-model", "Qwen/Qwen3.5-9B",
                          "--base-url", loopback.base_url)
    assert result.exit_code == 3
    failed = [e for e in events_of(report["run_id"]) if e.type == "Failed"]
    assert failed and all(e.error_class == "OfficialRunAbort" and e.stage == "judge" for e in failed)
    assert "Could not parse evaluator binary judgement" in failed[0].message
    section = _section(report)
    assert section["values"]["aggregated_metrics"]["overall"]["count_all_questions"] == 23 - len(failed)
    assert any("the official harness would have ended the whole run there" in line for line in section["lines"])
    assert not conditions(report)["zero_operational_failures"]


def test_an_empty_reader_reply_is_the_official_abort_for_that_question(release, prompts, loopback):
    loopback.faults.always("empty", role="agent", contains="packing slip")
    result, report = _run(release, prompts, "--domain", "web", "--agent-model", "Qwen/Qwen3.5-9B",
                          "--base-url", loopback.base_url, "--max-attempts", "1")
    assert result.exit_code == 3
    failed = [e for e in events_of(report["run_id"]) if e.type == "Failed"]
    assert [e.stage for e in failed] == ["answer"] and "Model returned empty text" in failed[0].message


def test_web_and_enterprise_combine_into_the_leaderboard_point(release, prompts, loopback):
    runs = []
    for domain in ("web", "enterprise"):
        result, report = _run(release, prompts, "--domain", domain, "--agent-model", "Qwen/Qwen3.5-9B",
                              "--base-url", loopback.base_url)
        assert result.exit_code == 0, result.output
        runs.append(report)
    combined = invoke("combine", runs[0]["run_id"], runs[1]["run_id"], "--json")
    assert combined.exit_code == 0, combined.output
    section = json.loads(combined.stdout)["combined"]
    totals = [_section(r)["values"]["aggregated_metrics"]["overall"] for r in runs]
    overall = section["values"]["combined_metrics"]["overall"]
    assert overall["count_all_questions"] == 41
    assert overall["overall_full_set"] == pytest.approx(
        sum(t["overall_full_set"] * t["count_all_questions"] for t in totals) / 41)
    assert section["values"]["lafs"]["tier"] == "small" and "gain" in section["lines"][-1]
    assert invoke("combine", runs[0]["run_id"], runs[0]["run_id"]).exit_code == 2


def test_rejudge_official_asks_no_reader_and_export_and_retrieval_work(release, prompts, loopback):
    result, report = _run(release, prompts, "--domain", "enterprise", "--agent-model", "Qwen/Qwen3.5-9B",
                          "--base-url", loopback.base_url)
    assert result.exit_code == 0, result.output
    readers_before = loopback.count(model="Qwen/Qwen3.5-9B")
    again = invoke("rejudge", report["run_id"], "--protocol", "official", "--base-url", loopback.base_url, "--json")
    assert again.exit_code == 0, again.output
    assert loopback.count(model="Qwen/Qwen3.5-9B") == readers_before
    rejudged = json.loads(again.stdout)
    assert _section(rejudged)["values"]["aggregated_metrics"]["overall"] == \
        _section(report)["values"]["aggregated_metrics"]["overall"]
    assert invoke("export", report["run_id"], "--format", "csv", "--out", "x.csv").exit_code == 0
    assert "errors-gotchas" in Path("x.csv").read_text()
    recall = invoke("retrieval", "longmemeval-v2", str(release), "--domain", "enterprise")
    assert recall.exit_code == 0, recall.output
    assert "evidence level: session" in recall.output


def test_the_aggregates_are_the_harness_rule_on_the_recorded_records(release, prompts):
    result, report = _run(release, prompts, "--domain", "web", "--tier", "medium")
    assert result.exit_code == 0, result.output
    events = events_of(report["run_id"])
    recalls = {e.question_id: e.latency_ms / 1000 for e in events if e.type == "ContextRecalled"}
    section = _section(report)["values"]["aggregated_metrics"]
    ordered = sorted(recalls.values())
    assert section["memory_query"]["p50_seconds"] == ordered[len(ordered) // 2]
    fingerprinted = next(e for e in events if e.type == "CorpusFingerprinted")
    assert len(fingerprinted.scopes) == 23  # the medium tier: one memory per question, as the harness builds it
    assert aggregate_metrics([])["overall"]["overall_full_set"] is None


def test_how_the_official_harness_ends_on_each_kind_of_failure():
    from benchledger.adapters.benchmarks.longmemeval_v2.report import official_ending
    assert "scored it 0" in official_ending("answer", "ModelError", "Qwen: HTTP 400: context length")
    assert "ended the whole run" in official_ending("answer", "ModelError", "Qwen: HTTP 401: unauthorized")
    assert "ended the whole run" in official_ending("judge", "OfficialRunAbort", "Could not parse")
    assert "no such stage" in official_ending("recall", "MemorySystemError", "store locked")


def test_an_image_outside_the_release_is_refused_before_anything_is_sent(release, prompts, loopback, tmp_path):
    copy = tmp_path / "release"
    import shutil

    shutil.copytree(release, copy)
    secret = tmp_path / "secret" / "id_rsa"
    secret.parent.mkdir()
    secret.write_bytes(b"-----BEGIN OPENSSH PRIVATE KEY-----\n")
    rows = [json.loads(line) for line in (copy / "questions.jsonl").read_text().splitlines() if line.strip()]
    qid = next(row["id"] for row in rows if row.get("image") and row["domain"] == "web")
    (copy / "questions.jsonl").write_text("".join(
        json.dumps({**row, "image": str(secret)} if row["id"] == qid else row) + "\n" for row in rows))
    result = invoke("run", "longmemeval-v2", str(copy), "--domain", "web", "--prompts-dir", str(prompts),
                    "--agent-model", "Qwen/Qwen3.5-9B", "--base-url", loopback.base_url)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and f"question {qid}: its image names {secret}" in result.output
    assert not list(loopback.requests) and not Path("ledger.db").exists()  # nothing was sent, nothing written
