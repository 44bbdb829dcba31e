"""Dollars from a price table the reader gives: read once, checked line by line, never recorded.

The table turns the tokens a run recorded (answer, judge, the memory's own calls per stage) into
dollars per stage and model; a model it does not hold is named and left out, never priced as 0;
a malformed table is one line naming file, line and field (exit 2) before anything is written;
and nothing of it reaches the ledger, so `verify` and the saved views are the same with or without it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

import pytest

from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.errors import BadInput
from benchledger.ledger.events import Judged, QuestionAnswered
from benchledger.orchestration.prices import read_prices
from benchledger.projections.prices import Call, Price, PriceTable, cost_lines, price_calls, run_costs, usd
from benchledger.projections.state import fold_run
from benchledger.values import Usage
from conftest import MINI, requires_extra
from events_factory import config, stored, stream
from ledger_cli import events_of, invoke, invoke_expecting

needs_mem0 = requires_extra("mem0", "mem0")

TABLE = """{
  "gpt-5": {"input": 1.25, "output": 10.0},
  "gpt-4.1-nano": {
    "input": 0.1,
    "output": 0.4
  }
}
"""


def _table(prices: dict[str, tuple[float, float]]) -> PriceTable:
    return PriceTable(prices={m: Price(input=i, output=o) for m, (i, o) in prices.items()}, path="p.json",
                      sha256="0" * 64)


def test_a_table_is_read_with_the_hash_of_the_bytes_read(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(TABLE)
    table = read_prices(path)
    assert table.prices["gpt-4.1-nano"] == Price(input=0.1, output=0.4)
    assert table.sha256 == hashlib.sha256(TABLE.encode()).hexdigest() and table.path == str(path)


@pytest.mark.parametrize(("text", "where", "said"), [
    (TABLE.replace('"input": 0.1', '"input": -0.1'), ":4: field 'gpt-4.1-nano.input'", "greater than or equal to 0"),
    (TABLE.replace('"output": 0.4', '"output": "cheap"'), ":5: field 'gpt-4.1-nano.output'", "valid number"),
    (TABLE.replace('"input": 0.1,', '"input": 0.1, "cached": 0.01,'), ":4: field 'gpt-4.1-nano.cached'", "Extra"),
    (TABLE.replace('    "output": 0.4\n', '    "outptu": 0.4\n'), ":5: field 'gpt-4.1-nano.outptu'", "Extra"),
    (TABLE.replace('{"input": 1.25, "output": 10.0}', '{"input": 1.25}'), ":2: field 'gpt-5.output'", "required"),
    (TABLE.replace('{"input": 1.25, "output": 10.0}', '3'), ":2: field 'gpt-5'", "valid dictionary"),
    (TABLE.replace("1.25", "NaN"), ":2: field 'gpt-5.input'", "finite number"),
    (TABLE.replace("1.25", "Infinity"), ":2: field 'gpt-5.input'", "finite number"),
    ("[1, 2]", ":1:", "non-empty JSON object"),
    ("{}", ":1:", "non-empty JSON object"),
    (TABLE.replace('"output": 0.4', '"output": 0.4,'), ":6:", "not valid JSON"),
])
def test_a_bad_table_is_one_line_naming_file_line_and_field(tmp_path, text, where, said):
    path = tmp_path / "prices.json"
    path.write_text(text)
    with pytest.raises(BadInput) as caught:
        read_prices(path)
    assert f"{path}{where}" in str(caught.value) and said in str(caught.value), str(caught.value)


def test_a_missing_table_names_the_file(tmp_path):
    with pytest.raises(BadInput, match="prices.json: file not found"):
        read_prices(tmp_path / "prices.json")


def test_a_priced_model_costs_its_tokens_and_an_unpriced_one_is_named_never_free():
    calls = [Call("answer", ("gpt-5",), Usage(prompt_tokens=2_000, completion_tokens=100)),
             Call("answer", ("gpt-5",), Usage(prompt_tokens=1_000, completion_tokens=300)),
             Call("judge", ("judge-x",), Usage(prompt_tokens=500, completion_tokens=10))]
    costs = price_calls(calls, _table({"gpt-5": (1.25, 10.0)}))
    answer, judge = costs.rows
    assert (answer.calls, answer.prompt_tokens, answer.completion_tokens) == (2, 3_000, 400)
    assert answer.dollars == pytest.approx((3_000 * 1.25 + 400 * 10.0) / 1e6)
    assert judge.dollars is None and costs.not_priced == ["judge-x"]
    assert costs.total == pytest.approx(answer.dollars)  # the unpriced tokens are left out, not priced at 0
    priced_too = price_calls(calls, _table({"gpt-5": (1.25, 10.0), "judge-x": (0.0, 0.0)}))
    assert priced_too.not_priced == [] and priced_too.rows[1].dollars == 0.0  # a free model the table names


def test_a_call_is_priced_under_the_name_asked_then_the_name_reported():
    call = Call("memory build", ("gpt-4.1-nano", "gpt-4.1-nano-2025-04-14"), Usage(prompt_tokens=10_000))
    (by_asked,) = price_calls([call], _table({"gpt-4.1-nano": (0.1, 0.4), "gpt-4.1-nano-2025-04-14": (9, 9)})).rows
    assert (by_asked.model, by_asked.dollars) == ("gpt-4.1-nano", pytest.approx(0.001))
    (by_reported,) = price_calls([call], _table({"gpt-4.1-nano-2025-04-14": (0.2, 0.4)})).rows
    assert (by_reported.model, by_reported.dollars) == ("gpt-4.1-nano-2025-04-14", pytest.approx(0.002))
    (neither,) = price_calls([call], _table({"gpt-5": (1, 1)})).rows
    assert (neither.model, neither.dollars) == ("gpt-4.1-nano", None)


def test_a_run_s_answers_and_verdicts_are_priced_under_the_models_asked_before_the_ones_reported():
    """Both names in the table at different prices: the run's own answers and verdicts (not only a
    memory's calls) take the price of the model the run asked for."""
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=0)
    events = [e.model_copy(update={"model": "gpt-5-2025-08-07", "usage": usage})
              if isinstance(e, QuestionAnswered) else
              e.model_copy(update={"model": "judge-2025", "usage": usage}) if isinstance(e, Judged) else e
              for e in stream({"q1": ("temporal", "correct"), "q2": ("temporal", "incorrect")},
                              cfg=config(agent_model="gpt-5", judge_model="judge"))]
    state = fold_run("r", stored(events))
    both = _table({"gpt-5": (1.0, 0.0), "gpt-5-2025-08-07": (50.0, 0.0), "judge": (2.0, 0.0), "judge-2025": (70.0, 0.0)})
    rows = {row.stage: (row.model, row.dollars) for row in run_costs(state, both).rows}
    assert rows == {"answer": ("gpt-5", pytest.approx(2.0)), "judge": ("judge", pytest.approx(4.0))}
    reported_only = _table({"gpt-5-2025-08-07": (50.0, 0.0), "judge-2025": (70.0, 0.0)})
    rows = {row.stage: (row.model, row.dollars) for row in run_costs(state, reported_only).rows}
    assert rows == {"answer": ("gpt-5-2025-08-07", pytest.approx(100.0)), "judge": ("judge-2025", pytest.approx(140.0))}


