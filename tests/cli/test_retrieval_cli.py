"""`benchledger retrieval ...` through click's runner: text, JSON, and bad input as exit 2."""

from __future__ import annotations

import json

from benchledger.ledger.store import Ledger
from conftest import REPO
from ledger_cli import invoke

LME = REPO / "tests" / "fixtures" / "longmemeval" / "longmemeval_fixture.json"
MEMORA = REPO / "tests" / "fixtures" / "memora"


def test_locomo_json_has_the_metric_keys_and_the_run_is_on_the_ledger(shared_data, tmp_path) -> None:
    ledger_path = tmp_path / "cli.db"
    result = invoke("--ledger", str(ledger_path), "retrieval", "locomo",
                    str(shared_data / "locomo" / "locomo-dev.json"), "--memory", "bm25-reference",
                    "--k", "10", "--question-limit", "40", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"recall", "recall_all", "ndcg", "n", "by_category", "run_id"} <= set(data)
    assert data["n"] + data["excluded"] == 40 and data["k"] == 10
    assert data["excluded"] == 1  # conv-26:q30 has no evidence
    assert set(data["by_category"]) <= {"multi_hop", "temporal", "open_domain", "single_hop",
                                        "adversarial"}
    for scores in data["by_category"].values():
        assert set(scores) == {"recall", "recall_all", "ndcg", "n"}
    with Ledger.open(ledger_path) as ledger:
        events = ledger.reader.events(data["run_id"])
    assert events[0].event.config.memory == "bm25-reference"
    assert events[0].event.config.selection.question_limit == 40


def test_longmemeval_text_table(tmp_path) -> None:
    result = invoke("retrieval", "longmemeval", str(LME), "--memory", "sqlite", "--k", "3")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("run ") and "LongMemEval" in lines[0]
    assert lines[1].split() == ["category", "n", "recall@3", "recall_all@3", "ndcg@3"]
    overall = next(line for line in lines if line.split()[:1] == ["overall"])
    assert overall.split()[:2] == ["overall", "3"]
    assert any(line.split()[0] == "multi-session" for line in lines[3:lines.index(overall)] if line.strip())
    assert "evidence level: session" in result.stdout


def test_memora_runs_from_the_fixture_folder() -> None:
    result = invoke("retrieval", "memora", str(MEMORA), "--split", "weekly", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["n"] == 3 and set(data["by_category"]) == {"remembering", "reasoning", "recommending"}


def test_bad_release_is_one_line_and_exit_2(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"sample_id": "c", "conversation": {}, "qa": [
        {"question": "q", "answer": "a", "category": 9}]}], indent=1))
    result = invoke("retrieval", "locomo", str(bad), catch_exceptions=True)
    assert result.exit_code == 2
    assert "[0].qa[0].category" in result.output and "bad.json:" in result.output
    assert not (tmp_path / "ledger.db").exists()  # rejected before the ledger was opened


def test_unknown_memory_is_exit_2() -> None:
    result = invoke("retrieval", "longmemeval", str(LME), "--memory", "nope", catch_exceptions=True)
    assert result.exit_code == 2 and "unknown memory system 'nope'" in result.output


def test_every_retrieval_command_has_help() -> None:
    for sub in ("locomo", "longmemeval", "memora"):
        result = invoke("retrieval", sub, "--help")
        assert result.exit_code == 0 and "--memory" in result.output and "--k" in result.output
