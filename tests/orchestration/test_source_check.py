"""`verify RUN --against-source`: the release files a run recorded, re-read from the official source its
benchmark's pin table names, against a loopback stand-in for GitHub's raw files and the hub.

A LoCoMo run given LoCoMo's dev file by path records those bytes; the stand-in serves, at LoCoMo's
pinned commit, the same bytes (the check agrees), other bytes (it differs), a body longer than the
run recorded (it differs, cut off at the recorded size) or nothing at all (unreadable). Each check
is its own event after the run finished, shown on `show`, and the score, conditions and
publishable status stay what they were.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.locomo.source import PINS as LOCOMO_PINS
from benchledger.adapters.sources.settings import FetchSettings
from benchledger.ledger.events import ReleaseFile
from benchledger.orchestration.source_check import _check_file
from benchledger.pins import Pin, Unpinned
from ledger_cli import events_of, invoke
from source_server import SourceServer

RELEASE = LOCOMO_PINS.pin("locomo10.json")
SERVED = f"snap-research/LoCoMo/{RELEASE.revision}/data/locomo10.json"


@pytest.fixture
def source(shared_data):
    server = SourceServer(github={SERVED: shared_data / "locomo" / "locomo-dev.json"},
                          hub={"tests/dev": {"dev.json": shared_data / "locomo" / "locomo-dev.json"}})
    server.base = server.start()
    yield server
    server.stop()


@pytest.fixture
def run(shared_data) -> dict:
    dev = shared_data / "locomo" / "locomo-dev.json"
    result = invoke("run", "locomo", str(dev), "--conversations", "conv-26", "--question-limit", "3", "--out", "r.json")
    assert result.exit_code == 0, result.output
    return json.loads(Path("r.json").read_text())


def _without_checks(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in ("checks", "ledger_head", "events", "last_seq",
                                                          "projection_versions")}


def _check(run_id: str, base: str, *, expect: int) -> str:
    result = invoke("verify", run_id, "--against-source", "--github-raw", base, "--hub", base, "--by", "a reviewer")
    assert result.exit_code == expect, result.output
    return result.output


def test_the_source_serving_the_recorded_bytes_agrees_and_the_score_stays(source, run):
    before = invoke("show", run["run_id"], "--json").output
    output = _check(run["run_id"], source.base, expect=0)
    assert "release files re-read from the official source: 1 agrees" in output
    assert source.gets(f"/{SERVED}")  # read from the pin's source and commit, never the URL the run recorded
    (event,) = [e for e in events_of(run["run_id"]) if e.type == "SourceChecked"]
    assert event.checked_by == "a reviewer" and event.github_raw == source.base and event.check_id == "c1"
    (file,) = event.files
    assert file.status == "agrees" and file.how == "downloaded" and file.path == "locomo-dev.json"
    assert file.source == f"github.com/snap-research/LoCoMo @ {RELEASE.revision} data/locomo10.json"
    assert file.source_sha256 == file.recorded_sha256 == run_sha(run)
    after = json.loads(invoke("show", run["run_id"], "--json").output)
    assert _without_checks(after) == _without_checks(json.loads(before))  # score, conditions, publishable
    assert after["checks"][0]["kind"] == "against-source" and after["checks"][0]["counts"] == {"agrees": 1}
    shown = invoke("show", run["run_id"]).output
    assert "checks appended after the run (never in the score or the conditions above):" in shown
    assert "c1 against-source by a reviewer (as they named themselves)" in shown
    assert invoke("verify", run["run_id"]).exit_code == 0  # the chain and the saved views hold


def run_sha(run: dict) -> str:
    return run["release"].split(" sha256 ")[1].split(" ")[0].rstrip(",")


def test_a_source_serving_other_bytes_differs_is_recorded_and_exits_1(source, run):
    source.serve_instead[SERVED] = b'{"not": "the recorded file"}'
    output = _check(run["run_id"], source.base, expect=1)
    assert "1 differs" in output and "does not agree with the official source (1 differs)" in output
    (event,) = [e for e in events_of(run["run_id"]) if e.type == "SourceChecked"]
    (file,) = event.files
    assert file.status == "differs"
    assert file.source_sha256 == hashlib.sha256(b'{"not": "the recorded file"}').hexdigest() != file.recorded_sha256
    report = json.loads(invoke("show", run["run_id"], "--json").output)
    assert report["status"] == run["status"] and report["score"] == run["score"]


def test_a_longer_body_is_cut_at_the_recorded_size_and_differs(source, run, shared_data):
    source.endless.add(SERVED)
    _check(run["run_id"], source.base, expect=1)
    (event,) = [e for e in events_of(run["run_id"]) if e.type == "SourceChecked"]
    assert event.files[0].status == "differs" and "runs past the 1,515,006 bytes" in event.files[0].detail
    assert source.bytes_sent[SERVED] < 64 * 1_515_006  # stopped, not drained


def test_an_unreachable_source_is_unreadable_never_agreeing(run):
    _check(run["run_id"], "http://127.0.0.1:9", expect=1)
    (event,) = [e for e in events_of(run["run_id"]) if e.type == "SourceChecked"]
    assert event.files[0].status == "unreadable" and "cannot reach 127.0.0.1:9" in event.files[0].detail


def test_two_checks_are_two_events_numbered_in_turn(source, run):
    _check(run["run_id"], source.base, expect=0)
    source.serve_instead[SERVED] = b"x"
    _check(run["run_id"], source.base, expect=1)
    checks = [e for e in events_of(run["run_id"]) if e.type == "SourceChecked"]
    assert [c.check_id for c in checks] == ["c1", "c2"]
    assert [c.files[0].status for c in checks] == ["agrees", "differs"]


def test_a_hub_file_is_checked_by_the_hash_the_hub_states_without_downloading(source, shared_data, tmp_path):
    dev = shared_data / "locomo" / "locomo-dev.json"
    digest = hashlib.sha256(dev.read_bytes()).hexdigest()
    settings = FetchSettings(github_raw=source.base, hub=source.base)
    recorded = ReleaseFile(path="dev.json", sha256=digest, bytes=dev.stat().st_size)
    entry = Unpinned("dev.json", "huggingface.co/datasets/tests/dev", None, "dev.json", "the tests' own file")
    checked = _check_file(recorded, entry, settings, tmp_path)
    assert checked.status == "agrees" and checked.how == "hub-published" and checked.source_sha256 == digest
    assert "what the hub names main now" in checked.detail  # the run recorded no revision
    assert not source.gets("/resolve/")  # the hub's stated hash, no body
    other = ReleaseFile(path="dev.json", sha256="0" * 64, bytes=dev.stat().st_size, revision=source.hub_commit)
    differs = _check_file(other, entry, settings, tmp_path)
    assert differs.status == "differs" and differs.source_sha256 == digest
    assert "the revision the run recorded" in differs.detail
    pinned_elsewhere = Pin("dev.json", digest, dev.stat().st_size, "huggingface.co/datasets/tests/dev", "f" * 40,
                           "dev.json", "the tests")
    missing = _check_file(recorded, pinned_elsewhere, settings, tmp_path)  # the hub has no such commit
    assert missing.status == "unreadable" and "HTTP 404" in missing.detail
    assert list(tmp_path.iterdir()) == []  # nothing left behind


def test_a_file_the_pin_table_names_no_source_for_is_no_source(tmp_path):
    checked = _check_file(ReleaseFile(path="mine.json", sha256="1" * 64, bytes=3), None,
                          FetchSettings(), tmp_path)
    assert checked.status == "no-source" and checked.url == ""


def test_a_check_option_without_its_check_is_refused_in_one_line(run, tmp_path):
    stray = invoke("verify", run["run_id"], "--hub", "http://127.0.0.1:9")
    assert stray.exit_code == 2 and "--hub goes with --against-source" in stray.output
    seed = invoke("verify", run["run_id"], "--seed", "3")
    assert seed.exit_code == 2 and "--seed goes with --spot-check N" in seed.output
    assert not [e for e in events_of(run["run_id"]) if e.type == "SourceChecked"]


def test_a_bundle_is_checked_in_the_third_partys_own_ledger_after_it_verifies(source, run, tmp_path):
    assert invoke("export", run["run_id"], "--bundle", "run.bundle.json").exit_code == 0
    mine = tmp_path / "reviewer" / "mine.db"
    mine.parent.mkdir()
    result = invoke("verify", "run.bundle.json", "--against-source", "--github-raw", source.base, ledger=mine)
    assert result.exit_code == 0, result.output
    assert "checked run.bundle.json, offline, from the file alone:" in result.output
    assert f"run {run['run_id']}: " in result.output and f"copied into {mine}" in result.output
    assert "1 agrees" in result.output
    again = invoke("verify", "run.bundle.json", "--against-source", "--github-raw", source.base, ledger=mine)
    assert again.exit_code == 0 and ": 0 event(s) copied" in again.output, again.output  # the run is there
    shown = invoke("show", run["run_id"], ledger=mine).output
    assert "c1 against-source" in shown and "c2 against-source" in shown
    assert not [e for e in events_of(run["run_id"]) if e.type == "SourceChecked"]  # the author's ledger untouched
    Path("bad.bundle.json").write_text("{}")
    refused = invoke("verify", "bad.bundle.json", "--against-source", ledger=tmp_path / "reviewer" / "other.db")
    assert refused.exit_code == 2 and not (tmp_path / "reviewer" / "other.db").exists()
