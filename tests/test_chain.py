"""Append-only guards enforced by the database, and verify naming the first bad seq."""

from __future__ import annotations

import sqlite3
import zlib
import pytest
from hypothesis import given, strategies as st

from benchledger.ledger.chain import GENESIS, batch_linker, canonical_bytes, link_hash
from benchledger.errors import RunNotFound
from benchledger.ledger.events import Failed
from benchledger.ledger.migrations import GUARD_TRIGGERS
from benchledger.ledger.store import Ledger


def failed(qid: str) -> Failed:
    return Failed(stage="judge", question_id=qid, error_class="ParseError", message="no Final:")


@pytest.fixture
def path(tmp_path):
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        for index in range(3):
            ledger.append("run-a", [failed(f"a{index}")])
            ledger.append("run-b", [failed(f"b{index}")])
        ledger.put_blob(b"a context")
    return path  # seq 1,3,5 are run-a positions 1..3; seq 2,4,6 are run-b


def raw(path) -> sqlite3.Connection:
    """A connection like the sqlite3 shell's: no pragmas set, autocommit."""
    conn = sqlite3.connect(path, isolation_level=None)
    assert conn.execute("PRAGMA recursive_triggers").fetchone()[0] == 0
    return conn


def tamper(path, *statements: str) -> None:
    """Drop the guards by hand, run statements, put the guards back exactly as they were."""
    conn = raw(path)
    for name in GUARD_TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    for statement in statements:
        conn.execute(statement)
    for sql in GUARD_TRIGGERS.values():
        conn.execute(sql)
    conn.close()


def verify(path, run_id=None, refold=None):
    with Ledger.open(path, create=False) as ledger:
        return ledger.verify(run_id, refold=refold)


def rows(path) -> list[tuple]:
    return raw(path).execute("SELECT * FROM events ORDER BY seq").fetchall()


