"""A stored body is never trusted: re-hashed by a run's `verify`, by `push` and `pull`, inflated no
further than its recorded size.

The bomb is real: 3 MB of zlib that inflates to 3 GB, planted under a digest a run's event names,
as someone holding the file could. `verify` (the whole ledger and the run) runs in a subprocess
under an address-space limit well below 3 GB and must say so in one line, exit 1, no traceback.
"""

from __future__ import annotations

import hashlib
import os
import resource
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from benchledger.errors import LedgerError, VerificationFailed
from benchledger.ledger import blobs
from benchledger.ledger.copies import RunCopy
from benchledger.ledger.store import Ledger
from benchledger.ledger.transfer import copy_run
from ledger_contract import answered

LIMIT = 1536 << 20
"""The address space the verifying process may use: half of what the bomb inflates to."""
REPLY = b"Final: Paris"
DIGEST = hashlib.sha256(REPLY).hexdigest()
RUN = "01JBBS00000000000000000RVN"


def zlib_bomb(megabytes: int) -> bytes:
    """A valid zlib stream of `megabytes` MiB of zeros (about 1 KB per MiB), built without them."""
    zeros = bytes(1 << 20)
    deflate = zlib.compressobj(9)
    first = deflate.compress(zeros) + deflate.flush(zlib.Z_FULL_FLUSH)
    again = deflate.compress(zeros) + deflate.flush(zlib.Z_FULL_FLUSH)  # each later MiB, from a reset state
    check = 1
    for _ in range(megabytes):
        check = zlib.adler32(zeros, check)
    return first + again * (megabytes - 1) + b"\x03\x00" + check.to_bytes(4, "big")


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return zlib_bomb(3000)


def plant(path: Path, size: int, body: bytes, encoding: str = "zlib") -> None:
    """Put a row under DIGEST as someone holding the file could (blobs take INSERTs)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("INSERT INTO blobs (digest, size, encoding, body) VALUES (?, ?, ?, ?)",
                 (DIGEST, size, encoding, body))
    conn.close()


def a_run(path: Path) -> str:
    with Ledger.open(path) as ledger:  # the event names the reply's digest; its body is planted
        ledger.writer.append(RUN, [answered("q1", REPLY.decode(), "r" * 64)])
    return RUN


def limited_cli(*args: str) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

    return subprocess.run([str(Path(sys.executable).parent / "benchledger"), *args], capture_output=True, text=True,
                          preexec_fn=limit, timeout=300, env={**os.environ, "NO_COLOR": "1"})


@pytest.mark.parametrize("recorded", [len(REPLY), 3000 << 20], ids=["a-lying-size", "the-true-size"])
def test_a_zlib_bomb_is_one_line_at_constant_memory(tmp_path, bomb, recorded):
    path = tmp_path / "bomb.db"
    run_id = a_run(path)
    plant(path, recorded, bomb)
    assert len(bomb) > 3_000_000
    for args in (["verify"], ["verify", run_id], ["blob", DIGEST]):
        done = limited_cli("--ledger", str(path), *args)
        assert done.returncode == 1, done.stderr[-2000:]
        assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and DIGEST in lines[0], done.stderr
        assert ("inflates beyond" in lines[0]) if recorded == len(REPLY) else ("outside what a ledger" in lines[0])


def test_the_bound_is_the_recorded_size_on_both_sides():
    body = zlib.compress(REPLY)
    assert blobs.unpack(DIGEST, len(REPLY), "zlib", body) == REPLY
    with pytest.raises(blobs.BadBlob, match="inflates beyond the 11 bytes"):
        blobs.unpack(DIGEST, len(REPLY) - 1, "zlib", body)
    with pytest.raises(blobs.BadBlob, match="inflates to 12 bytes, not the 13"):
        blobs.unpack(DIGEST, len(REPLY) + 1, "zlib", body)
    with pytest.raises(blobs.BadBlob, match="cut short"):
        blobs.unpack(DIGEST, len(REPLY), "zlib", body[:-3])
    assert blobs.unpack(DIGEST, len(REPLY), "identity", REPLY) == REPLY
    with pytest.raises(blobs.BadBlob, match="holds 12 bytes, not the 11"):
        blobs.unpack(DIGEST, len(REPLY) - 1, "identity", REPLY)


def test_a_run_scoped_verify_re_hashes_the_bodies_its_events_name(tmp_path):
    path = tmp_path / "edited.db"
    run_id = a_run(path)
    other = b"Final: Rome!"  # as long as the real reply: only the hash tells
    plant(path, len(other), zlib.compress(other))
    with Ledger.open(path, create=False) as ledger:
        result = ledger.reader.verify(run_id)
        assert not result.ok and f"blob {DIGEST} does not hash to its digest" in result.problem
        with Ledger.open(tmp_path / "clean.db") as clean:
            clean.writer.append(RUN, [answered("q1", REPLY.decode(), "r" * 64)], blobs=[REPLY])
            assert clean.reader.verify(RUN).ok  # the same run with its true body checks


def test_push_and_pull_re_hash_every_body(tmp_path):
    path = tmp_path / "edited.db"
    run_id = a_run(path)
    plant(path, len(REPLY), zlib.compress(b"Final: Rome!"[:len(REPLY)]))
    with Ledger.open(path, create=False) as source, Ledger.open(tmp_path / "target.db") as target:
        with pytest.raises(VerificationFailed, match=f"blob {DIGEST} does not hash"):
            copy_run(source, target, run_id)
        assert target.reader.runs() == []


def test_a_copy_carrying_a_wrong_body_writes_nothing(tmp_path):
    with Ledger.open(tmp_path / "a.db") as source, Ledger.open(tmp_path / "b.db") as target:
        source.writer.append(RUN, [answered("q1", REPLY.decode(), "r" * 64)], blobs=[REPLY])
        copy = source.reader.run_copy(RUN)
        assert copy.blobs == [(DIGEST, REPLY)]
        forged = RunCopy(copy.run_id, copy.rows, [(DIGEST, b"Final: Rome")], copy.responses, copy.views)
        with pytest.raises(LedgerError, match=f"blob {DIGEST} that does not hash"):
            target.writer.copy_in(forged)
        assert target.reader.runs() == []
        assert target.writer.copy_in(copy) == 1 and target.reader.get_blob(DIGEST) == REPLY
