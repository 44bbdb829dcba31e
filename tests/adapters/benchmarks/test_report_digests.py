"""Issue 33 item 4: the golden report digests, so a reviewer sees every wording change.

`report_digests.json` holds the digest of the core report and of every registered benchmark's report
declarations (`adapters.benchmarks.digests`), from which a saved scorecard's version is derived. The
test comparing them names the benchmark, and the condition or section, whose wording changed; a
reworded copy of GroupMemBench's own conditions (`tests/reworded.py`) shows the message.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchledger.adapters.benchmarks.digests import GOLDEN, current_digests, wording_changes
from benchledger.adapters.benchmarks.registry import available_benchmarks, benchmark_named
from conftest import REPO
from reworded import SOLVABILITY_REWORD, reworded_conditions


def _golden() -> dict:
    return json.loads((REPO / GOLDEN).read_text())


def test_the_golden_digests_are_the_codes_own():
    changes = wording_changes(_golden(), current_digests())
    assert not changes, "\n".join(changes)


def test_every_registered_benchmark_has_a_golden_digest():
    registered = {entry.loaded.name for entry in available_benchmarks() if entry.loaded is not None}
    assert set(_golden()["benchmarks"]) == registered


def test_a_reworded_condition_names_its_benchmark_and_condition(tmp_path: Path, monkeypatch):
    groupmem = benchmark_named("GroupMemBench")
    monkeypatch.setattr(type(groupmem), "conditions", reworded_conditions("groupmem", *SOLVABILITY_REWORD, tmp_path))
    assert wording_changes(_golden(), current_digests()) == [
        "GroupMemBench's report wording changed (3:solvability_filtered_domain): update "
        "tests/adapters/benchmarks/report_digests.json "
        "(python -m benchledger.adapters.benchmarks.digests > tests/adapters/benchmarks/report_digests.json)"]


def test_a_benchmark_missing_from_the_golden_file_is_named():
    golden = _golden()
    del golden["benchmarks"]["Mem2ActBench"]
    golden["core"] = "0" * 64
    assert wording_changes(golden, current_digests()) == [
        "the core report's wording changed: update tests/adapters/benchmarks/report_digests.json "
        "(python -m benchledger.adapters.benchmarks.digests > tests/adapters/benchmarks/report_digests.json)",
        "Mem2ActBench is registered but has no report digest: add it to tests/adapters/benchmarks/report_digests.json "
        "(python -m benchledger.adapters.benchmarks.digests > tests/adapters/benchmarks/report_digests.json)"]
