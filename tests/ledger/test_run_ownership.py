"""One writer per run: a second process cannot resume, rejudge or purge a run being written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.cli.main import cli
from conftest import REPO, MINI
from benchledger.errors import BadInput, RunBusy
from benchledger.ledger.events import Failed
from benchledger.ledger.store import Ledger


def test_the_lock_is_exclusive_and_released_when_the_holder_exits(tmp_path):
    with Ledger.open(tmp_path / "l.db") as ledger:
        with ledger.writer.run_writer("RUN1"):
            with pytest.raises(RunBusy, match="being written"):
                with ledger.writer.run_writer("RUN1"):
                    pass
            with ledger.writer.run_writer("RUN2"):  # other runs are not affected
                pass
        holder = subprocess.run(
            [sys.executable, "-c", "import sys;"
             "from benchledger.ledger.store import Ledger;"
             "l = Ledger.open(sys.argv[1]); ctx = l.writer.run_writer('RUN1'); ctx.__enter__(); import os; os._exit(0)",
             str(tmp_path / "l.db")], check=True)
        assert holder.returncode == 0
        with ledger.writer.run_writer("RUN1"):  # a holder that died (without unlocking) left no lock behind
            pass


def test_resume_refuses_a_run_another_process_is_writing(tmp_path):
    runner = CliRunner()
    assert runner.invoke(cli, ["run", "groupmem", str(MINI), "--domain", "Demo"], catch_exceptions=False).exit_code == 0
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        run_id = ledger.reader.runs()[0].run_id
        with ledger.writer.run_writer(run_id):
            for args in (["resume", run_id], ["rejudge", run_id], ["purge", run_id]):
                result = runner.invoke(cli, args, catch_exceptions=False)
                assert result.exit_code == 1 and "is being written by" in result.output, args


# A process that holds a run's writer lock through the path it was given until killed.
_HOLDER = r"""
import sys, time
from benchledger.ledger.store import Ledger
ledger = Ledger.open(sys.argv[1], create=False)
with ledger.writer.run_writer(sys.argv[2]):
    print("held", flush=True)
    time.sleep(600)
"""

_TRY = r"""
import sys
from benchledger.errors import BadInput, RunBusy
from benchledger.ledger.events import Failed
from benchledger.ledger.store import Ledger
with Ledger.open(sys.argv[1], create=False) as ledger:
    try:
        with ledger.writer.run_writer(sys.argv[2]):
            print("acquired")
    except RunBusy as busy:
        print("busy:", busy)
"""


def _attempt(path, run_id: str) -> str:
    return subprocess.run([sys.executable, "-c", _TRY, str(path), run_id], cwd=REPO, check=True,
                          capture_output=True, text=True, timeout=60).stdout.strip()


@pytest.mark.slow
def test_one_writer_per_run_whatever_the_path_and_nothing_left_behind(tmp_path):
    real = tmp_path / "ledger.db"
    Ledger.open(real).close()
    (tmp_path / "via-symlink.db").symlink_to(real)
    os.link(real, tmp_path / "via-hardlink.db")
    before = sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm")))
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(tmp_path / "via-symlink.db"), "RUN1"],
                              cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        for spelling in ("via-hardlink.db", "ledger.db", "via-symlink.db", "./sub/../ledger.db"):
            (tmp_path / "sub").mkdir(exist_ok=True)
            answer = _attempt(tmp_path / spelling, "RUN1")
            assert answer.startswith("busy:") and "another process" in answer, spelling
        assert _attempt(tmp_path / "via-hardlink.db", "RUN2") == "acquired"  # other runs are free
        with Ledger.open(tmp_path / "via-hardlink.db") as ledger:
            with pytest.raises(RunBusy):
                with ledger.writer.run_writer("RUN1"):
                    pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
    assert _attempt(tmp_path / "via-hardlink.db", "RUN1") == "acquired", "a killed holder leaves no lock"
    (tmp_path / "sub").rmdir()
    names = sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm")))
    assert names == before, "no lock file is left behind"


def test_a_hard_linked_ledger_is_never_written(tmp_path):
    real = tmp_path / "ledger.db"
    with Ledger.open(real) as ledger:
        ledger.writer.append("run", [Failed(stage="run", error_class="E", message="m")])
    os.link(real, tmp_path / "other-name.db")
    for name in ("ledger.db", "other-name.db"):
        with Ledger.open(tmp_path / name) as ledger:
            assert len(ledger.reader.events("run")) == 1  # reading is fine
            with pytest.raises(BadInput, match="2 hard links"):
                ledger.writer.append("run", [Failed(stage="run", error_class="E", message="again")])


def test_the_lock_is_a_byte_of_the_ledger_file_far_from_sqlites(tmp_path):
    from benchledger.ledger.writer_lock import lock_offset

    offsets = {lock_offset(f"run-{i}") for i in range(1000)}
    assert len(offsets) == 1000 and min(offsets) >= 2 ** 62 and max(offsets) < 2 ** 63
    with Ledger.open(tmp_path / "l.db") as ledger, ledger.writer.run_writer("RUN1"):
        assert not (tmp_path / "l.db.locks").exists()
        locks = Path("/proc/locks").read_text()
        inode = os.stat(tmp_path / "l.db").st_ino
        held = [line for line in locks.splitlines() if "OFDLCK" in line and f":{inode} " in line]
        assert [line.split()[-2] for line in held] == [str(lock_offset("RUN1"))]
