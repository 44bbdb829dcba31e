"""A sweep over a PostgreSQL job queue (procrastinate): workers on "other machines", one killed mid-cell.

A throwaway PostgreSQL cluster holds the ledger; `sweep run FILE --queue` enqueues its four cells
(two memory systems x the GroupMemBench demo x two epochs, answered and judged through the loopback
OpenAI-compatible server, slowed so a cell takes seconds); three `benchledger worker --until-empty`
processes take them. As soon as one of them has started a cell's run, it is killed with SIGKILL.
Its job is left `doing` under a worker that no longer beats; after `--stalled-after` another worker
puts it back and resumes that same run. The sweep completes: every cell done, the killed run's
questions each answered once, the endpoint asked at most what the runs needed plus what was in
flight at the kill, and `sweep show` gives the numbers a one-process `sweep run` of the same file
gives on a SQLite ledger. Enqueuing again adds nothing; a SQLite ledger is refused `--queue`.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.ledger.store import Ledger, init_ledger
from conftest import wait_until
from ledger_cli import invoke

pytestmark = pytest.mark.slow
pytest.importorskip("procrastinate", reason="the queue needs the queue extra: pip install -e '.[queue]'")

QUESTIONS = 40  # the demo release's Demo domain


def _sweep_file(folder: Path, base_url: str) -> Path:
    path = folder / "queued.toml"
    path.write_text(f'''
name = "queued"
epochs = 2

[[benchmarks]]
name = "groupmem"
demo = true
domain = "Demo"

[[memories]]
name = "sqlite"

[[memories]]
name = "bm25-reference"

[[models]]
agent = "gpt-5"
judge = "gpt-5"
base_url = "{base_url}"
''')
    return path


def _cli(url: str, *args: str, cwd: Path) -> list[str]:
    return [sys.executable, "-m", "benchledger.cli.main", "--ledger", url, *args]


def _report_numbers(shown: dict) -> list:
    return sorted((row["system"], benchmark, cell["scores"], cell["mean"], cell["sd"], cell["done"], row["calls"])
                  for row in shown["rows"] for benchmark, cell in row["cells"].items())


def _new_ledger(postgres_server) -> str:
    """A ledger in a fresh schema of the session's cluster: its URL."""
    schema = f"q_{uuid.uuid4().hex[:10]}"
    postgres_server.sql(f"CREATE SCHEMA {schema}")
    url = postgres_server.url("postgres", schema)
    init_ledger(url)
    return url


