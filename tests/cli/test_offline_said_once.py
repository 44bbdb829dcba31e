"""Offline is said, once: a run without real models says first that it is the offline deterministic
baseline, and how to ask a real model; its card says so under its status; and a card carries one
headline number, the benchmark's own.

A run with a real model (the loopback endpoint) says none of it. A benchmark whose number is its own
(Mem2ActBench's argument F1 here) shows it as the one headline, and its kind table counts questions
with no second percentage beside it; a benchmark whose number is accuracy keeps its accuracy table.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchledger.projections.scorecard import offline_note
from conftest import MINI
from ledger_cli import invoke, invoke_expecting

NOTE = "offline deterministic baseline: --agent-model MODEL asks a real model"


def test_the_note_names_the_option_that_asks_a_real_model() -> None:
    assert offline_note(agent_offline=True) == NOTE
    assert offline_note(agent_offline=False) == "offline deterministic baseline: --judge-model MODEL asks a real model"


def test_an_offline_run_says_so_on_its_first_line_and_once_on_its_card(tmp_path: Path) -> None:
    result = invoke_expecting("run", "groupmem", str(MINI), "--domain", "Demo", "--out", "r.json")
    assert result.stderr.splitlines()[0] == NOTE
    assert result.stderr.count("offline deterministic baseline") == 1
    card = result.stdout.splitlines()
    assert card[0].startswith("DIAGNOSTIC  GroupMemBench / Demo  run ") and card[1] == f"  {NOTE}"
    assert result.stdout.count("offline deterministic baseline") == 1
    shown = invoke("show", json.loads(Path("r.json").read_text())["run_id"]).output
    assert shown.splitlines()[1] == f"  {NOTE}" and shown.count("offline deterministic baseline") == 1


def test_a_run_with_a_real_model_says_nothing_of_the_kind(loopback) -> None:
    result = invoke_expecting("run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5",
                              "--base-url", loopback.base_url, "--question-limit", "3")
    assert "offline deterministic baseline" not in result.output
    assert not result.stdout.splitlines()[1].startswith("  offline")


def test_a_card_has_one_headline_number_the_benchmarks_own(tmp_path: Path) -> None:
    assert invoke("synth", "mem2actbench", str(tmp_path / "m2a"), "--tasks", "8").exit_code == 0
    result = invoke_expecting("run", "mem2actbench", str(tmp_path / "m2a"), "--out", "m.json")
    report = json.loads(Path("m.json").read_text())
    assert report["metric"] == "Mem2ActBench argument F1" and report["score"] != report["accuracy"]
    card = result.stdout
    headline = f"  score {100 * report['score']:.1f}%  Mem2ActBench argument F1 (scorer s1), the benchmark's own number"
    assert headline in card.splitlines()
    table = card[card.index("  kind "):].split("\n\n")[0].splitlines()
    assert re.split(r"\s{2,}", table[0].strip()) == ["kind", "planned", "judged", "full score", "unclear", "failed",
                                                     "pending"]
    overall = next(line for line in table if line.strip().startswith("overall"))
    assert overall.split() == ["overall", str(report["total"]), str(report["judged"]), str(report["correct"]),
                               "0", "0", "0"]
    assert "%" not in "\n".join(table)  # the share of verdicts at the full score is not a second headline
    assert f"{100 * report['accuracy']:.1f}%" not in card.split("Mem2ActBench actions")[0]
    assert NOTE in card.splitlines()[1]

    accuracy = invoke_expecting("run", "groupmem", str(MINI), "--domain", "Demo").stdout
    assert "  score " not in accuracy and re.search(r"^  kind +planned .* accuracy +95% CI +strict$", accuracy, re.M)
