"""GroupMemBench reports name the verdict rule they count and show the published-table rule beside it;
`benchledger combine` adds one run per domain into the paper's micro-averaged total."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.groupmem.replies import published_is_correct, split_reasoning_and_final
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.ledger.store import Ledger
from conftest import MINI
from ledger_cli import invoke


def section_of(report: dict, name: str) -> dict:
    return next(s for s in report["sections"] if s["name"] == name)


@pytest.fixture
def two_domains(tmp_path) -> Path:
    """The mini release with a second domain (a copy of Demo named Demo2)."""
    root = tmp_path / "release"
    shutil.copytree(MINI, root)
    final = root / "data" / "final"
    shutil.copytree(final / "Demo", final / "Demo2")
    (final / "Demo2" / "synthetic_domain_channels_rolevariants_Demo.json").rename(
        final / "Demo2" / "synthetic_domain_channels_rolevariants_Demo2.json")
    shutil.copytree(root / "questions" / "Demo", root / "questions" / "Demo2")
    return root


def test_a_reference_judge_reply_is_counted_under_both_rules(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        # the run-time rule reads "correct" in these; the published tables do not
        server.faults.always("reply", role="judge", contains="When", text="Matches.\nFinal: Correct – paraphrase")
        result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5",
                        "--base-url", server.base_url, "--out", "r.json")
        assert result.exit_code == 0, result.output
    report = json.loads(Path("r.json").read_text())
    values = section_of(report, "groupmem.rules")["values"]
    with Ledger.open(Path("ledger.db")) as ledger:
        judged = [(s.event.question_id, ledger.reader.get_blob(s.event.raw_hash).decode())
                  for s in ledger.reader.events(report["run_id"], types=["Judged"])]
    published = sum(published_is_correct(split_reasoning_and_final(raw)[1]) for _, raw in judged)
    assert values["run_time"]["correct"] == report["correct"]
    assert values["published_table"]["correct"] == published < report["correct"]
    reworded = [qid for qid, raw in judged if "paraphrase" in raw]
    assert reworded and all(not published_is_correct(split_reasoning_and_final(raw)[1])
                            for _, raw in judged if "paraphrase" in raw)
    assert "published-table rule" in result.output and "run-time rule" in result.output
    assert "| gpt-5 |" not in result.output and "| sqlite |" in result.output  # the baseline is the memory


def test_combine_gives_the_micro_averaged_total_of_one_run_per_domain(two_domains):
    reports = []
    for domain in ("Demo", "Demo2"):
        assert invoke("run", "groupmem", str(two_domains), "--domain", domain, "--out", f"{domain}.json").exit_code == 0
        reports.append(json.loads(Path(f"{domain}.json").read_text()))
    result = invoke("combine", *(r["run_id"] for r in reports), "--json")
    assert result.exit_code == 0, result.output
    combined = json.loads(result.stdout)["combined"]
    assert combined["values"]["domains"] == ["Demo", "Demo2"]
    assert combined["values"]["run_time"]["correct"] == sum(r["correct"] for r in reports)
    assert combined["values"]["run_time"]["total"] == sum(r["judged"] for r in reports) == 80
    for kind, cell in combined["values"]["published_table"]["by_kind"].items():
        assert cell["total"] == sum(r["by_kind"][kind]["judged"] for r in reports)
    text = invoke("combine", *(r["run_id"] for r in reports)).output
    assert "Finance, Healthcare, Manufacturing, Technology" in text and "DIAGNOSTIC" in text


def test_combine_refuses_runs_that_are_not_one_setup_over_distinct_domains(two_domains):
    assert invoke("run", "groupmem", str(two_domains), "--domain", "Demo", "--out", "a.json").exit_code == 0
    assert invoke("run", "groupmem", str(two_domains), "--domain", "Demo", "--out", "b.json").exit_code == 0
    assert invoke("run", "groupmem", str(two_domains), "--domain", "Demo2", "--memory", "structured",
                  "--out", "c.json").exit_code == 0
    a, b, c = (json.loads(Path(f"{n}.json").read_text())["run_id"] for n in "abc")
    same_domain = invoke("combine", a, b)
    assert same_domain.exit_code == 2 and "distinct domains" in same_domain.output
    other_memory = invoke("combine", a, c)
    assert other_memory.exit_code == 2 and "memory system" in other_memory.output


def test_the_published_table_is_well_formed_with_no_kind_judged_yet():
    from benchledger.adapters.benchmarks.groupmem.summary import Counts, format_markdown

    def columns(line: str) -> int:
        return line.count("|") - 1

    empty = format_markdown({}, ["sqlite"], qtypes=()).splitlines()
    assert empty[0] == "| baseline | overall |"
    assert {columns(line) for line in empty} == {2}
    full = format_markdown({("sqlite", "temporal"): Counts(correct=1, total=2)}, ["sqlite"],
                           qtypes=("temporal",)).splitlines()
    assert full[0] == "| baseline | temporal | overall |"
    assert {columns(line) for line in full} == {3}
    assert full[2] == "| sqlite | 50.0% (1/2) | **50.0% (1/2)** |"
