"""Many writers at once, from separate processes with a connection each, on both backends.

Six processes start together; each appends its own run one event per transaction, and every
one of them also appends to one run they share. Afterwards nothing is lost or doubled (every
run holds positions 1..N with every idempotency key once), the runs' events are interleaved in
the ledger's seq order, and the whole ledger and every run verify: one linear chain, however the
appends met at its tail.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from benchledger.ledger.store import Ledger
from conftest import wait_until

pytestmark = pytest.mark.slow

WRITERS, EACH = 6, 25

_WRITER = textwrap.dedent("""
    import sys, time
    from benchledger.ledger.events import Failed
    from benchledger.ledger.store import Ledger

    from pathlib import Path
    target, index, each, gate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
    with Ledger.open(target) as ledger:
        ledger.reader.runs()  # connected and ready before the start
        (gate / f"ready-{index}").touch()
        while not (gate / "go").exists():
            time.sleep(0.002)
        for n in range(each):
            event = lambda qid: Failed(stage="answer", question_id=qid, error_class="E", message=str(n))
            ledger.writer.append(f"writer-{index}", [event(f"q{n}")])
            ledger.writer.append("shared", [event(f"w{index}-q{n}")])
""")


@pytest.fixture(params=["sqlite", "postgres"])
def target(request, tmp_path) -> str:
    if request.param == "sqlite":
        path = tmp_path / "ledger.db"
        Ledger.open(path).close()
        return str(path)
    return request.getfixturevalue("postgres_server").new_ledger()


def test_concurrent_writers_lose_nothing_and_keep_one_chain(target, tmp_path):
    gate = tmp_path / "gate"  # every writer connects, says it is ready, and waits for "go"
    gate.mkdir()
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, target, str(index), str(EACH), str(gate)],
                              stderr=subprocess.PIPE, text=True) for index in range(WRITERS)]
    wait_until(lambda: len(list(gate.glob("ready-*"))) == WRITERS or any(p.poll() is not None for p in procs),
               within=120, what="every writer connected")
    (gate / "go").touch()
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-2000:]
    with Ledger.open(target) as ledger:
        for index in range(WRITERS):
            events = ledger.reader.events(f"writer-{index}")
            assert [e.position for e in events] == list(range(1, EACH + 1))
            assert [e.event.question_id for e in events] == [f"q{n}" for n in range(EACH)]
        shared = ledger.reader.events("shared")
        assert [e.position for e in shared] == list(range(1, WRITERS * EACH + 1))
        assert sorted(e.event.question_id for e in shared) == sorted(
            f"w{index}-q{n}" for index in range(WRITERS) for n in range(EACH))
        every = list(ledger.reader.iter_all())
        assert [e.seq for e in every] == list(range(1, 2 * WRITERS * EACH + 1))
        switches = sum(a.run_id != b.run_id for a, b in zip(every, every[1:]))
        assert switches > WRITERS * EACH, "the writers' events must be interleaved"
        owners = {e.run_id for e in every[: len(every) // 2] if e.run_id != "shared"}
        assert len(owners) > 1, "more than one writer appended in the first half"
        result = ledger.reader.verify()
        assert result.ok and result.checked == 2 * WRITERS * EACH, result
        for run_id in ["shared", *(f"writer-{index}" for index in range(WRITERS))]:
            assert ledger.reader.verify(run_id).ok
