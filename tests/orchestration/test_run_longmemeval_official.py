"""`benchledger run longmemeval` under the official protocol, through the openai SDK against the
loopback server: the reader and judge requests exactly as the official code makes them, the labels
read as it reads them, `print_qa_metrics` in the report, and the official retrieval metrics of a
retrieval run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.longmemeval.corpus_ids import haystack_corpus
from benchledger.adapters.benchmarks.longmemeval.judge import judge_label, judge_request
from benchledger.adapters.benchmarks.longmemeval.prompts import load_templates
from benchledger.adapters.benchmarks.longmemeval.qa_metrics import QaLabel, print_qa_metrics, qa_metrics
from benchledger.adapters.benchmarks.longmemeval.reader import Chunk, ReaderSettings, reader_prompt
from benchledger.adapters.benchmarks.longmemeval.retrieval_metrics import metrics_for_question
from benchledger.adapters.benchmarks.longmemeval.retrieval_printout import print_retrieval_metrics
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.ledger.store import Ledger
from conftest import REPO
from ledger_cli import events_of, invoke

FIXTURE = REPO / "tests" / "fixtures" / "longmemeval" / "longmemeval_fixture.json"


@pytest.fixture
def prompts(shared_data) -> Path:
    return shared_data / "longmemeval" / "prompts"


def test_reader_and_judge_requests_are_the_official_ones(prompts, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        result = invoke("run", "longmemeval", str(FIXTURE), "--prompts-dir", str(prompts), "--agent-model",
                        "loopback-agent", "--base-url", server.base_url, "--k", "4", "--out", "r.json")
        assert result.exit_code == 0, result.output
        bodies = list(server.requests)
    report = json.loads(Path("r.json").read_text())
    templates = load_templates(prompts)
    released = {item["question_id"]: item for item in json.loads(FIXTURE.read_text())}
    events = events_of(report["run_id"])
    answers = {e.question_id: e.answer for e in events if e.type == "QuestionAnswered"}
    for recalled in (e for e in events if e.type == "ContextRecalled"):
        item = released[recalled.question_id]
        chunks = []
        for recalled_item in recalled.items:  # each recalled turn and the turn after it
            session, turn = (int(part) for part in recalled_item.doc_id.removeprefix("session_").split(":"))
            pair = item["haystack_sessions"][session][turn: turn + 2]
            chunks.append(Chunk(item["haystack_dates"][session],
                                [{"role": t["role"], "content": t["content"]} for t in pair]))
        prompt = reader_prompt(chunks, item, ReaderSettings("flat-turn", 10**6), templates)
        body = next(b for b in bodies if b["messages"] == [{"role": "user", "content": prompt}])
        assert (body["model"], body["max_tokens"], body["temperature"], body["n"]) == ("loopback-agent", 800, 0, 1)
        judge = judge_request(templates, item, answers[recalled.question_id]).create_kwargs()
        assert judge in [b for b in bodies if b["model"] == "gpt-4o-2024-08-06"]  # the official judge by default
    with Ledger.open(Path("ledger.db")) as ledger:
        labels = [QaLabel(e.question_id, released[e.question_id]["question_type"],
                          judge_label(ledger.reader.get_blob(e.raw_hash).decode()), "gpt-4o-2024-08-06")
                  for e in events if e.type == "Judged"]
    section = next(s for s in report["sections"] if s["name"] == "longmemeval.qa")
    printed = print_qa_metrics(qa_metrics(labels)).strip("\n").split("\n")
    assert section["lines"][: len(printed)] == printed and section["official"]
    # Every condition holds but two: the fixture is a few questions, not the 500 of a fetched file, and
    # the loopback server is not a provider's API.
    unmet = {c["name"]: c["reason"] for c in report["conditions"] if not c["met"]}
    assert report["status"] == "diagnostic" and set(unmet) == {"official_release", "provider_endpoint"}, unmet
    assert f"{report['total']} of 500 LongMemEval questions" in unmet["official_release"]


def test_a_judge_reply_with_yes_anywhere_is_correct(prompts, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        server.faults.always("reply", role="judge", text="Eyes closed: no")
        result = invoke("run", "longmemeval", str(FIXTURE), "--prompts-dir", str(prompts), "--agent-model",
                        "loopback-agent", "--judge-model", "loopback-judge", "--base-url", server.base_url,
                        "--out", "r.json")
        assert result.exit_code == 0, result.output
    report = json.loads(Path("r.json").read_text())
    assert report["correct"] == 3  # 'yes' inside "Eyes": the official substring rule (quirk 15)
    assert report["status"] == "diagnostic"
    reason = next(c["reason"] for c in report["conditions"] if c["name"] == "official_judges")
    assert "loopback-judge" in reason and "gpt-4o-2024-08-06" in reason


def test_a_retrieval_run_reports_the_official_retrieval_metrics(tmp_path):
    released = json.loads(FIXTURE.read_text())
    for item in released:  # the official indexer wants every user turn of an answer session labelled
        for session_id, turns in zip(item["haystack_session_ids"], item["haystack_sessions"]):
            for turn in turns:
                if "answer" in session_id and turn["role"] == "user":
                    turn.setdefault("has_answer", False)
    labelled = tmp_path / "labelled.json"
    labelled.write_text(json.dumps(released))
    result = invoke("retrieval", "longmemeval", str(labelled), "--k", "5", "--json")
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    events = events_of(metrics["run_id"])
    entries = []
    for recalled in (e for e in events if e.type == "ContextRecalled"):
        item = next(i for i in released if i["question_id"] == recalled.question_id)
        corpus = haystack_corpus(item["haystack_session_ids"], item["haystack_sessions"], "turn")
        places = [tuple(int(p) for p in r.doc_id.removeprefix("session_").split(":")) for r in recalled.items
                  if item["haystack_sessions"][int(r.doc_id.split(":")[0].removeprefix("session_"))]
                  [int(r.doc_id.split(":")[1])]["role"] == "user"]
        entries.append((item["question_id"], metrics_for_question(corpus.rankings(places), corpus.correct_docs,
                                                                  corpus.ids, "turn")))
    official = metrics["official"]
    assert official["questions"] == 3 and official["not_scored"] == 0
    assert official["lines"][:4] == print_retrieval_metrics(entries).rstrip("\n").split("\n")
    shown = invoke("show", metrics["run_id"]).output
    assert "Session-level metrics:" in shown and "Turn-level metrics:" in shown
    # the fixture as released leaves a user turn of an answer session unlabelled: counted, not scored
    plain = json.loads(invoke("retrieval", "longmemeval", str(FIXTURE), "--json").stdout)
    assert plain["official"]["not_scored"] >= 1


def test_an_offline_official_run_keeps_its_templates_so_rescoring_needs_no_files(prompts, tmp_path):
    release = tmp_path / "release"
    release.mkdir()
    shutil.copy(FIXTURE, release / "lme.json")
    shutil.copytree(prompts, release / "prompts")  # the default: prompts/ beside the release file
    result = invoke("run", "longmemeval", str(release / "lme.json"), "--out", "r.json")
    assert result.exit_code == 0, result.output
    run_id = json.loads(Path("r.json").read_text())["run_id"]
    started = next(e for e in events_of(run_id) if e.type == "RunStarted")
    assert started.config.settings.prompts_dir == release / "prompts"
    assert len(started.config.prompt_hashes) == 16  # every official template, though offline models fill none
    shutil.rmtree(release / "prompts")
    rescored = invoke("rejudge", run_id, "--protocol", "official")
    assert rescored.exit_code == 0, rescored.output
    assert [e.method for e in events_of(run_id) if e.type == "ScorerStarted"] == ["longmemeval-judge"] * 2