def test_an_endpoint_claiming_negative_tokens_cannot_take_dollars_off_the_total():
    calls = [Call("memory build", ("gpt-5",), Usage(prompt_tokens=1_000_000, completion_tokens=0)),
             Call("memory build", ("gpt-5",), Usage(prompt_tokens=-5_000_000, completion_tokens=10))]
    costs = price_calls(calls, _table({"gpt-5": (1.0, 1.0)}))
    (row,) = costs.rows
    assert (row.calls, row.prompt_tokens, row.completion_tokens, row.negative) == (2, 1_000_000, 0, 1)
    assert costs.total == pytest.approx(1.0)  # the honest call's dollar, nothing subtracted
    assert "1 call(s) reported a negative token count" in "\n".join(cost_lines(costs))


def test_dollars_under_a_cent_keep_their_digits():
    assert (usd(0.000342), usd(0.0193), usd(0.0), usd(1234.5)) == ("$0.000342", "$0.0193", "$0.0000", "$1,234.5000")


def test_tokens_zero_cost_nothing_at_any_price_and_are_counted_as_unreported():
    calls = [Call("answer", ("offline-extractive/1",), Usage()), Call("answer", ("offline-extractive/1",), Usage())]
    (row,) = price_calls(calls, _table({"gpt-5": (1, 1)})).rows
    assert (row.dollars, row.no_usage) == (0.0, 2)  # not named as unpriced: nothing to price
    (one_token,) = price_calls([Call("answer", ("offline-extractive/1",), Usage(completion_tokens=1))],
                               _table({"gpt-5": (1, 1)})).rows
    assert one_token.dollars is None and one_token.no_usage == 0


