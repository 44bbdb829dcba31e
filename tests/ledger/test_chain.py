"""Append-only guards enforced by the database, and verify naming the first bad seq.

The tampering tests run on the same six rows written under each chain version (`ledger.chain`):
version 2 (what benchledger writes, each run chained on its own plus a link over the ledger)
and version 1 (what a ledger written before m003 holds, one chain over `seq`). A run-scoped
check under version 2 sees its own run only: another run's changed row is not its problem.
"""

from __future__ import annotations

import sqlite3
import zlib
import pytest
from hypothesis import given, strategies as st

from benchledger.ledger.chain import GENESIS, batch_linker, canonical_bytes, ledger_link, link_hash
from benchledger.errors import RunNotFound
from benchledger.ledger.events import Failed
from benchledger.ledger.migrations import GUARD_TRIGGERS
from benchledger.ledger.store import Ledger
from chain_rows import all_rows, append_legacy, relinked, rewrite


def failed(qid: str) -> Failed:
    return Failed(stage="judge", question_id=qid, error_class="ParseError", message="no Final:")


@pytest.fixture(params=[2, 1], ids=["run-chains", "one-chain"])
def chain(request) -> int:
    return request.param


@pytest.fixture
def path(tmp_path, chain):
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        for index in range(3):
            if chain == 2:
                ledger.writer.append("run-a", [failed(f"a{index}")])
                ledger.writer.append("run-b", [failed(f"b{index}")])
            else:
                append_legacy(path, "run-a", [failed(f"a{index}")])
                append_legacy(path, "run-b", [failed(f"b{index}")])
        ledger.writer.put_blob(b"a context")
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
        return ledger.reader.verify(run_id, refold=refold)


def rows(path) -> list[tuple]:
    return raw(path).execute("SELECT * FROM events ORDER BY seq").fetchall()


# -- chain version 2: a run's chain is its own, and the ledger's link binds the runs together ----


@pytest.fixture
def ledger2(tmp_path):
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        for index in range(3):
            ledger.writer.append("run-a", [failed(f"a{index}")])
            ledger.writer.append("run-b", [failed(f"b{index}")])
    return path


def test_a_runs_hashes_do_not_depend_on_other_runs(tmp_path):
    from freezegun import freeze_time

    with freeze_time("2026-01-02T03:04:05Z"):
        with Ledger.open(tmp_path / "alone.db") as alone, Ledger.open(tmp_path / "shared.db") as shared:
            shared.writer.append("other", [failed("x")])
            for index in range(3):
                alone.writer.append("run", [failed(f"q{index}")])
                shared.writer.append("run", [failed(f"q{index}")])
                shared.writer.append("other", [failed(f"y{index}")])
            assert [e.hash for e in alone.reader.events("run")] == [e.hash for e in shared.reader.events("run")]
            assert alone.reader.head("run") == shared.reader.head("run") and alone.reader.head() != shared.reader.head()
            assert alone.reader.events("run")[0].prev_hash == GENESIS


def test_every_row_is_linked_over_the_ledger(ledger2):
    value = GENESIS
    for row in all_rows(ledger2):
        assert row[10] == 2 and row[11] == ledger_link(value, row[9])
        value = row[11]


def test_a_whole_deleted_run_is_caught_by_the_ledgers_link(ledger2):
    tamper(ledger2, "DELETE FROM events WHERE run_id = 'run-b'",
           "UPDATE events SET seq = (seq + 1) / 2")  # run-a renumbered 1, 2, 3: no gap left
    result = verify(ledger2)
    assert (result.ok, result.first_bad_seq) == (False, 2) and "does not link" in result.problem
    assert verify(ledger2, "run-a").first_bad_seq == 3  # its last row no longer chains where it stands


