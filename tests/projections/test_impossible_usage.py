"""An endpoint claiming a negative token count cannot take tokens off a report's sums.

The ledger keeps the claim as the endpoint made it (evidence of the endpoint); the report counts
such calls and leaves their tokens out, and an honest stage reads as it always has.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.values import Usage
from conftest import MINI
from ledger_cli import events_of, invoke_expecting


@pytest.fixture
def endpoint(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as srv:
        yield srv


def test_only_a_negative_count_is_impossible():
    assert not Usage().impossible and not Usage(prompt_tokens=1, completion_tokens=0).impossible
    assert Usage(prompt_tokens=-1).impossible and Usage(prompt_tokens=5, completion_tokens=-1).impossible


def _run(endpoint, ledger: str) -> dict:
    invoke_expecting("--ledger", ledger, "run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "2",
                     "--agent-model", "gpt-5", "--judge-model", "gpt-5", "--base-url", endpoint.base_url,
                     "--out", "r.json")
    return json.loads(Path("r.json").read_text())


def test_answers_claiming_negative_tokens_are_counted_and_their_tokens_left_out(endpoint, tmp_path):
    honest = _run(endpoint, "honest.db")["tokens_by_stage"]  # its own ledger: no reply is reused
    assert "impossible" not in honest["answer"] and "impossible" not in honest["judge"]

    endpoint.faults.always("usage", role="agent", text="-1000000,7")
    report = _run(endpoint, "ledger.db")
    answers = [e for e in events_of(report["run_id"]) if e.type == "QuestionAnswered"]
    assert answers and all(a.usage.prompt_tokens == -1_000_000 for a in answers)  # kept as claimed
    tokens = report["tokens_by_stage"]
    assert tokens["answer"] == {"calls": len(answers), "prompt_tokens": 0, "completion_tokens": 0,
                                "impossible": len(answers)}
    assert "impossible" not in tokens["judge"] and tokens["judge"]["prompt_tokens"] > 0
    shown = invoke_expecting("show", report["run_id"]).stdout
    assert f"answer 0 in / 0 out ({len(answers)} calls, {len(answers)} claiming negative tokens, left out)" in shown
