"""Two `benchledger run` processes writing to one ledger at once, with `verify` looping beside them.

Both runs complete; each run's positions are 1..N with no gap or duplicate; each run holds exactly
the events (and verdicts) the same run holds when done alone; verify passes on every pass while
they write, and at the end. The runs really overlap (their seqs interleave), or the test says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.adapters.benchmarks.groupmem.synth import synthesize_groupmem
from benchledger.cli.main import cli
from conftest import REPO
from benchledger.ledger.store import Ledger

pytestmark = pytest.mark.slow

DOMAINS = ("Alpha", "Beta")


def run_args(release: Path, domain: str) -> list[str]:
    return ["run", "groupmem", str(release), "--domain", domain, "--concurrency", "2"]


def start(ledger: Path, args: list[str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(ledger), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ledger.parent,
                            env=dict(os.environ))


def summary(ledger: Path) -> dict[str, tuple[Counter, dict[str, str], list[int]]]:
    """domain -> (event type counts, verdicts, positions in order) for every run on the ledger."""
    out = {}
    with Ledger.open(ledger) as store:
        for run in store.reader.runs():
            events = store.reader.events(run.run_id)
            out[run.subset] = (Counter(e.type for e in events),
                               {e.event.question_id: e.event.verdict for e in events if e.type == "Judged"},
                               [e.position for e in events])
    return out


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("release")
    synthesize_groupmem(root, messages=2500, domains=DOMAINS, seed=11)
    return root


@pytest.fixture(scope="module")
def alone(release, tmp_path_factory) -> dict:
    """The same two runs, each on a ledger of its own."""
    out = {}
    for domain in DOMAINS:
        ledger = tmp_path_factory.mktemp(f"alone-{domain}") / "ledger.db"
        result = CliRunner().invoke(cli, ["--ledger", str(ledger), *run_args(release, domain)],
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        out.update(summary(ledger))
    return out


def test_two_runs_at_once_on_one_ledger_with_verify_looping(release, alone, tmp_path):
    ledger = tmp_path / "ledger.db"
    procs = [start(ledger, run_args(release, domain)) for domain in DOMAINS]
    passes, passes_while_both_ran = 0, 0
    try:
        while any(p.poll() is None for p in procs):
            if ledger.exists():
                both = all(p.poll() is None for p in procs)
                result = CliRunner().invoke(cli, ["--ledger", str(ledger), "verify"])
                # a ledger still being created may not hold the schema yet: that is "no ledger", not a bad chain
                if not (result.exit_code == 2 and "no ledger" in result.output):
                    assert result.exit_code == 0, f"verify failed during the runs: {result.output}"
                    passes += 1
                    passes_while_both_ran += both
            time.sleep(0.05)
        outputs = [p.communicate(timeout=60) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (_, err) in zip(procs, outputs):
        assert p.returncode == 0, err.decode()[-2000:]
    assert passes_while_both_ran >= 3, f"verify must run while both runs write ({passes} passes in all)"

    together = summary(ledger)
    assert set(together) == set(DOMAINS)
    for domain in DOMAINS:
        types, verdict_of, positions = together[domain]
        assert positions == list(range(1, len(positions) + 1)), f"{domain}: positions have gaps or repeats"
        assert types == alone[domain][0], f"{domain}: event counts differ from the run done alone"
        assert verdict_of == alone[domain][1]
        assert types["RunFinished"] == 1 and types["Failed"] == 0

    with Ledger.open(ledger) as store:
        run_of = {e.seq: e.run_id for run in store.reader.runs() for e in store.reader.events(run.run_id)}
    seqs = sorted(run_of)
    assert seqs == list(range(1, len(seqs) + 1))
    switches = sum(run_of[a] != run_of[b] for a, b in zip(seqs, seqs[1:]))
    assert switches >= 3, "the two runs did not actually write at the same time"
    final = CliRunner().invoke(cli, ["--ledger", str(ledger), "verify"])
    assert final.exit_code == 0, final.output