def test_three_workers_one_killed_mid_cell_finish_the_sweep_as_one_process_would(postgres_server, tmp_path):
    url = _new_ledger(postgres_server)
    env = {**os.environ, "OPENAI_API_KEY": "sk-queue-test", "COLUMNS": "0"}
    with LoopbackOpenAI(latency=0.12) as endpoint:
        sweep = _sweep_file(tmp_path, endpoint.base_url)
        queued = subprocess.run(_cli(url, "sweep", "run", str(sweep), "--queue", cwd=tmp_path), cwd=tmp_path,
                                env=env, capture_output=True, text=True, timeout=300)
        assert queued.returncode == 0, queued.stderr
        assert "0 cell(s) done, 4 queued, 0 already queued or running" in queued.stdout
        again = subprocess.run(_cli(url, "sweep", "run", str(sweep), "--queue", cwd=tmp_path), cwd=tmp_path,
                               env=env, capture_output=True, text=True, timeout=300)
        assert "0 queued, 4 already queued or running" in again.stdout, again.stdout + again.stderr

        logs = [tmp_path / f"worker-{n}.log" for n in range(3)]
        homes = [tmp_path / f"machine-{n}" for n in range(3)]  # each its own folder: its own memory stores
        for home in homes:
            home.mkdir()
        workers = [subprocess.Popen(_cli(url, "worker", "--until-empty", "--heartbeat", "0.5", "--stalled-after", "3",
                                         cwd=home), cwd=home, env=env, stdout=subprocess.DEVNULL, stderr=log.open("w"))
                   for home, log in zip(homes, logs)]
        started = re.compile(r"cell (\S+): run (\w+)")
        victim = {}

        def a_cell_is_under_way() -> bool:
            for index, log in enumerate(logs):
                found = started.search(log.read_text())
                if found:
                    victim.update(index=index, cell=found.group(1), run_id=found.group(2))
                    return True
            return False

        wait_until(a_cell_is_under_way, within=120, what="a worker starting a cell")
        with Ledger.open(url) as ledger:  # kill it once its run has recorded some answers, not all
            wait_until(lambda: 0 < sum(1 for s in ledger.reader.events(victim["run_id"], types=["QuestionAnswered"]))
                       < QUESTIONS // 2, within=60, what="the cell's run answering")
        workers[victim["index"]].send_signal(signal.SIGKILL)
        workers[victim["index"]].wait(timeout=30)
        for index, worker in enumerate(workers):
            if index != victim["index"]:
                assert worker.wait(timeout=300) == 0, logs[index].read_text()[-2000:]
        asked = len(endpoint.requests)

    said = "".join(log.read_text() for index, log in enumerate(logs) if index != victim["index"])
    assert f"cell {victim['cell']}: resume {victim['run_id']}" in said, said
    with Ledger.open(url) as ledger:
        answered = [s.event.question_id for s in ledger.reader.events(victim["run_id"], types=["QuestionAnswered"])]
        assert sorted(answered) == sorted(set(answered)) and len(answered) == QUESTIONS  # each once
    needed = 4 * QUESTIONS * 2  # answer and judge per question per cell
    assert needed <= asked <= needed + 8, asked  # + what was in flight when the worker died (at most 4 each way)

    shown = subprocess.run(_cli(url, "sweep", "show", str(sweep), "--json", cwd=tmp_path), cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=300)
    assert shown.returncode == 0, shown.stderr
    queued_report = json.loads(shown.stdout)
    assert queued_report["done"] == queued_report["planned"] == 4, queued_report["cells"]

    alone = tmp_path / "alone"
    alone.mkdir()
    os.environ["OPENAI_API_KEY"] = "sk-queue-test"
    try:
        with LoopbackOpenAI() as endpoint:
            single = _sweep_file(alone, endpoint.base_url)
            ran = invoke("--ledger", str(alone / "l.db"), "sweep", "run", str(single))
            assert ran.exit_code == 0, ran.output
            single_report = json.loads(invoke("--ledger", str(alone / "l.db"), "sweep", "show", str(single),
                                              "--json").stdout)
    finally:
        os.environ.pop("OPENAI_API_KEY", None)
    assert _report_numbers(queued_report) == _report_numbers(single_report)


def test_a_sqlite_ledger_is_refused_the_queue(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sweep = _sweep_file(tmp_path, "http://127.0.0.1:9/v1")
    refused = invoke("--ledger", str(tmp_path / "l.db"), "sweep", "run", str(sweep), "--queue")
    assert refused.exit_code == 2 and "--queue needs a ledger on PostgreSQL" in refused.output
    worker = invoke("--ledger", str(tmp_path / "l.db"), "worker", "--until-empty")
    assert worker.exit_code == 2 and "postgresql://" in worker.output


def test_a_cell_whose_file_changed_fails_its_job_and_the_worker_says_so(postgres_server, tmp_path):
    url = _new_ledger(postgres_server)
    env = {**os.environ, "OPENAI_API_KEY": "sk-queue-test", "COLUMNS": "0"}
    sweep = tmp_path / "offline.toml"
    sweep.write_text('name = "offline"\nepochs = 1\n[[benchmarks]]\nname = "groupmem"\ndemo = true\n'
                     'domain = "Demo"\n[[memories]]\nname = "sqlite"\n')
    queued = subprocess.run(_cli(url, "sweep", "run", str(sweep), "--queue", cwd=tmp_path), cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert "1 queued" in queued.stdout, queued.stdout + queued.stderr
    sweep.write_text(sweep.read_text() + "# edited after it was queued\n")
    worker = subprocess.run(_cli(url, "worker", "--until-empty", "--heartbeat", "0.5", "--stalled-after", "2",
                                 cwd=tmp_path), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert worker.returncode == 3, worker.stderr  # its job failed for good, and the worker says which and why
    assert "cell groupmem-Demo/sqlite/offline/e1: refused: the sweep file" in worker.stderr
    assert "changed since it was queued" in worker.stderr.splitlines()[-1]
    from benchledger.orchestration.sweep_queue import queue_counts

    assert queue_counts(url).get("failed") == 1
    again = subprocess.run(_cli(url, "sweep", "run", str(sweep), "--queue", cwd=tmp_path), cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=300)
    assert "1 queued" in again.stdout  # the edited file is another sweep file: its cell is queued anew
    done = subprocess.run(_cli(url, "worker", "--until-empty", cwd=tmp_path), cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "cell groupmem-Demo/sqlite/offline/e1: done" in done.stderr, done.stderr
    assert queue_counts(url) == {"failed": 1, "succeeded": 1}


def test_two_ledgers_in_one_database_keep_their_cells_apart(postgres_server, tmp_path):
    """Each ledger has its own queue (and its own locks): a worker of one never takes the other's cells."""
    from benchledger.orchestration.sweep_queue import queue_counts

    first, second = _new_ledger(postgres_server), _new_ledger(postgres_server)
    env = {**os.environ, "COLUMNS": "0"}
    sweep = tmp_path / "offline.toml"
    sweep.write_text('name = "apart"\nepochs = 1\n[[benchmarks]]\nname = "groupmem"\ndemo = true\n'
                     'domain = "Demo"\n[[memories]]\nname = "sqlite"\n')
    for url in (first, second):
        queued = subprocess.run(_cli(url, "sweep", "run", str(sweep), "--queue", cwd=tmp_path), cwd=tmp_path,
                                env=env, capture_output=True, text=True, timeout=300)
        assert "1 queued" in queued.stdout, queued.stdout + queued.stderr  # the same cell, queued for each
    worked = subprocess.run(_cli(first, "worker", "--until-empty", cwd=tmp_path), cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert worked.returncode == 0 and worked.stderr.count(": done") == 1, worked.stderr
    assert queue_counts(first) == {"succeeded": 1} and queue_counts(second) == {"todo": 1}
    with Ledger.open(second) as ledger:
        assert ledger.reader.runs() == []  # nothing ran on the other ledger
