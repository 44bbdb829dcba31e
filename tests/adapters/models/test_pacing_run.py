"""A run at an endpoint that enforces a rate limit: through the openai SDK against the loopback
server's token buckets, which refuse with 429, Retry-After and the provider's rate-limit headers.

The adaptive scheduler reads those headers from every reply (`with_raw_response`) and waits for the
provider's budget; every question is still answered and judged, the refusals the server counted are
the ones the ledger records, and the scorecard shows the pacing line. The fixed pacing records the
same summary without ever moving its limit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.adapters.models.loopback_limits import RateLimit
from conftest import MINI
from ledger_cli import events_of, invoke


@pytest.fixture
def limited(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    # 8 requests a second, a burst of 8; tokens roomy enough that requests bind.
    with LoopbackOpenAI(limits=RateLimit(requests=8, tokens=100_000, per=1.0)) as srv:
        yield srv


def _run(server: LoopbackOpenAI, *options: str) -> dict:
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5", "--judge-model",
                    "gpt-5", "--base-url", server.base_url, "--backoff-base", "0.05", "--question-limit", "2", "--out", "r.json",
                    *options)
    assert result.exit_code == 0, result.output
    return {"report": json.loads(Path("r.json").read_text()), "output": result.output}


def test_an_adaptive_run_at_a_rate_limit_is_complete_and_records_its_pacing(limited):
    ran = _run(limited, "--concurrency", "16")
    report = ran["report"]
    assert report["failed"] == 0 and report["pending"] == 0 and report["total"] > 8
    (paced,) = [e for e in events_of(report["run_id"]) if e.type == "EndpointPaced"]
    assert paced.pacing == "adaptive" and paced.ceiling == 16
    assert paced.refused == limited.limits.refused  # every 429 the server gave was seen and counted
    assert paced.calls == limited.limits.admitted + limited.limits.refused
    assert paced.waited > 0  # the budget held calls back: the burst of 8 is smaller than the questions
    assert paced.peak_in_flight <= 16
    assert "pacing adaptive (ceiling 16, segment 1)" in ran["output"]
    assert f"{paced.refused} refused (429)" in ran["output"]


def test_a_fixed_run_never_moves_its_limit_and_says_so(limited):
    ran = _run(limited, "--concurrency", "2", "--pacing", "fixed")
    (paced,) = [e for e in events_of(ran["report"]["run_id"]) if e.type == "EndpointPaced"]
    assert paced.pacing == "fixed" and paced.final_limit == 2 and paced.cuts == 0
    assert paced.refused == limited.limits.refused
    assert "pacing fixed (ceiling 2, segment 1)" in ran["output"]


def test_an_offline_run_records_no_pacing():
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json")
    assert result.exit_code == 0, result.output
    run_id = json.loads(Path("r.json").read_text())["run_id"]
    assert not [e for e in events_of(run_id) if e.type == "EndpointPaced"]
    assert "pacing " not in result.output
