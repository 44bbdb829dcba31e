"""A retrieval run shows its recall metrics, is labelled in `runs`, and refuses answer-level commands."""

from __future__ import annotations

import json
from click.testing import CliRunner

from benchledger.cli.main import cli


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_retrieval_runs_show_metrics_and_refuse_answer_commands(shared_data):
    locomo = shared_data / "locomo" / "locomo-dev.json"
    made = invoke("retrieval", "locomo", str(locomo), "--memory", "sqlite", "--question-limit", "20", "--json")
    assert made.exit_code == 0, made.output
    recorded = json.loads(made.stdout)
    shown = json.loads(invoke("show", "latest", "--json").stdout)
    assert shown["mode"] == "retrieval"
    assert (shown["recall"], shown["ndcg"], shown["n"]) == (recorded["recall"], recorded["ndcg"], recorded["n"])
    assert "RETRIEVAL" in invoke("show", "latest").stdout
    assert " retrieval " in invoke("runs").stdout
    for args in (["resume", "latest"], ["rejudge", "latest"], ["agreement", "latest"],
                 ["export", "latest", "--format", "csv", "--out", "x.csv"]):
        result = invoke(*args)
        assert result.exit_code == 2 and "is a retrieval run" in result.output, args
        assert len(result.output.strip().splitlines()) == 1