def test_a_runs_deleted_newest_events_are_caught(tmp_path, ledger2):
    # run-a's last event (seq 5) goes, and seq 6 (run-b's) moves down to close the gap: the whole
    # ledger's chain shows it
    tamper(ledger2, "DELETE FROM events WHERE seq = 5", "UPDATE events SET seq = 5 WHERE seq = 6",
           "UPDATE sqlite_sequence SET seq = 5 WHERE name = 'events'")
    result = verify(ledger2)
    assert (result.ok, result.first_bad_seq) == (False, 5) and "does not link" in result.problem
    # a check of the run alone sees it where the row after the run's new last row was the deleted
    # row's successor (as a check of a version-1 run's segment did)
    path = tmp_path / "contiguous.db"
    with Ledger.open(path) as ledger:
        ledger.writer.append("run-a", [failed("a1"), failed("a2"), failed("a3")])
        ledger.writer.append("run-b", [failed("b1")])
    tamper(path, "DELETE FROM events WHERE seq = 3", "UPDATE events SET seq = 3 WHERE seq = 4",
           "UPDATE sqlite_sequence SET seq = 3 WHERE name = 'events'")
    run_a = verify(path, "run-a")
    assert (run_a.ok, run_a.first_bad_seq) == (False, 3) and "does not link" in run_a.problem


def test_a_forged_link_on_a_runs_last_row_is_caught(ledger2):
    # hide the deletion of run-a's last event by giving its new last row the deleted row's link
    deleted_link = all_rows(ledger2)[4][11]
    tamper(ledger2, "DELETE FROM events WHERE seq = 5", "UPDATE events SET seq = 5 WHERE seq = 6",
           f"UPDATE events SET link = '{deleted_link}' WHERE seq = 3",
           "UPDATE sqlite_sequence SET seq = 5 WHERE name = 'events'")
    run_a = verify(ledger2, "run-a")
    assert (run_a.ok, run_a.first_bad_seq) == (False, 3) and "does not link" in run_a.problem


def test_a_row_moved_to_another_run_is_caught(ledger2):
    tamper(ledger2, "UPDATE events SET run_id = 'run-b', position = 4 WHERE seq = 5")
    assert verify(ledger2).first_bad_seq == 5
    assert verify(ledger2, "run-b").first_bad_seq == 5  # its bytes no longer hash


def test_a_legacy_ledger_goes_on_under_run_chains_once_migrated(tmp_path):
    path = tmp_path / "ledger.db"
    Ledger.open(path).close()
    append_legacy(path, "old", [failed("o1"), failed("o2")])
    append_legacy(path, "other", [failed("x1")])
    with Ledger.open(path) as ledger:
        ledger.writer.append("old", [failed("o3")])  # the old run resumed: its next row links to its own last
        ledger.writer.append("new", [failed("n1")])
        assert ledger.reader.verify().ok and ledger.reader.verify("old").ok and ledger.reader.verify("new").ok
        old = ledger.reader.events("old")
        assert old[2].prev_hash == old[1].hash and ledger.reader.events("new")[0].prev_hash == GENESIS
    assert [row[10] for row in all_rows(path)] == [1, 1, 1, 2, 2]
    tamper(path, "UPDATE events SET payload = replace(payload, 'x1', 'x9') WHERE seq = 3")
    assert verify(path, "old").first_bad_seq == 3  # a version-1 row of another run, inside old's segment
    assert verify(path, "new").ok


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
    "VALUES ('run-a', 9, 'Failed', 1, 'now', 'failed:question:a0:judge:1', '{}', 'p', 'h')",
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


def test_a_clean_ledger_verifies(path, chain):
    hash_, link = raw(path).execute("SELECT hash, link FROM events WHERE seq = 6").fetchone()
    head = link if chain == 2 else hash_  # the ledger's head: what the next row would chain to
    assert verify(path).model_dump() == {"ok": True, "checked": 6, "first_bad_seq": None, "problem": None,
                                         "head": head, "stale": (), "legacy_keys": ()}
    assert (verify(path, "run-b").checked, verify(path, "run-b").head) == (3, hash_)
    with Ledger.open(path, create=False) as ledger:
        assert (ledger.reader.head(), ledger.reader.head("run-b"), ledger.reader.head("run-a")) == (head, hash_, all_rows(path)[4][9])


