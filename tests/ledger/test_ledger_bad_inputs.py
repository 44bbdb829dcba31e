"""Bad inputs at the store end with one line and an exit code, never a traceback or stray files.

A path that is not a regular file, a disk that fills mid-append, a damaged page, a number too
long for Python to convert, a read-only ledger, and commands that must refuse to print from a
ledger that does not verify. Full-disk and read-only-mount tests need to mount a small tmpfs,
which takes root (CI runs as root).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
from functools import partial
from pathlib import Path

import pytest

from benchledger.errors import BadInput, LedgerError, LedgerWriteFailed
from benchledger.ledger.chain import link_hash
from benchledger.ledger.events import Failed
from benchledger.ledger.migrations import GUARD_TRIGGERS
from benchledger.ledger.store import Ledger
from conftest import MINI
import ledger_cli


# Exceptions are caught: `one_line` names any that is not the SystemExit a refusal ends in.
invoke = partial(ledger_cli.invoke, catch_exceptions=True)


def one_line(result, code: int) -> str:
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Path:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root; CI runs as root and runs this test")
    where.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_device_is_refused_and_nothing_is_left_beside_it(tmp_path):
    for args in (["runs"], ["verify"], ["run", "groupmem", str(MINI), "--domain", "Demo"]):
        line = one_line(invoke("--ledger", "/dev/null", *args), 2)
        assert "/dev/null is not a regular file" in line
    assert not Path("/dev/null-journal").exists() and not Path("/dev/null-wal").exists()
    fifo = tmp_path / "fifo.db"
    os.mkfifo(fifo)
    with pytest.raises(LedgerError, match="not a regular file"):
        Ledger.open(fifo)


def test_a_full_disk_mid_append_ends_with_one_typed_line_and_the_ledger_intact(tmp_path):
    with tmpfs(tmp_path / "small", "300k") as disk:
        path = disk / "ledger.db"
        written = 0
        with Ledger.open(path) as ledger:
            with pytest.raises(LedgerWriteFailed) as caught:
                for index in range(10_000):
                    ledger.writer.append("run", [Failed(stage="answer", question_id=f"q{index}", error_class="E",
                                                        message="x" * 400)], blobs=[os.urandom(2000)])
                    written += 1
            message = str(caught.value)
            assert str(path) in message and "full" in message and "\n" not in message
        with Ledger.open(path, create=False) as ledger:
            assert ledger.reader.verify().ok
            assert len(ledger.reader.events("run")) == written, "every append that returned is kept, nothing else"


def _damage_a_page(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    # the events table's root page (the middle of the file may as well be an index's page, which a
    # run's reads along seq never touch: it moved when the keys grew)
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = 'events'").fetchone()
    conn.close()
    with open(path, "r+b") as handle:  # scribble over a page of the events table
        handle.seek(page_size * (root - 1))
        handle.write(b"\xff" * page_size)


def test_a_damaged_page_fails_verify_in_one_line_and_show_refuses(tmp_path):
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        for index in range(300):
            ledger.writer.append("run", [Failed(stage="answer", question_id=f"q{index}", error_class="E", message="m" * 300)])
    _damage_a_page(path)
    line = one_line(invoke("--ledger", str(path), "verify"), 1)
    assert "damaged" in line or "verify failed" in line
    line = one_line(invoke("--ledger", str(path), "show", "run"), 1)
    assert "damaged" in line or "does not verify" in line


def test_an_integer_too_long_to_convert_never_tracebacks(tmp_path):
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        with pytest.raises(BadInput, match="cannot be stored"):
            ledger.writer.append("run", [Failed(stage="run", error_class="E", message="m", attempt=10 ** 5000)])
        ledger.writer.append("run", [Failed(stage="run", error_class="E", message="m")])
    # a row whose payload holds one (written by hand, with a valid hash) cannot be read: one line
    conn = sqlite3.connect(path, isolation_level=None)
    seq, run_id, position, type_, version, at, key, payload, prev = conn.execute(
        "SELECT seq, run_id, position, type, schema_version, recorded_at, idempotency_key, payload, "
        "prev_hash FROM events").fetchone()
    payload = payload.replace('"attempt":1', '"attempt":' + "9" * 5000)
    for name in GUARD_TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("UPDATE events SET payload = ?, hash = ? WHERE seq = ?",
                 (payload, link_hash(prev, run_id, position, type_, version, at, key, payload), seq))
    for sql in GUARD_TRIGGERS.values():
        conn.execute(sql)
    with Ledger.open(path, create=False) as ledger:
        with pytest.raises(LedgerError, match="seq 1 .* cannot be read"):
            ledger.reader.events("run")
    for args in (["show", "run"], ["events", "run"], ["verify"]):
        result = invoke("--ledger", str(path), *args)
        assert result.exit_code in (0, 1) and "Traceback" not in result.output, (args, result.output)
        if result.exit_code:
            one_line(result, 1)


def _finished(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    result = invoke("--ledger", str(path), "run", "groupmem", str(MINI), "--domain", "Demo")
    assert result.exit_code == 0, result.output
    return path


@pytest.mark.slow
def test_commands_that_print_a_run_refuse_one_that_does_not_verify(tmp_path):
    path = _finished(tmp_path)
    with Ledger.open(path, create=False) as ledger:
        run_id = ledger.reader.runs()[0].run_id
    conn = sqlite3.connect(path, isolation_level=None)
    target = conn.execute("SELECT seq FROM events WHERE type = 'Judged' ORDER BY seq LIMIT 1").fetchone()[0]
    for name in GUARD_TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("UPDATE events SET payload = replace(payload, '\"incorrect\"', '\"correct\"') WHERE seq = ?",
                 (target,))
    conn.execute("UPDATE events SET payload = replace(payload, '\"reason\":\"', '\"reason\":\"edited \"') "
                 "WHERE seq = ?", (target,))
    for sql in GUARD_TRIGGERS.values():
        conn.execute(sql)
    for args in (["show", run_id], ["show", run_id, "--json"], ["export", run_id, "--format", "json", "--out", str(tmp_path / "x.json")],
                 ["replay", run_id], ["diff", run_id, run_id], ["agreement", run_id], ["combine", run_id],
                 ["questions", run_id], ["question", run_id, "temporal_1"], ["failures", run_id]):
        line = one_line(invoke("--ledger", str(path), *args), 1)
        assert f"does not verify at seq {target}" in line, (args, line)
    assert not (tmp_path / "x.json").exists()


@pytest.mark.slow
def test_nothing_is_written_to_a_ledger_whose_guards_were_dropped(tmp_path):
    """An unguarded ledger would take a run's events without protecting them: run, resume,
    rejudge and purge (every writer of a run takes its lock) refuse it before writing, naming
    the missing guard."""
    path = _finished(tmp_path)
    with Ledger.open(path, create=False) as ledger:
        run_id, events = ledger.reader.runs()[0].run_id, len(ledger.reader.events(ledger.reader.runs()[0].run_id))
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.close()
    for args in (["run", "groupmem", str(MINI), "--domain", "Demo", "--question-limit", "1"],
                 ["resume", run_id], ["rejudge", run_id], ["purge", run_id]):
        line = one_line(invoke("--ledger", str(path), *args), 1)
        assert "is not as its schema should be, so nothing is written" in line, (args, line)
        assert "guard trigger events_no_update is missing" in line, (args, line)
    with Ledger.open(path, create=False) as ledger:
        assert [r.run_id for r in ledger.reader.runs()] == [run_id] and len(ledger.reader.events(run_id)) == events


@pytest.mark.slow
def test_a_read_only_ledger_can_be_shown_and_verified(tmp_path):
    path = _finished(tmp_path)
    os.chmod(path, 0o444)
    assert invoke("--ledger", str(path), "verify").exit_code == 0
    assert invoke("--ledger", str(path), "show", "latest").exit_code == 0
    with tmpfs(tmp_path / "mount", "20m") as mount:
        with Ledger.open(path, create=False) as ledger:
            ledger.reader.verify()  # settles the WAL into the file before it is copied
        Path(mount / "ledger.db").write_bytes(path.read_bytes())
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        before = sorted(p.name for p in mount.iterdir())
        result = invoke("--ledger", str(mount / "ledger.db"), "verify")
        assert result.exit_code == 0, result.output
        shown = invoke("--ledger", str(mount / "ledger.db"), "show", "latest", "--json")
        assert shown.exit_code == 0 and '"run_id"' in shown.output, shown.output
        assert sorted(p.name for p in mount.iterdir()) == before
        written = invoke("--ledger", str(mount / "ledger.db"), "resume", "latest")
        assert written.exit_code != 0 and "Traceback" not in written.output


def test_a_read_only_mount_reads_the_write_ahead_log_left_beside_the_ledger(tmp_path):
    source = tmp_path / "live.db"
    with Ledger.open(source) as ledger:  # committed, but still in the WAL while it is open
        ledger.writer.append("run", [Failed(stage="answer", question_id=f"q{i}", error_class="E", message="m")
                                     for i in range(50)])
        names = ["live.db", "live.db-wal", "live.db-shm"]
        assert (tmp_path / "live.db-wal").stat().st_size > 0
        with tmpfs(tmp_path / "mount", "20m") as mount:
            for name in names:
                (mount / name).write_bytes((tmp_path / name).read_bytes())
            (mount / "no-shm.db").write_bytes((tmp_path / "live.db").read_bytes())
            (mount / "no-shm.db-wal").write_bytes((tmp_path / "live.db-wal").read_bytes())
            subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
            with Ledger.open(mount / "live.db", create=False) as copy:
                assert len(copy.reader.verified_events("run")) == 50 and copy.reader.verify().ok
            with pytest.raises(LedgerError, match="write-ahead log but no no-shm.db-shm"):
                Ledger.open(mount / "no-shm.db", create=False)


def test_a_disk_that_fills_mid_run_ends_in_one_line_and_resume_finishes_the_run(tmp_path):
    """The ledger's disk fills while the questions are being recorded: the run stops with one line
    naming the file and the cause; once space is freed, `resume` completes it."""
    with tmpfs(tmp_path / "small", "1m") as disk:
        ledger = disk / "ledger.db"
        store = tmp_path / "memory.sqlite"  # the memory store is elsewhere: only the ledger's disk fills
        filler = disk / "filler"
        filler.write_bytes(b"\0" * (1024 * 1024 - 320 * 1024))  # ~320 KiB left: the plan fits, the answers do not
        stopped = invoke("--ledger", str(ledger), "run", "groupmem", str(MINI), "--domain", "Demo",
                         "--memory-store", str(store))
        assert stopped.exit_code == 1 and "Traceback" not in stopped.output, stopped.output
        errors = [line for line in stopped.output.splitlines() if line.startswith("Error:")]
        assert len(errors) == 1 and str(ledger) in errors[0] and "full" in errors[0]  # after the progress lines
        filler.unlink()
        with Ledger.open(ledger, create=False) as opened:
            run_id = opened.reader.runs()[0].run_id
            assert opened.reader.verify().ok
        finished = invoke("--ledger", str(ledger), "resume", run_id)
        assert finished.exit_code == 0, finished.output
        shown = invoke("--ledger", str(ledger), "show", run_id)
        assert shown.exit_code == 0 and "failures: 0" in shown.output and "RUN " not in shown.output
        assert invoke("--ledger", str(ledger), "verify").exit_code == 0
