"""One writer per run: a second process cannot resume, rejudge or purge a run being written."""

from __future__ import annotations

import subprocess
import sys
import pytest
from click.testing import CliRunner

from benchledger.cli.main import cli
from conftest import REPO
from benchledger.errors import RunBusy
from benchledger.orchestration.ownership import run_writer
from benchledger.ledger.store import Ledger

MINI = REPO / "examples" / "groupmem-mini"


def test_the_lock_is_exclusive_and_released_when_the_holder_exits(tmp_path):
    with Ledger.open(tmp_path / "l.db") as ledger:
        with run_writer(ledger, "RUN1"):
            with pytest.raises(RunBusy, match="being written"):
                with run_writer(ledger, "RUN1"):
                    pass
            with run_writer(ledger, "RUN2"):  # other runs are not affected
                pass
        holder = subprocess.run(
            [sys.executable, "-c", "import sys;"
             "from benchledger.ledger.store import Ledger;"
             "from benchledger.orchestration.ownership import run_writer;"
             "l = Ledger.open(sys.argv[1]); ctx = run_writer(l, 'RUN1'); ctx.__enter__(); import os; os._exit(0)",
             str(tmp_path / "l.db")], check=True)
        assert holder.returncode == 0
        with run_writer(ledger, "RUN1"):  # a holder that died (without unlocking) left no lock behind
            pass


def test_resume_refuses_a_run_another_process_is_writing(tmp_path):
    runner = CliRunner()
    assert runner.invoke(cli, ["run", "groupmem", str(MINI), "--domain", "Demo"], catch_exceptions=False).exit_code == 0
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        run_id = ledger.runs()[0].run_id
        with run_writer(ledger, run_id):
            for args in (["resume", run_id], ["rejudge", run_id], ["purge", run_id]):
                result = runner.invoke(cli, args, catch_exceptions=False)
                assert result.exit_code == 1 and "is being written by pid" in result.output, args
