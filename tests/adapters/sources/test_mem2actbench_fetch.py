"""`fetch mem2actbench` from a loopback stand-in for GitHub at the pinned commit: no pin can be known, so the
files are taken as they arrive and their SHA-256 recorded; bytes already in place are never taken for
them; a run of what it laid out names where it came from and is never official."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.mem2actbench.source import COMMIT, PINS, REPOSITORY, SOURCE
from benchledger.adapters.benchmarks.mem2actbench.synth import synthesize_mem2actbench
from benchledger.adapters.sources.fetch import fetch_release
from benchledger.adapters.sources.receipt import RECEIPT, read_receipt
from benchledger.adapters.sources.settings import FetchSettings
from benchledger.pins import Unpinned
from ledger_cli import invoke
from source_server import SourceServer


@pytest.fixture
def served(tmp_path):
    upstream = tmp_path / "upstream"
    synthesize_mem2actbench(upstream, tasks=8, seed=0)
    paths = [entry.path for entry in PINS]
    server = SourceServer(github={f"{REPOSITORY}/{COMMIT}/{path}": upstream / path for path in paths})
    base = server.start()
    server.settings = FetchSettings(github_raw=base, hub=base)
    server.upstream = upstream
    yield server
    server.stop()


def test_every_file_of_the_pinned_commit_is_unpinned_and_says_why():
    entries = list(PINS)
    assert len(entries) == 6 and all(isinstance(e, Unpinned) for e in entries)
    assert {e.revision for e in entries} == {COMMIT} and all("no pin can be known here" in e.why for e in entries)


def test_the_files_arrive_with_their_hashes_recorded_and_a_second_fetch_asks_nothing(served, tmp_path):
    folder = tmp_path / "rel"
    result = fetch_release("mem2actbench", SOURCE, folder, served.settings)
    assert result.downloaded == 6
    receipt = read_receipt(folder)
    for entry in PINS:
        recorded = receipt.files[entry.path]
        assert recorded.sha256 == hashlib.sha256((served.upstream / entry.path).read_bytes()).hexdigest()
        assert (recorded.origin, recorded.revision) == (f"github.com/{REPOSITORY}", COMMIT)
        assert recorded.published == "nobody as-arrived -"
    served.stop()
    assert fetch_release("mem2actbench", SOURCE, folder, served.settings).downloaded == 0  # offline: the receipt


def test_bytes_already_in_place_are_downloaded_again_never_recorded_as_fetched(served, tmp_path):
    folder = tmp_path / "rel"
    path = folder / "toolmembench_small" / "benchmark_statistics.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"total_sessions": 1, "total_qa": 1}')
    fetch_release("mem2actbench", SOURCE, folder, served.settings)
    assert path.read_bytes() == (served.upstream / "toolmembench_small" / "benchmark_statistics.json").read_bytes()
    (folder / RECEIPT).unlink()
    again = fetch_release("mem2actbench", SOURCE, folder, served.settings)
    assert again.downloaded == 6  # without a receipt nothing vouches for the bytes in place


def test_a_run_of_the_fetched_release_names_its_source_and_is_never_official(served, tmp_path):
    folder = tmp_path / "rel"
    fetch_release("mem2actbench", SOURCE, folder, served.settings)
    ran = invoke("run", "mem2actbench", str(folder), "--out", "r.json")
    assert ran.exit_code == 0, ran.output
    report = json.loads(Path("r.json").read_text())
    assert f"fetched from github.com/{REPOSITORY} @ {COMMIT[:12]}" in report["release"]
    condition = {c["name"]: c for c in report["conditions"]}["official_release"]
    assert not condition["met"] and condition["reason"].startswith("no pin for toolmembench_small/qa_dataset.jsonl")
    assert "no pin can be known here" in condition["reason"]
