"""`synth mem2actbench` and `check mem2actbench` as commands: what they print, their JSON, their exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from ledger_cli import invoke


def test_synth_writes_the_release_says_what_it_made_and_check_names_the_defects(tmp_path: Path):
    made = invoke("synth", "mem2actbench", str(tmp_path / "r"), "--tasks", "10")
    assert made.exit_code == 0, made.output
    assert "10 tasks (L1 5, L2 2, L3 1, L4 2)" in made.output
    assert "defect, as the pinned commit has them: qa_004: tool_call.name is the number 4" in made.output
    as_json = json.loads(invoke("synth", "mem2actbench", str(tmp_path / "j"), "--tasks", "10", "--json").output)
    assert as_json["tasks"] == 10 and as_json["sessions"]["Mem2ActBench"] > as_json["sessions"]["toolmembench_small"]
    checked = invoke("check", "mem2actbench", str(tmp_path / "r"))
    assert checked.exit_code == 0, checked.output
    lines = checked.output.splitlines()
    assert [line.split()[0] for line in lines[2:4]] == ["toolmembench_small", "Mem2ActBench"]
    assert sum(line.startswith("defect: ") for line in lines) == 4
    assert lines[-1] == "ok (4 known defect(s), counted on every run's scorecard)"


def test_check_exits_2_on_a_split_that_is_missing_or_invalid(tmp_path: Path):
    invoke("synth", "mem2actbench", str(tmp_path / "r"), "--tasks", "6")
    (tmp_path / "r" / "Mem2ActBench" / "qa_dataset.jsonl").unlink()
    tasks = tmp_path / "r" / "toolmembench_small" / "qa_dataset.jsonl"
    tasks.write_text(tasks.read_text().replace('"qa_002"', '"qa_001"'))
    checked = invoke("check", "mem2actbench", str(tmp_path / "r"))
    assert checked.exit_code == 2
    assert "invalid: " in checked.output and "qa_id 'qa_001' repeats line 1" in checked.output
    assert "the split's task or session file is missing" in checked.output
    assert checked.output.splitlines()[-1] == "not ok: a split is missing or invalid"
    assert json.loads(invoke("check", "mem2actbench", str(tmp_path / "r"), "--json").output)["ok"] is False