@pytest.fixture
def endpoint(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    monkeypatch.setenv("MEMORY_KEY", "sk-memory-loopback-0000")
    with LoopbackOpenAI() as srv:
        yield srv


def _cost_rows(output: str) -> dict[tuple[str, str], str]:
    """(stage, model) -> the USD cell of the cost table a report printed."""
    rows, inside = {}, False
    for line in output.splitlines():
        inside = inside or line.startswith("  cost at the prices in")
        cells = line.split()
        if inside and len(cells) >= 6 and cells[-1].startswith(("$", "priced")):
            stage = " ".join(cells[:2]) if cells[0] == "memory" else cells[0]
            model = cells[2] if cells[0] == "memory" else cells[1]
            rows[(stage, model)] = "not priced" if cells[-1] == "priced" else cells[-1]
    return rows


def test_a_bad_table_stops_run_retrieval_and_show_before_anything_is_written(tmp_path, shared_data):
    bad = tmp_path / "prices.json"
    bad.write_text('{\n  "gpt-5": {"input": 1, "output": -2}\n}\n')
    said = f"{bad}:2: field 'gpt-5.output'"
    for args in (["run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1"],
                 ["retrieval", "locomo", str(shared_data / "locomo" / "locomo-dev.json"), "--question-limit", "1"]):
        result = invoke(*args, "--prices", str(bad))
        assert result.exit_code == 2 and result.stdout == "" and result.stderr.splitlines() == [
            next(line for line in result.stderr.splitlines() if said in line)], result.output
        assert not (tmp_path / "ledger.db").exists()
    invoke_expecting("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1")
    ledger = (tmp_path / "ledger.db").read_bytes()
    shown = invoke("show", "latest", "--prices", str(bad))
    assert shown.exit_code == 2 and said in shown.stderr and shown.stdout == ""
    assert (tmp_path / "ledger.db").read_bytes() == ledger


def test_a_run_s_answer_and_judge_tokens_are_priced_and_the_table_is_never_recorded(endpoint, tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(TABLE)
    run = invoke_expecting("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1",
                           "--agent-model", "gpt-5", "--judge-model", "gpt-5", "--base-url", endpoint.base_url,
                           "--prices", str(prices), "--out", "r.json")
    report = json.loads(Path("r.json").read_text())
    digest = hashlib.sha256(TABLE.encode()).hexdigest()
    assert report["costs"]["price_table"] == {"path": str(prices), "sha256": digest}
    tokens = report["tokens_by_stage"]
    expected = {stage: (tokens[stage]["prompt_tokens"] * 1.25 + tokens[stage]["completion_tokens"] * 10) / 1e6
                for stage in ("answer", "judge")}
    assert report["costs"]["by_stage_usd"] == pytest.approx(expected) and all(expected.values())
    printed = _cost_rows(run.stdout)
    assert printed == {(stage, "gpt-5"): usd(dollars) for stage, dollars in expected.items()}
    assert f"{prices} (sha256 {digest[:16]})" in run.stdout

    cheaper = tmp_path / "cheaper.json"
    cheaper.write_text(json.dumps({"gpt-5": {"input": 0.5, "output": 1.0}}))
    run_id = report["run_id"]
    with_table = json.loads(invoke_expecting("show", run_id, "--json", "--prices", str(cheaper)).stdout)
    without = json.loads(invoke_expecting("show", run_id, "--json").stdout)
    assert with_table.pop("costs")["total_usd"] < report["costs"]["total_usd"]
    assert with_table == without  # the report itself does not depend on the table
    recorded = json.dumps([e.model_dump(mode="json") for e in events_of(run_id)])
    assert digest not in recorded and "prices.json" not in recorded and "cheaper" not in recorded
    ledger = (tmp_path / "ledger.db").read_bytes()
    assert b"prices.json" not in ledger and digest.encode() not in ledger
    assert invoke("verify", run_id).exit_code == 0


def _priced_mem0_run(endpoint, tmp_path):
    """A one-question GroupMemBench mini run with mem0 (inference on, per session) through the
    loopback, priced at TABLE: the CLI result and its report."""
    prices = tmp_path / "prices.json"
    prices.write_text(TABLE)
    run = invoke_expecting("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1",
                           "--memory", "mem0", "--memory-option", "infer=true", "--memory-option",
                           "granularity=session", "--memory-base-url", endpoint.base_url, "--memory-key-env",
                           "MEMORY_KEY", "--agent-model", "gpt-5", "--judge-model", "gpt-5", "--base-url",
                           endpoint.base_url, "--prices", str(prices), "--out", "r.json")
    return run, json.loads(Path("r.json").read_text())


@needs_mem0
def test_the_memory_s_own_calls_are_priced_per_stage_and_an_unpriced_embedder_is_named(endpoint, tmp_path):
    run, report = _priced_mem0_run(endpoint, tmp_path)
    calls = [e for e in events_of(report["run_id"]) if e.type == "MemoryModelCalled"]
    chat = [c for c in calls if c.stage == "build" and c.endpoint == "chat"]
    assert chat and {c.model_asked for c in chat} == {"gpt-4.1-nano"}
    expected = sum(c.usage.prompt_tokens * 0.1 + c.usage.completion_tokens * 0.4 for c in chat) / 1e6
    rows = {(r["stage"], r["model"]): r for r in report["costs"]["rows"]}
    assert rows[("memory build", "gpt-4.1-nano")]["dollars"] == pytest.approx(expected) and expected > 0
    assert rows[("memory build", "gpt-4.1-nano")]["calls"] == len(chat)
    embedder = rows[("memory build", "text-embedding-3-small")]
    assert embedder["dollars"] is None and embedder["prompt_tokens"] > 0
    assert rows[("memory recall", "text-embedding-3-small")]["dollars"] is None
    assert report["costs"]["not_priced"] == ["text-embedding-3-small"]
    assert "not priced (not in the table; their tokens are left out of the total): text-embedding-3-small" \
        in run.stdout
    assert _cost_rows(run.stdout)[("memory build", "gpt-4.1-nano")] == usd(expected)


@needs_mem0
def test_a_retrieval_run_prices_the_memory_s_embeddings_and_show_prices_it_again(endpoint, tmp_path, shared_data):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"text-embedding-3-small": {"input": 0.02, "output": 0}}))
    result = invoke_expecting("retrieval", "locomo", str(shared_data / "locomo" / "locomo-dev.json"),
                              "--conversations", "conv-26", "--question-limit", "3", "--memory", "mem0",
                              "--memory-option", "infer=false", "--memory-base-url", endpoint.base_url,
                              "--memory-key-env", "MEMORY_KEY", "--prices", str(prices), "--json")
    value = json.loads(result.stdout)
    calls = [e for e in events_of(value["run_id"]) if e.type == "MemoryModelCalled"]
    assert calls and {c.endpoint for c in calls} == {"embeddings"}
    by_stage: dict[str, float] = {}
    for call in calls:
        by_stage[f"memory {call.stage}"] = by_stage.get(f"memory {call.stage}", 0.0) + call.usage.prompt_tokens * 0.02 / 1e6
    assert value["costs"]["by_stage_usd"] == pytest.approx(by_stage) and value["costs"]["not_priced"] == []
    assert "costs" not in value["memory_calls"]  # the metrics the run saved hold no dollar
    shown = invoke_expecting("show", value["run_id"], "--prices", str(prices)).stdout
    assert "cost at the prices in" in shown and usd(sum(by_stage.values())) in shown
    assert invoke("verify", value["run_id"]).exit_code == 0


