"""A retrieval run shows its recall metrics, is labelled in `runs`, and refuses answer-level commands
(resume, rejudge, agreement); diff, export and replay treat it as first class (test_retrieval_first_class)."""

from __future__ import annotations

import json

from ledger_cli import invoke


def test_retrieval_runs_show_metrics_and_refuse_answer_commands(shared_data):
    locomo = shared_data / "locomo" / "locomo-dev.json"
    made = invoke("retrieval", "locomo", str(locomo), "--memory", "sqlite", "--question-limit", "20", "--json")
    assert made.exit_code == 0, made.output
    recorded = json.loads(made.stdout)
    shown = json.loads(invoke("show", "latest", "--json").stdout)
    assert shown["mode"] == "retrieval"
    assert (shown["recall"], shown["ndcg"], shown["n"]) == (recorded["recall"], recorded["ndcg"], recorded["n"])
    assert "RETRIEVAL" in invoke("show", "latest").stdout
    [row] = [line for line in invoke("runs").stdout.splitlines() if line.startswith(recorded["run_id"])]
    assert "none (retrieval)" in row and f"recall@10 {recorded['recall']:.3f}" in row
    for args in (["resume", "latest"], ["rejudge", "latest"], ["agreement", "latest"]):
        result = invoke(*args)
        assert result.exit_code == 2 and "is a retrieval run" in result.output, args
        assert len(result.output.strip().splitlines()) == 1
