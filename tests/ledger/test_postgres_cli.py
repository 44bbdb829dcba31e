"""Every command works on a ledger shared on PostgreSQL, as the writer role, with the same meaning.

The same GroupMemBench run (offline models) is made on a SQLite file and on a PostgreSQL schema
(`$BENCHLEDGER_LEDGER` for one, `--ledger URL` for the other) and every command that reads or
writes a run gives the same answer on both. A run killed mid-way on the shared ledger resumes to
the report of a run that was not.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from benchledger.adapters.benchmarks.groupmem.synth import synthesize_groupmem
from conftest import MINI
from ledger_cli import invoke_expecting as invoke
from crash_harness import normalised

pytestmark = pytest.mark.slow

_PER_LEDGER = {"run_id", "ledger_head", "last_seq", "started_at", "finished_at"}


def scrubbed(text: str, *runs: str) -> str:
    """Output with the run ids and 64-hex hashes (heads differ: a run's recorded_at does) masked."""
    for index, run_id in enumerate(runs):
        text = text.replace(run_id, f"RUN{index}")
    return re.sub(r"\b[0-9a-f]{64}\b", "HASH", text)


def comparable(text: str) -> dict:
    """A report without what differs per ledger: ids, heads, timings and when each scorer was added."""
    report = json.loads(text)
    kept = {key: value for key, value in report.items() if key not in _PER_LEDGER}
    kept["scorer_lines"] = [{k: v for k, v in line.items() if k != "added_at"} for line in kept.get("scorer_lines", [])]
    return kept


@pytest.fixture
def both(postgres_server, tmp_path) -> dict[str, str]:
    return {"sqlite": str(tmp_path / "ledger.db"), "postgres": postgres_server.new_ledger()}


def test_every_command_gives_the_same_answer_on_both_backends(both, tmp_path):
    outputs: dict[str, dict[str, object]] = {}
    for name, ledger in both.items():
        got = outputs[name] = {}
        invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--keep", ledger=ledger)
        invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--memory", "bm25-reference", ledger=ledger)
        runs = invoke("runs", "--json", ledger=ledger).stdout
        first, second = (run["run_id"] for run in reversed(json.loads(runs)))
        got["show"] = comparable(invoke("show", first, "--json", ledger=ledger).stdout)
        got["events"] = len(invoke("events", first, ledger=ledger).stdout.splitlines())
        got["failures"] = invoke("failures", first, ledger=ledger).stdout
        question = got["show"]["questions"][0]["question_id"] if "questions" in got["show"] else None
        if question:
            got["question"] = scrubbed(invoke("question", first, question, ledger=ledger).stdout, first)
        invoke("verify", ledger=ledger)
        head = json.loads(invoke("show", first, "--json", ledger=ledger).stdout)["ledger_head"]
        invoke("verify", first, "--expect-head", head, ledger=ledger)
        got["replay"] = scrubbed(invoke("replay", first, ledger=ledger).stdout, first)
        invoke("rejudge", first, ledger=ledger)
        got["agreement"] = scrubbed(invoke("agreement", first, "--json", ledger=ledger).stdout, first)
        got["diff"] = json.loads(invoke("diff", first, second, "--json", ledger=ledger).stdout)["overall"]
        for fmt in ("json", "csv"):
            out = tmp_path / f"{name}.{fmt}"
            invoke("export", first, "--out", str(out), ledger=ledger)
            lines = out.read_text().splitlines()  # timings differ; the shape and the first lines may not
            got[fmt] = (len(lines), scrubbed(lines[0], first), scrubbed(lines[1], first)[:80])
        got["purge"] = scrubbed(invoke("purge", first, ledger=ledger).stdout, first)
        got["verify"] = invoke("verify", ledger=ledger).stdout.split(";")[0].split(" verified")[0]
        got["rejudged"] = comparable(invoke("show", first, "--json", "--scorer", "s2", ledger=ledger).stdout)
    assert outputs["sqlite"] == outputs["postgres"]
    assert outputs["postgres"]["verify"].startswith("ok: ")


def test_the_ledger_environment_variable_selects_a_shared_ledger(both):
    env = {**os.environ, "BENCHLEDGER_LEDGER": both["postgres"]}
    invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "2", env=env)
    listed = invoke("runs", env=env).stdout
    rows = [line.split() for line in listed.splitlines()[2:]]
    assert [row[3:5] for row in rows] == [["GroupMemBench", "Demo"]] and not Path("ledger.db").exists()
    assert Path("benchledger.memory").is_dir()  # the memory store: in the current folder, not named by the URL
    assert "bl_writer" not in invoke("verify", env=env).stdout


def _count(url: str) -> int:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


def test_a_run_killed_on_a_shared_ledger_resumes_to_the_same_report(postgres_server, tmp_path):
    release = tmp_path / "release"
    synthesize_groupmem(release, messages=400, seed=5)
    args = ["run", "groupmem", str(release), "--domain", "Synth", "--concurrency", "2"]
    baseline = postgres_server.new_ledger()
    invoke(*args, ledger=baseline)
    expected = normalised(json.loads(invoke("show", "latest", "--json", ledger=baseline).stdout))
    total = _count(baseline)

    url = postgres_server.new_ledger()
    proc = subprocess.Popen([sys.executable, "-m", "benchledger.cli.main", "--ledger", url, *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and _count(url) < total // 2 and time.monotonic() < deadline:
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert 0 < _count(url) < total, "the run must be killed mid-way"
    invoke("resume", "latest", ledger=url)
    assert normalised(json.loads(invoke("show", "latest", "--json", ledger=url).stdout)) == expected
    invoke("verify", ledger=url)
