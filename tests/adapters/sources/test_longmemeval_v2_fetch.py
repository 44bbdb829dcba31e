"""`fetch longmemeval-v2` from a loopback hub standing in for the gated dataset, then a run of what it laid
out: the files are fetched checked against what the hub published, and recorded with where they came
from; no public source states their SHA-256, so `official_release` says there is no pin, fetched or
given by path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.longmemeval_v2.source import HUB_DATASET, RELEASE_FILES, SOURCE
from benchledger.adapters.sources.receipt import read_receipt
from benchledger.adapters.sources.fetch import fetch_release
from benchledger.adapters.sources.settings import FetchSettings
from benchledger.errors import BadInput
from ledger_cli import conditions, invoke
from source_server import SourceServer


@pytest.fixture
def served(shared_data, tmp_path):
    release = shared_data / "longmemeval-v2" / "synthetic"
    rows = [json.loads(line) for line in (release / "questions.jsonl").read_text().splitlines() if line.strip()]
    without_images = tmp_path / "questions.jsonl"  # the gated release's image layout is not known here
    without_images.write_text("".join(json.dumps({**row, "image": None}) + "\n" for row in rows))
    files = {name: release / name for name in RELEASE_FILES} | {"questions.jsonl": without_images}
    server = SourceServer(hub={HUB_DATASET: files})
    base = server.start()
    server.settings = FetchSettings(github_raw=base, hub=base)
    yield server
    server.stop()


def test_a_gated_dataset_needs_the_users_token(served, tmp_path, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(BadInput, match="is gated"):
        fetch_release("longmemeval-v2", SOURCE, tmp_path / "rel", served.settings)


def test_fetched_as_the_hub_published_it_and_still_no_pin(served, shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_test_token_0000")
    folder = tmp_path / "rel"
    fetch_release("longmemeval-v2", SOURCE, folder, served.settings)
    assert all((folder / name).is_file() for name in RELEASE_FILES)
    assert read_receipt(folder).files["questions.jsonl"].published.startswith("hub sha256 ")
    prompts = shared_data / "longmemeval-v2" / "prompts"
    ran = invoke("run", "longmemeval-v2", str(folder), "--domain", "web", "--prompts-dir", str(prompts),
                 "--out", "r.json")
    assert ran.exit_code == 0, ran.output
    report = json.loads(Path("r.json").read_text())
    condition = {c["name"]: c for c in report["conditions"]}["official_release"]
    assert not condition["met"] and condition["reason"].startswith(
        "no pin for questions.jsonl: official_release cannot be checked")
    assert f"fetched from huggingface.co/datasets/{HUB_DATASET}" in report["release"]
    assert "through http://127.0.0.1:" in report["release"]  # the loopback hub, named on the scorecard
    part = invoke("run", "longmemeval-v2", str(folder), "--domain", "web", "--question-limit", "3",
                  "--prompts-dir", str(prompts), "--out", "p.json")
    assert part.exit_code == 0, part.output
    reason = {c["name"]: c for c in json.loads(Path("p.json").read_text())["conditions"]}["official_release"]
    assert not reason["met"] and reason["reason"] == "3 of 23 LongMemEval-V2 questions of the domain"
    by_path = invoke("run", "longmemeval-v2", str(shared_data / "longmemeval-v2" / "synthetic"), "--domain", "web",
                     "--prompts-dir", str(prompts), "--out", "s.json")
    assert by_path.exit_code == 0
    assert not conditions(json.loads(Path("s.json").read_text()))["official_release"]