def _usd(cell: str) -> float:
    return float(cell.split()[0].lstrip("$").replace(",", ""))


@needs_mem0
def test_compare_prices_each_run_and_its_memory_s_own_calls(endpoint, tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(TABLE)
    common = ("--domain", "Demo", "--question-limit", "1", "--agent-model", "gpt-5", "--judge-model", "gpt-5",
              "--base-url", endpoint.base_url)
    invoke_expecting("run", "groupmem", str(MINI), *common, "--memory", "sqlite", "--out", "sqlite.json")
    invoke_expecting("run", "groupmem", str(MINI), *common, "--memory", "mem0", "--memory-option", "infer=true",
                     "--memory-option", "granularity=session", "--memory-base-url", endpoint.base_url,
                     "--memory-key-env", "MEMORY_KEY", "--out", "mem0.json")
    runs = {name: json.loads(Path(f"{name}.json").read_text())["run_id"] for name in ("sqlite", "mem0")}
    costs = {name: json.loads(invoke_expecting("show", run_id, "--json", "--prices", str(prices)).stdout)["costs"]
             for name, run_id in runs.items()}
    table = invoke_expecting("compare", runs["sqlite"], runs["mem0"], "--allow-differences", "--prices", str(prices),
                             "--format", "csv").stdout
    rows = {r["run_id"]: r for r in csv.DictReader(io.StringIO(table)) if r["kind"] == "overall"}
    for name, run_id in runs.items():
        memory = sum(usd for stage, usd in costs[name]["by_stage_usd"].items() if stage.startswith("memory "))
        assert float(rows[run_id]["usd"]) == pytest.approx(costs[name]["total_usd"]) and costs[name]["total_usd"] > 0
        assert float(rows[run_id]["memory_usd"]) == pytest.approx(memory)
        assert rows[run_id]["price_table_sha256"] == hashlib.sha256(TABLE.encode()).hexdigest()
    assert float(rows[runs["mem0"]]["memory_usd"]) > 0 == float(rows[runs["sqlite"]]["memory_usd"])
    assert (rows[runs["mem0"]]["not_priced"], rows[runs["sqlite"]]["not_priced"]) == ("text-embedding-3-small", "")

    markdown = invoke_expecting("compare", runs["sqlite"], runs["mem0"], "--allow-differences", "--prices",
                                str(prices), "--format", "markdown").stdout
    (mem0_line,) = [line for line in markdown.splitlines() if line.startswith(f"| {runs['mem0']} ")]
    assert f"{usd(costs['mem0']['total_usd'])} + not priced: text-embedding-3-small" in mem0_line
    memory_usd = sum(v for stage, v in costs["mem0"]["by_stage_usd"].items() if stage.startswith("memory "))
    assert f"| {usd(memory_usd)} + not priced: text-embedding-3-small |" in mem0_line  # the memory's own share too
    assert costs["mem0"]["not_priced_by_stage"] == {"memory build": ["text-embedding-3-small"],
                                                    "memory recall": ["text-embedding-3-small"]}
    assert costs["sqlite"]["not_priced_by_stage"] == {}
    assert f"Dollars at the prices in {prices}" in markdown
    unpriced = invoke_expecting("compare", runs["sqlite"], runs["mem0"], "--allow-differences",
                                "--format", "markdown").stdout
    (header,) = [line for line in unpriced.splitlines() if line.startswith("| run |")]
    assert "USD" not in header and "No price table was given" in unpriced
    assert "USD (answer + judge + memory) | memory USD" in markdown
    bad = tmp_path / "bad.json"
    bad.write_text('{"gpt-5": {"input": 1}}')
    refused = invoke("compare", runs["sqlite"], runs["mem0"], "--allow-differences", "--prices", str(bad))
    assert refused.exit_code == 2 and f"{bad}:1: field 'gpt-5.output'" in refused.stderr and refused.stdout == ""


@needs_mem0
def test_a_memory_endpoint_claiming_negative_tokens_is_left_out_not_subtracted(endpoint, tmp_path):
    endpoint.faults.always("usage", role="other", text="-50000000,0")  # every chat call of mem0's claims -50M
    run, report = _priced_mem0_run(endpoint, tmp_path)
    chat = [e for e in events_of(report["run_id"]) if e.type == "MemoryModelCalled" and e.endpoint == "chat"]
    assert chat and all(c.usage.prompt_tokens == -50_000_000 for c in chat)  # recorded as the endpoint said
    rows = {(r["stage"], r["model"]): r for r in report["costs"]["rows"]}
    nano = rows[("memory build", "gpt-4.1-nano")]
    assert (nano["negative"], nano["prompt_tokens"], nano["dollars"]) == (len(chat), 0, 0.0)
    answer_and_judge = sum(report["costs"]["by_stage_usd"][s] for s in ("answer", "judge"))
    assert report["costs"]["total_usd"] == pytest.approx(answer_and_judge) and answer_and_judge > 0
    assert f"{len(chat)} call(s) reported a negative token count: their tokens are left out" in run.stdout
