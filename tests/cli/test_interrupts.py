"""Interrupted work says how to go on: Ctrl-C (a real SIGINT to a real `benchledger` process) during
`run` prints the run id and the `resume` command, during `rejudge` the `--continue` command; both
exit 130, and the printed command, typed as printed, finishes the work.

The models are the loopback OpenAI-compatible server with half a second of latency per reply while
a process is to be interrupted (a whole run would take about 40 s, the interrupt comes after three
verdicts), and none while the printed command finishes the work.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.errors import NotALedger
from benchledger.ledger.store import Ledger
from conftest import MINI, wait_until

pytestmark = pytest.mark.slow


def _env() -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": "sk-test-interrupts", "PYTHONUNBUFFERED": "1"}


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "benchledger.cli.main", *args]


def _count(ledger: Path, event_type: str) -> int:
    if not ledger.exists():
        return 0
    try:
        with Ledger.open(ledger, create=False) as opened:
            return sum(len(opened.reader.events(run.run_id, types=[event_type])) for run in opened.reader.runs())
    except NotALedger:  # the process under test is still creating the file: nothing recorded yet
        return 0


def _as_at_a_terminal() -> None:
    """Ctrl-C reaches a program run at a terminal. A job started in the background by a
    non-interactive shell inherits SIGINT ignored, and Python then installs no handler for it;
    the processes under test are given the terminal's default back."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_while_alive(process: subprocess.Popen, condition, what: str) -> None:
    """Wait until `condition` holds, failing at once (with its output) if `process` ends first."""
    def check() -> bool:
        assert process.poll() is None, process.communicate()
        return condition()
    wait_until(check, within=120, what=what)


def _interrupt_when(process: subprocess.Popen, ledger: Path, event_type: str, at_least: int) -> tuple[int, str]:
    _wait_while_alive(process, lambda: _count(ledger, event_type) >= at_least, f"{at_least} {event_type} events")
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    return process.returncode, stderr


def _typed(line: str) -> list[str]:
    """The suggested command as the user would type it (`benchledger` is this Python's CLI)."""
    words = shlex.split(line)
    assert words[0] == "benchledger"
    return _cli(*words[1:])


def test_ctrl_c_during_run_and_rejudge_names_the_command_that_finishes_it(tmp_path):
    ledger = tmp_path / "runs.db"
    with LoopbackOpenAI(latency=0.5) as server:
        run = subprocess.Popen(_cli("--ledger", str(ledger), "run", "groupmem", str(MINI), "--domain", "Demo",
                                    "--agent-model", "gpt-5", "--base-url", server.base_url, "--concurrency", "1"),
                               env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               preexec_fn=_as_at_a_terminal)
        code, stderr = _interrupt_when(run, ledger, "Judged", 3)
        assert code == 130, stderr
        assert "Aborted!" not in stderr
        line = stderr.strip().splitlines()[-1]
        assert line.startswith("interrupted: run ") and "Continue it with: benchledger --ledger" in line
        run_id = line.split()[2]
        resume_line = line.split("Continue it with: ")[1]
        assert resume_line == f"benchledger --ledger {ledger} resume {run_id}"
        with Ledger.open(ledger, create=False) as opened:
            judged = len(opened.reader.events(run_id, types=["Judged"]))
        assert 3 <= judged < 40

        server.latency = 0.0
        resumed = subprocess.run(_typed(resume_line) + ["--concurrency", "4"], env=_env(),
                                 capture_output=True, text=True, cwd=tmp_path, timeout=300)
        assert resumed.returncode == 0, resumed.stderr
        shown = json.loads(subprocess.run(_cli("--ledger", str(ledger), "show", run_id, "--json"), env=_env(),
                                          capture_output=True, text=True, cwd=tmp_path).stdout)
        assert shown["judged"] == 40 and shown["run_status"] == "completed" and shown["scorer_id"] == "s1"

        server.latency = 0.5
        rejudge = subprocess.Popen(_cli("rejudge", run_id.lower(), "--judge-model", "gpt-5-judge", "--concurrency",
                                        "1", "--ledger", str(ledger)),
                                   env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                                   preexec_fn=_as_at_a_terminal)
        code, stderr = _interrupt_when(rejudge, ledger, "Judged", 40 + 3)
        assert code == 130, stderr
        line = stderr.strip().splitlines()[-1]
        assert line.startswith(f"interrupted: scorer s2 of run {run_id} is partial")
        continue_line = line.split("Finish it with: ")[1]
        assert continue_line == f"benchledger --ledger {ledger} rejudge {run_id} --continue s2"

        partial = subprocess.run(_cli("--ledger", str(ledger), "show", run_id, "--json"), env=_env(),
                                 capture_output=True, text=True, cwd=tmp_path)
        assert json.loads(partial.stdout)["scorer_id"] == "s1"  # the headline stays on the complete scorer
        assert "scorer s2 is partial" in partial.stderr and "--continue s2" in partial.stderr

        server.latency = 0.0
        finished = subprocess.run(_typed(continue_line), env=_env(), capture_output=True,
                                  text=True, cwd=tmp_path, timeout=300)
        assert finished.returncode == 0, finished.stderr
        final = json.loads(subprocess.run(_cli("--ledger", str(ledger), "show", run_id, "--json", "--scorer", "s2"),
                                          env=_env(), capture_output=True, text=True, cwd=tmp_path).stdout)
        assert final["scorer_id"] == "s2" and final["judged"] == 40


