"""`run ... --dry-run`: a forecast of calls and tokens per stage from the run's own models and prompts,
dollars from a price table, nothing asked and nothing written; set beside the same run's actual tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.orchestration.forecast import Forecast
from benchledger.orchestration.prices import read_prices
from benchledger.projections.prices import Price, PriceTable
from benchledger.adapters.models.forecast_client import StageCount
from benchledger.errors import BadInput
from conftest import MINI
from ledger_cli import events_of, invoke

MODELS = ("--agent-model", "gpt-5", "--judge-model", "gpt-5")


def _table(output: str) -> dict[str, list[int]]:
    """stage -> [calls, prompt tokens, completion tokens] from the forecast table."""
    rows = {}
    for line in output.splitlines():
        cells = line.split()
        if cells and cells[0] in ("answer", "judge", "total") and cells[-1].replace(",", "").isdigit():
            rows[cells[0]] = [int(c.replace(",", "")) for c in cells[-3:]]
    return rows


def test_a_dry_run_asks_nothing_writes_nothing_and_forecasts_the_run_it_precedes(loopback, tmp_path):
    dry = invoke("run", "groupmem", str(MINI), "--domain", "Demo", *MODELS, "--base-url", loopback.base_url,
                 "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert loopback.count() == 0  # nothing was asked, not even the probe
    assert not list(Path.cwd().glob("*.db")) and not (tmp_path / "ledger.db").exists()
    forecast = _table(dry.output)
    assert "forecast for 40 question(s)" in dry.output

    real = invoke("run", "groupmem", str(MINI), "--domain", "Demo", *MODELS, "--base-url", loopback.base_url,
                  "--out", "r.json")
    assert real.exit_code == 0, real.output
    actual = json.loads(Path("r.json").read_text())["tokens_by_stage"]
    for stage in ("answer", "judge"):
        assert forecast[stage][0] == actual[stage]["calls"] == 40  # one answer and one verdict a question
        ratio = forecast[stage][1] / actual[stage]["prompt_tokens"]
        assert 0.5 < ratio < 2.0, (stage, forecast[stage], actual[stage])  # the stand-in context is typical
    assert "forecast: answer 40 calls" in real.output  # the real run says it first
    report = json.loads(Path("r.json").read_text())
    (recorded,) = [e for e in events_of(report["run_id"]) if e.type == "RunForecast"]
    assert [recorded.stages[s].prompt_tokens for s in ("answer", "judge")] == \
        [forecast["answer"][1], forecast["judge"][1]]  # the same figures the dry run printed
    assert report["forecast_by_stage"]["answer"]["calls"] == 40
    assert f"[forecast {forecast['answer'][1]:,} in / at most {forecast['answer'][2]:,} out, 40 calls]" in real.output


def test_an_offline_run_records_no_forecast():
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json")
    assert result.exit_code == 0, result.output
    run_id = json.loads(Path("r.json").read_text())["run_id"]
    assert not [e for e in events_of(run_id) if e.type == "RunForecast"]
    assert "forecast:" not in result.output


def test_an_offline_dry_run_forecasts_no_calls():
    dry = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert _table(dry.output)["total"] == [0, 0, 0]


def test_dollars_are_the_price_table_applied_to_each_model_s_tokens():
    forecast = Forecast(questions=2, stages={
        "answer": StageCount(calls=2, prompt_tokens=3_000, completion_tokens=1_000,
                             by_model={"gpt-5": [2, 3_000, 1_000]}),
        "judge": StageCount(calls=2, prompt_tokens=500, completion_tokens=100, by_model={"judge-x": [2, 500, 100]}),
    })
    costs = forecast.costs(PriceTable(prices={"gpt-5": Price(input=1.25, output=10.0)}, path="p.json", sha256="0" * 64))
    assert costs.total == pytest.approx((3_000 * 1.25 + 1_000 * 10.0) / 1e6)
    assert costs.not_priced == ["judge-x"]  # never priced as free
    assert [(row.stage, row.calls) for row in costs.rows] == [("answer", 2), ("judge", 2)]


def test_a_priced_dry_run_says_the_cost(tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"offline-extractive/1": {"input": 0, "output": 0}}))
    dry = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--dry-run", "--prices", str(prices))
    assert dry.exit_code == 0, dry.output
    assert "cost at most $0.00" in dry.output


@pytest.mark.parametrize(("text", "said"), [
    ('{"gpt-5": {"input": 1.25}}', "field 'gpt-5.output'"),
    ('{"gpt-5": {"input": -1, "output": 2}}', "field 'gpt-5.input'"),
    ('{"gpt-5": {"input": 1, "output": 2, "cached": 0.1}}', "field 'gpt-5.cached'"),
    ('{"gpt-5": ', ":1: not valid JSON"),
])
def test_a_bad_price_table_is_one_line_naming_the_file_and_field(tmp_path, text, said):
    prices = tmp_path / "prices.json"
    prices.write_text(text)
    with pytest.raises(BadInput) as caught:
        read_prices(prices)
    assert str(prices) in str(caught.value) and said in str(caught.value)
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--dry-run", "--prices", str(prices))
    assert result.exit_code == 2 and said in result.output