def test_one_changed_payload_byte_is_named(path, chain):
    tamper(path, "UPDATE events SET payload = replace(payload, 'a1', 'a7') WHERE seq = 3")
    result = verify(path)
    assert (result.ok, result.first_bad_seq, result.checked) == (False, 3, 2)
    assert "was changed" in result.problem
    assert verify(path, "run-a").first_bad_seq == 3
    if chain == 1:  # run-b's rows are intact, but its chain runs through the changed row
        assert verify(path, "run-b").first_bad_seq == 3
    else:  # run-b's chain is its own
        assert verify(path, "run-b").ok


def test_a_changed_recorded_at_is_named(path):
    tamper(path, "UPDATE events SET recorded_at = '2020-01-01T00:00:00.000000Z' WHERE seq = 5")
    assert verify(path).first_bad_seq == 5


def test_a_deleted_row_is_named(path, chain):
    tamper(path, "DELETE FROM events WHERE seq = 4")
    result = verify(path)
    assert (result.ok, result.first_bad_seq) == (False, 4)
    assert "missing" in result.problem
    assert verify(path, "run-a").first_bad_seq == 4  # seq 5's neighbour is gone
    run_b = verify(path, "run-b")
    if chain == 1:  # the gap lies inside run-b's own segment
        assert (run_b.ok, run_b.first_bad_seq) == (False, 4) and "missing" in run_b.problem
    else:  # run-b's position 3 no longer follows its position 1
        assert (run_b.ok, run_b.first_bad_seq) == (False, 6)
        assert "does not link to the previous event of run run-b" in run_b.problem


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
    kept = [(seq, *row[1:]) for seq, row in enumerate((r for r in all_rows(path) if r[0] != 3), 1)]
    rewrite(path, relinked(kept), issued=5)
    result = verify(path)
    assert (result.ok, result.first_bad_seq) == (False, 4)
    assert "position 3 in run run-a, expected 2" in result.problem
    assert verify(path, "run-a").first_bad_seq == 4


def test_a_rewrite_that_keeps_every_hash_shows_only_against_a_pinned_head(path):
    # The consistent rewrite: every row re-hashed after an edit (its key re-derived too, or the store's
    # rules name it). Only a head kept elsewhere shows it.
    with Ledger.open(path, create=False) as ledger:
        heads = ledger.reader.head(), ledger.reader.head("run-a")
    rows = [(*row[:6], row[6] and row[6].replace("a1", "a7"), row[7].replace("a1", "a7"), *row[8:])
            for row in all_rows(path)]
    rewrite(path, relinked(rows))
    assert verify(path).ok and verify(path, "run-a").ok
    with Ledger.open(path, create=False) as ledger:
        assert not ledger.reader.verify(expect_head=heads[0]).ok
        assert not ledger.reader.verify("run-a", expect_head=heads[1]).ok


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
        ledger.writer.append("run-a", [failed("q1")], views=[("failed", 1, 1)])
        ledger.writer.append("run-a", [failed("q2")], views=[("failed", 1, 2), ("old", 1, "x")])
        ledger.writer.append("run-a", [failed("q3")])  # the view stays at position 2
        assert ledger.reader.verify(refold=count_failed).ok
        assert ledger.reader.verify("run-a", refold=count_failed).ok
    raw(path).execute("UPDATE views SET value = '5' WHERE name = 'failed'")
    with Ledger.open(path) as ledger:
        result = ledger.reader.verify(refold=count_failed)
        assert (result.ok, result.first_bad_seq) == (False, 2)
        assert "view failed v1 of run run-a at position 2" in result.problem
        assert ledger.reader.verify().ok  # without refold, views are not checked


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