@pytest.mark.parametrize("statement", [
    "UPDATE events SET payload = '{}' WHERE seq = 2",
    "UPDATE OR REPLACE events SET position = 1 WHERE seq = 3",
    "DELETE FROM events WHERE seq = 6",
    "DELETE FROM events",
    "INSERT OR REPLACE INTO events SELECT * FROM events WHERE seq = 1",
    "REPLACE INTO events (seq, run_id, position, type, schema_version, recorded_at, payload, "
    "prev_hash, hash) VALUES (2, 'run-x', 1, 'Failed', 1, 'now', '{}', 'p', 'h')",
    "INSERT OR REPLACE INTO events (run_id, position, type, schema_version, recorded_at, payload, "
    "prev_hash, hash) VALUES ('run-a', 2, 'Failed', 1, 'now', '{}', 'p', 'h')",
    "INSERT OR REPLACE INTO events (run_id, position, type, schema_version, recorded_at, "
    "idempotency_key, payload, prev_hash, hash) "
    "VALUES ('run-a', 9, 'Failed', 1, 'now', 'failed:judge:-:a0:1', '{}', 'p', 'h')",
])
def test_the_database_refuses_to_change_or_remove_an_event(path, statement):
    before = rows(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        raw(path).execute(statement)
    assert rows(path) == before
    assert verify(path).ok


@pytest.mark.parametrize("statement", [
    "UPDATE blobs SET body = x'00'",
    "DELETE FROM blobs",
])
def test_the_database_refuses_to_change_or_remove_a_blob(path, statement):
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        raw(path).execute(statement)


def test_replacing_a_blob_leaves_the_stored_body(path):
    conn = raw(path)
    (digest, body) = conn.execute("SELECT digest, body FROM blobs").fetchone()
    conn.execute("INSERT OR REPLACE INTO blobs VALUES (?, 1, 'zlib', ?)", (digest, zlib.compress(b"x")))
    assert conn.execute("SELECT body FROM blobs").fetchall() == [(body,)]


def test_a_clean_ledger_verifies(path):
    head = raw(path).execute("SELECT hash FROM events WHERE seq = 6").fetchone()[0]
    assert verify(path).model_dump() == {"ok": True, "checked": 6, "first_bad_seq": None, "problem": None,
                                         "head": head}
    assert (verify(path, "run-b").checked, verify(path, "run-b").head) == (3, head)


def test_one_changed_payload_byte_is_named(path):
    tamper(path, "UPDATE events SET payload = replace(payload, 'a1', 'a7') WHERE seq = 3")
    result = verify(path)
    assert (result.ok, result.first_bad_seq, result.checked) == (False, 3, 2)
    assert "was changed" in result.problem
    assert verify(path, "run-a").first_bad_seq == 3
    # run-b's rows are intact, but the chain is global: the changed row lies inside its segment
    assert verify(path, "run-b").first_bad_seq == 3


def test_a_changed_recorded_at_is_named(path):
    tamper(path, "UPDATE events SET recorded_at = '2020-01-01T00:00:00.000000Z' WHERE seq = 5")
    assert verify(path).first_bad_seq == 5


def test_a_deleted_row_is_named(path):
    tamper(path, "DELETE FROM events WHERE seq = 4")
    result = verify(path)
    assert (result.ok, result.first_bad_seq) == (False, 4)
    assert "missing" in result.problem
    assert verify(path, "run-a").first_bad_seq == 4  # seq 5's neighbour is gone
    run_b = verify(path, "run-b")  # the gap lies inside run-b's own segment
    assert (run_b.ok, run_b.first_bad_seq) == (False, 4) and "missing" in run_b.problem


def test_a_deleted_row_with_seqs_renumbered_is_named(path):
    # Hide the gap: delete seq 3 and move every later row down by one.
    tamper(path, "DELETE FROM events WHERE seq = 3",
           "UPDATE events SET seq = seq - 1 WHERE seq > 3",
           "UPDATE sqlite_sequence SET seq = 5 WHERE name = 'events'")
    result = verify(path)
    assert (result.ok, result.first_bad_seq) == (False, 3)
    assert "does not link" in result.problem


def test_a_swapped_pair_of_rows_is_named(path):
    tamper(path,
           "UPDATE events SET seq = -2 WHERE seq = 2",
           "UPDATE events SET seq = 2 WHERE seq = 4",
           "UPDATE events SET seq = 4 WHERE seq = -2")
    result = verify(path)
    assert (result.ok, result.first_bad_seq) == (False, 2)


def test_swapped_positions_within_a_run_are_named(path):
    tamper(path,
           "UPDATE events SET position = 100 WHERE seq = 1",
           "UPDATE events SET position = 1 WHERE seq = 3",
           "UPDATE events SET position = 2 WHERE seq = 1")
    assert verify(path).first_bad_seq == 1


def test_a_deleted_newest_row_is_named_through_sqlite_sequence(path):
    tamper(path, "DELETE FROM events WHERE seq = 6")
    result = verify(path)
    assert (result.ok, result.first_bad_seq, result.checked) == (False, 6, 5)
    assert "newest rows were deleted" in result.problem
    assert verify(path, "run-a").first_bad_seq == 6


def test_a_rehashed_rewrite_still_shows_the_lost_position(path):
    # Delete run-a's position 2 and rebuild the chain so every hash is consistent again.
    kept = [row for row in rows(path) if row[0] != 3]
    statements = ["DELETE FROM events"]
    prev = GENESIS
    for seq, (_, run_id, position, type_, version, at, key, payload, _, _) in enumerate(kept, 1):
        hash_ = link_hash(prev, run_id, position, type_, version, at, key, payload)
        statements.append(
            f"INSERT INTO events VALUES ({seq}, '{run_id}', {position}, '{type_}', {version}, "
            f"'{at}', '{key}', '{payload}', '{prev}', '{hash_}')")
        prev = hash_
    statements.append("UPDATE sqlite_sequence SET seq = 5 WHERE name = 'events'")
    tamper(path, *statements)
    result = verify(path)
    assert (result.ok, result.first_bad_seq) == (False, 4)
    assert "position 3 in run run-a, expected 2" in result.problem


@pytest.mark.parametrize("name", list(GUARD_TRIGGERS))
def test_a_dropped_guard_is_reported(path, name):
    raw(path).execute(f"DROP TRIGGER {name}")
    result = verify(path)
    assert not result.ok and f"guard trigger {name} is missing" in result.problem
    assert not verify(path, "run-a").ok


def test_a_guard_replaced_by_a_no_op_is_reported(path):
    conn = raw(path)
    conn.execute("DROP TRIGGER events_no_delete")
    conn.execute("CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT 1; END")
    assert "events_no_delete was altered" in verify(path).problem


def test_a_changed_blob_body_is_reported(path):
    tamper(path, "UPDATE blobs SET body = x'" + zlib.compress(b"another context").hex() + "'")
    result = verify(path)
    assert not result.ok and "does not hash to its digest" in result.problem


def test_verify_of_an_unknown_run_says_so(path):
    with pytest.raises(RunNotFound):
        verify(path, "run-z")


def test_stored_views_are_compared_with_a_fresh_fold(tmp_path):
    path = tmp_path / "ledger.db"

    def count_failed(run_id, events):
        return {"failed": (1, sum(e.type == "Failed" for e in events)), "old": (9, None)}

    with Ledger.open(path) as ledger:
        ledger.append("run-a", [failed("q1")], views=[("failed", 1, 1)])
        ledger.append("run-a", [failed("q2")], views=[("failed", 1, 2), ("old", 1, "x")])
        ledger.append("run-a", [failed("q3")])  # the view stays at position 2
        assert ledger.verify(refold=count_failed).ok
        assert ledger.verify("run-a", refold=count_failed).ok
    raw(path).execute("UPDATE views SET value = '5' WHERE name = 'failed'")
    with Ledger.open(path) as ledger:
        result = ledger.verify(refold=count_failed)
        assert (result.ok, result.first_bad_seq) == (False, 2)
        assert "view failed v1 of run run-a at position 2" in result.problem
        assert ledger.verify().ok  # without refold, views are not checked


def test_canonical_bytes_frame_every_column_so_shifted_text_differs():
    one = canonical_bytes("ab", 1, "c", 1, "t", None, "{}")
    other = canonical_bytes("a", 1, "bc", 1, "t", None, "{}")
    assert one != other
    assert canonical_bytes("r", 1, "T", 1, "t", None, "{}") != canonical_bytes("r", 1, "T", 1, "t", "~", "{}")
    assert canonical_bytes("r", 12, "T", 1, "t", "k", "{\"é\":1}") == (
        "1:r,2:12,1:T,1:1,1:t,1:k,8:{\"é\":1},".encode())


@given(run_id=st.text(min_size=1), position=st.integers(1, 10**9), type_=st.text(min_size=1),
       version=st.integers(0, 99), at=st.text(), key=st.none() | st.text(), payload=st.text())
def test_the_append_paths_batch_linker_hashes_exactly_like_link_hash(run_id, position, type_,
                                                                     version, at, key, payload):
    prev = "ab" * 32
    link = batch_linker(run_id, at)
    assert link(prev, position, type_, version, key, payload.encode()) == link_hash(
        prev, run_id, position, type_, version, at, key, payload)
