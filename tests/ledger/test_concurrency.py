"""Several real processes (and threads) append to one run of one new ledger at the same time."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from benchledger.ledger.events import Failed
from benchledger.ledger.store import Ledger
from conftest import REPO


# Each writer opens the (possibly not yet created) ledger, waits for the start file, then appends
# its own events in batches of 1..5 interleaved with events every writer also tries to append
# (same idempotency key), and prints (seq, position, key) of every row it wrote.
WRITER = r"""
import json, sys, time
from pathlib import Path
from benchledger.ledger.events import Failed
from benchledger.ledger.store import Ledger

path, writer, count, shared = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
start = Path(path + ".start")
ledger = Ledger.open(path)
while not start.exists():
    time.sleep(0.005)
mine = [Failed(stage="answer", question_id=f"w{writer}-{i}", error_class="E", message="m")
        for i in range(count)]
common = [Failed(stage="recall", question_id=f"shared-{i}", error_class="E", message="m")
          for i in range(shared)]
written, index, size = [], 0, 1
while index < count:
    batch = mine[index:index + size]
    if common:
        batch.append(common.pop(0))
    written += [(e.seq, e.position, e.idempotency_key) for e in ledger.writer.append("run", batch)]
    index += size
    size = size % 5 + 1
ledger.close()
print(json.dumps(written))
"""


@pytest.mark.slow
def test_four_processes_append_to_one_run_without_loss_or_duplication(tmp_path):
    path = tmp_path / "ledger.db"
    writers, count, shared = 4, 150, 20
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w), str(count), str(shared)],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for w in range(writers)]
    (tmp_path / "ledger.db.start").touch()
    reported = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        reported += [tuple(row) for row in json.loads(out)]

    with Ledger.open(path, create=False) as ledger:
        stored = ledger.reader.events("run")
        result = ledger.reader.verify()
    expected = writers * count + shared
    assert [e.position for e in stored] == list(range(1, expected + 1))
    keys = Counter(e.idempotency_key for e in stored)
    assert len(keys) == expected and max(keys.values()) == 1
    assert {f"failed:question:w{w}-{i}:answer:1" for w in range(writers) for i in range(count)} <= set(keys)
    # what each process was told it wrote is exactly what is stored, seq included
    assert sorted(reported) == [(e.seq, e.position, e.idempotency_key) for e in stored]
    assert result.ok and result.checked == expected


def test_threads_sharing_one_ledger_append_without_loss(tmp_path):
    errors: list[BaseException] = []
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        def work(thread: int) -> None:
            try:
                for i in range(40):
                    ledger.writer.append("run", [Failed(stage="judge", question_id=f"t{thread}-{i}",
                                                        error_class="E", message="m")])
                    ledger.reader.events("run", types=["Failed"])
            except BaseException as exc:  # surfaced below; a thread cannot fail the test itself
                errors.append(exc)
        threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert [e.position for e in ledger.reader.events("run")] == list(range(1, 161))
        assert ledger.reader.verify().ok


@pytest.mark.slow
def test_verify_loops_cleanly_beside_two_writing_processes(tmp_path):
    # Regression: reading the file through a plain handle while a connection was open dropped
    # this process's POSIX locks, so the other process checkpointed under it (broken chain,
    # "database disk image is malformed"); and verify must read one snapshot, or a commit
    # landing mid-check looks like a deleted tail.
    path = tmp_path / "ledger.db"
    Ledger.open(path).close()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w), "300", "0"],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for w in range(2)]
    (tmp_path / "ledger.db.start").touch()
    results = []
    while any(proc.poll() is None for proc in procs):
        with Ledger.open(path, create=False) as ledger:
            results.append(ledger.reader.verify())
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    assert len(results) >= 3, "verify must run while the writers write"
    assert [r for r in results if not r.ok] == []
    with Ledger.open(path, create=False) as ledger:
        assert ledger.reader.verify().checked == 600
