"""Crash safety: SIGKILL a real run at seeded random points, resume, and get the same report.

Also: resume after the memory store was deleted re-prepares instead of scoring an empty index,
and resume refuses a corpus that changed on disk, naming both fingerprints.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.groupmem.synth import synthesize_groupmem
from crash_harness import event_count, normalised, run_and_kill_at
from benchledger.ledger.store import Ledger
from ledger_cli import invoke

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("release")
    synthesize_groupmem(root, messages=5000, seed=7)
    return root


def run_args(release: Path, *extra: str) -> list[str]:
    return ["run", "groupmem", str(release), "--domain", "Synth", "--concurrency", "2", *extra]


def report_of(ledger: Path, run_id: str = "latest") -> dict:
    result = invoke("show", run_id, "--json", ledger=ledger)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def verdicts(ledger: Path) -> dict[str, str]:
    with Ledger.open(ledger) as store:
        run_id = store.reader.runs()[0].run_id
        return {e.event.question_id: e.event.verdict for e in store.reader.events(run_id, types=["Judged"])}


def stage_counts(ledger: Path) -> Counter:
    with Ledger.open(ledger) as store:
        run_id = store.reader.runs()[0].run_id
        return Counter((e.type, e.event.question_id) for e in store.reader.events(run_id)
                       if e.type in ("ContextRecalled", "QuestionAnswered", "Judged"))


@pytest.fixture(scope="module")
def baseline(release, tmp_path_factory) -> tuple[dict, dict[str, str], int]:
    ledger = tmp_path_factory.mktemp("baseline") / "ledger.db"
    assert invoke(*run_args(release), ledger=ledger).exit_code == 0
    return normalised(report_of(ledger)), verdicts(ledger), event_count(ledger)


def test_sigkill_at_random_points_always_resumes_to_the_same_report(release, baseline, tmp_path):
    expected, expected_verdicts, total_events = baseline
    rng = random.Random(20261129)
    killed = 0
    for trial in range(10):
        ledger = tmp_path / f"trial{trial}" / "ledger.db"
        ledger.parent.mkdir()
        target = rng.randint(3, total_events - 3)
        killed += run_and_kill_at(ledger, run_args(release), target)
        before = event_count(ledger)
        result = invoke("resume", "latest", ledger=ledger)
        assert result.exit_code == 0, (trial, target, result.output)
        got = verdicts(ledger)
        assert got == expected_verdicts, (trial, target, before,
                                          {q: (v, got.get(q)) for q, v in expected_verdicts.items() if got.get(q) != v})
        assert normalised(report_of(ledger)) == expected, (trial, target, before)
        assert invoke("verify", ledger=ledger).exit_code == 0
        repeated = {key: n for key, n in stage_counts(ledger).items() if n > 1}
        assert not repeated, (trial, repeated)
    assert killed >= 8, "most trials must actually be killed mid-run"


def test_resume_after_the_memory_store_is_deleted_reprepares(release, baseline, tmp_path):
    expected, _, total_events = baseline
    ledger = tmp_path / "ledger.db"
    assert run_and_kill_at(ledger, run_args(release), total_events - 20)
    store = tmp_path / "ledger.memory" / "sqlite.sqlite"
    assert store.exists()
    for path in store.parent.glob("sqlite.sqlite*"):
        path.unlink()
    assert invoke("resume", "latest", ledger=ledger).exit_code == 0
    with Ledger.open(ledger) as ledger_store:
        run_id = ledger_store.reader.runs()[0].run_id
        resumed = [e.event for e in ledger_store.reader.events(run_id, types=["RunResumed"])]
        checks = [e.event for e in ledger_store.reader.events(run_id, types=["ScopeVerified"])]
    assert resumed and resumed[0].reprepared
    assert checks[-1].ok and checks[-1].documents == checks[-1].expected_documents
    assert normalised(report_of(ledger)) == expected


def test_resume_refuses_a_changed_corpus_naming_both_fingerprints(tmp_path):
    release = tmp_path / "rel"
    synthesize_groupmem(release, messages=300, seed=3)
    ledger = tmp_path / "ledger.db"
    run_and_kill_at(ledger, run_args(release), 5)
    corpus = next((release / "data" / "final" / "Synth").glob("*.json"))
    channels = json.loads(corpus.read_text())
    first = next(iter(channels.values()))[0]
    first["content"] = first["content"] + " (edited after the run)"
    corpus.write_text(json.dumps(channels))
    result = invoke("resume", "latest", ledger=ledger)
    assert result.exit_code == 2
    assert "recorded fingerprint" in result.output and "on disk" in result.output