def test_ctrl_c_during_resume_names_the_resume_command_and_exits_130(tmp_path):
    ledger = tmp_path / "runs.db"
    with LoopbackOpenAI(latency=0.5) as server:
        base = ("--ledger", str(ledger))
        run = subprocess.Popen(_cli(*base, "run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5",
                                    "--base-url", server.base_url, "--concurrency", "1"),
                               env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               preexec_fn=_as_at_a_terminal)
        code, stderr = _interrupt_when(run, ledger, "Judged", 2)
        assert code == 130, stderr
        run_id = stderr.strip().splitlines()[-1].split()[2]
        resume = subprocess.Popen(_cli(*base, "resume", run_id, "--concurrency", "1"), env=_env(),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                                  preexec_fn=_as_at_a_terminal)
        code, stderr = _interrupt_when(resume, ledger, "Judged", 5)
        assert code == 130, stderr
        assert "Aborted!" not in stderr
        line = stderr.strip().splitlines()[-1]
        assert line == (f"interrupted: run {run_id} stopped; what finished is on the ledger. Continue it with: "
                        f"benchledger --ledger {ledger} resume {run_id}")
        server.latency = 0.0
        finished = subprocess.run(_typed(line.split("Continue it with: ")[1]), env=_env(), capture_output=True,
                                  text=True, cwd=tmp_path, timeout=300)
        assert finished.returncode == 0, finished.stderr


def test_a_closed_pipe_never_stops_the_paid_work(tmp_path):
    """`run ... 2>&1 | head -3`: the reader goes after three lines, the run still asks and judges
    every question, records it, and ends as it would have (exit 0), with no traceback."""
    ledger = tmp_path / "runs.db"
    with LoopbackOpenAI(latency=0.0) as server:
        command = shlex.join(_cli("--ledger", str(ledger), "run", "groupmem", str(MINI), "--domain", "Demo",
                                  "--agent-model", "gpt-5", "--base-url", server.base_url, "--concurrency", "2"))
        piped = subprocess.run(["bash", "-o", "pipefail", "-c", f"{command} 2>&1 | head -3"], env=_env(),
                               capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert len(piped.stdout.splitlines()) == 3
    assert piped.returncode == 0, piped.stdout + piped.stderr  # pipefail: the run's own exit code
    with Ledger.open(ledger, create=False) as opened:
        (run,) = opened.reader.runs()
        assert len(opened.reader.events(run.run_id, types=["Judged"])) == 40
        assert len(opened.reader.events(run.run_id, types=["RunFinished"])) == 1
    shown = subprocess.run(_cli("--ledger", str(ledger), "show", "latest", "--json"), env=_env(),
                           capture_output=True, text=True, cwd=tmp_path)
    assert json.loads(shown.stdout)["run_status"] == "completed"


def test_ctrl_c_during_an_audit_names_the_continue_command(tmp_path):
    ledger = tmp_path / "runs.db"
    base = ("--ledger", str(ledger))
    with LoopbackOpenAI(latency=0.0) as server:
        ran = subprocess.run(_cli(*base, "run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5",
                                  "--base-url", server.base_url), env=_env(), capture_output=True, text=True,
                             cwd=tmp_path, timeout=300)
        assert ran.returncode == 0, ran.stderr
        server.latency = 0.5
        audit = subprocess.Popen(_cli(*base, "audit", "judge", "latest", "--concurrency", "1"), env=_env(),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                                 preexec_fn=_as_at_a_terminal)
        code, stderr = _interrupt_when(audit, ledger, "PlantJudged", 3)
        assert code == 130, stderr
        line = stderr.strip().splitlines()[-1]
        assert line.startswith("interrupted: audit a1 of run ") and " is partial; " in line
        continue_line = line.split("Finish it with: ")[1]
        assert continue_line.endswith(" --continue a1")
        server.latency = 0.0
        finished = subprocess.run(_typed(continue_line), env=_env(), capture_output=True, text=True,
                                  cwd=tmp_path, timeout=300)
        assert finished.returncode == 0, finished.stderr
        assert "judge audit a1" in finished.stderr


def test_ctrl_c_during_any_other_long_command_exits_130_saying_it_can_be_run_again(tmp_path):
    """`fetch` from a source that never answers: Ctrl-C, not click's bare `Aborted!` with exit 1."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept_and_say_nothing() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept_and_say_nothing, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        fetch = subprocess.Popen(_cli("fetch", "locomo", "--to", str(tmp_path / "data"), "--github-raw", url),
                                 env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                                 preexec_fn=_as_at_a_terminal)
        _wait_while_alive(fetch, lambda: bool(held), "fetch to connect")
        fetch.send_signal(signal.SIGINT)
        _, stderr = fetch.communicate(timeout=120)
    finally:
        stop.set()
        thread.join(timeout=10)
        for conn in held:
            conn.close()
        listener.close()
    assert fetch.returncode == 130, stderr
    assert "Aborted!" not in stderr
    assert stderr.strip().splitlines()[-1].startswith("interrupted: `benchledger fetch locomo")
    assert "run the same command again to go on" in stderr
