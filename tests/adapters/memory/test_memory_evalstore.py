"""The evaluation store: marked on creation, refused when unmarked, purge/reset guarded."""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from pathlib import Path

import pytest
from benchledger.adapters.memory.evalstore import (
    APPLICATION_ID, MARKER_TABLE, STORE_KIND, check_store_path, is_evaluation_store, open_eval_store,
    purge_scope, reset, transaction,
)
from benchledger.adapters.memory.sqlite_fts import SqliteMemory
from benchledger.errors import NotAnEvaluationStore
from benchledger.testing.memory_contract import SCOPE, contract_corpus


def _plain_sqlite_file(path: Path) -> Path:
    """A SQLite file made by hand, the way another tool would: a table with a scope column."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (scope TEXT, body TEXT)")
    conn.executemany("INSERT INTO notes VALUES (?, ?)", [(SCOPE, "keep me"), (SCOPE, "and me")])
    conn.commit()
    conn.close()
    return path


def _notes(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    finally:
        conn.close()


def test_a_new_file_is_marked_as_an_evaluation_store(tmp_path: Path) -> None:
    conn = open_eval_store(tmp_path / "sub" / "eval.db")
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute(f"SELECT value FROM {MARKER_TABLE} WHERE key = 'kind'").fetchone()[0] == STORE_KIND
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] > 0
    assert is_evaluation_store(conn)
    conn.close()
    again = open_eval_store(tmp_path / "sub" / "eval.db", create=False)
    assert is_evaluation_store(again)
    assert again.execute(f"SELECT count(*) FROM {MARKER_TABLE}").fetchone()[0] == 3
    again.close()


def test_an_empty_sqlite_file_is_adopted(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    conn = open_eval_store(path)
    assert is_evaluation_store(conn)
    conn.close()


def test_a_sqlite_file_with_pages_but_no_tables_is_not_refused_by_the_early_check(tmp_path: Path) -> None:
    """What a reader sees while another process is creating the store: a header page, no schema yet."""
    path = tmp_path / "being-made.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
    conn.execute("VACUUM")  # writes page 1 and nothing else
    conn.close()
    assert path.stat().st_size > 0
    check_store_path(path)
    store = open_eval_store(path)
    assert is_evaluation_store(store)
    store.close()
    with pytest.raises(NotAnEvaluationStore, match="not a benchledger evaluation store"):
        check_store_path(_plain_sqlite_file(tmp_path / "other.db"))


def _create_store(path: str, go) -> None:
    go.wait()
    open_eval_store(path).close()


def test_checking_a_store_while_another_process_creates_it_never_refuses_it(tmp_path: Path) -> None:
    """Two runs given one new --memory-store: the second checks the file while the first marks it."""
    ctx = multiprocessing.get_context("spawn")
    refusals = []
    for attempt in range(12):
        path = tmp_path / f"store-{attempt}.db"
        go = ctx.Event()
        creator = ctx.Process(target=_create_store, args=(str(path), go))
        creator.start()
        go.set()
        deadline = time.monotonic() + 30
        while creator.is_alive() and time.monotonic() < deadline:
            try:
                check_store_path(path)
            except NotAnEvaluationStore as refusal:
                refusals.append(str(refusal))
        creator.join(timeout=30)
        assert creator.exitcode == 0
        check_store_path(path)
    assert refusals == []


def test_create_false_refuses_a_missing_file_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(NotAnEvaluationStore, match="no evaluation store"):
        open_eval_store(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


def test_a_hand_made_sqlite_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = _plain_sqlite_file(tmp_path / "other.db")
    with pytest.raises(NotAnEvaluationStore, match="not a benchledger evaluation store"):
        open_eval_store(path)
    with pytest.raises(NotAnEvaluationStore):
        SqliteMemory(path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["notes"]
    conn.close()


def test_purge_and_reset_refuse_a_hand_made_file(tmp_path: Path) -> None:
    path = _plain_sqlite_file(tmp_path / "other.db")
    conn = sqlite3.connect(path, isolation_level=None)
    with pytest.raises(NotAnEvaluationStore, match="refusing to purge"):
        purge_scope(conn, SCOPE, tables=["notes"])
    with pytest.raises(NotAnEvaluationStore, match="refusing to reset"):
        reset(conn)
    assert not conn.in_transaction
    conn.close()
    assert _notes(path) == 2


def test_a_store_that_lost_either_mark_is_not_one(tmp_path: Path) -> None:
    conn = open_eval_store(tmp_path / "eval.db")
    conn.execute("PRAGMA application_id = 7")
    assert not is_evaluation_store(conn)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    assert is_evaluation_store(conn)
    conn.execute(f"UPDATE {MARKER_TABLE} SET value = 'something-else' WHERE key = 'kind'")
    assert not is_evaluation_store(conn)
    conn.close()


def test_purge_scope_deletes_only_that_scope_and_counts_the_first_table(tmp_path: Path) -> None:
    conn = open_eval_store(tmp_path / "eval.db")
    with transaction(conn):
        conn.execute("CREATE TABLE docs (scope TEXT, doc_id TEXT)")
        conn.execute("CREATE TABLE extra (scope TEXT)")
        conn.execute("CREATE TABLE scratch (x)")
        conn.executemany("INSERT INTO docs VALUES (?, ?)", [("a", "1"), ("a", "2"), ("b", "3")])
        conn.executemany("INSERT INTO extra VALUES (?)", [("a",)] * 5)
    assert purge_scope(conn, "a", tables=["docs", "extra"], drop=["scratch"]) == 2
    assert conn.execute("SELECT doc_id FROM docs").fetchall() == [("3",)]
    assert conn.execute("SELECT count(*) FROM extra").fetchone()[0] == 0
    assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'scratch'").fetchone()
    conn.close()


def test_a_failed_transaction_rolls_back(tmp_path: Path) -> None:
    conn = open_eval_store(tmp_path / "eval.db")
    conn.execute("CREATE TABLE t (x)")
    with pytest.raises(ZeroDivisionError):
        with transaction(conn):
            conn.execute("INSERT INTO t VALUES (1)")
            1 / 0
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0
    conn.close()


def test_reset_empties_a_store_that_memory_systems_used(tmp_path: Path) -> None:
    path = tmp_path / "eval.db"
    memory = SqliteMemory(path)
    memory.ingest(SCOPE, contract_corpus())
    list(memory.build(SCOPE))
    memory.close()
    conn = open_eval_store(path, create=False)
    assert reset(conn) >= 3
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert names == [MARKER_TABLE]
    assert is_evaluation_store(conn)
    conn.close()
    reopened = SqliteMemory(path)
    assert reopened.state(SCOPE).documents == 0
    assert reopened.recall(SCOPE, "billing", asking_user=None, k=5, token_budget=None) == []
    reopened.close()


# -- purging gives the space back --------------------------------------------------------------

_BULK = [f"message {i}: the billing migration to postgres, launch plan item {i % 97}, owner User_{i % 13}. " * 3
         for i in range(4000)]


def _fill(memory, scope: str) -> None:
    from benchledger.testing.memory_contract import contract_corpus

    memory.ingest(scope, contract_corpus(prefix=f"{scope}_", texts=_BULK))
    for _ in memory.build(scope):
        pass


@pytest.mark.parametrize("name", ["sqlite", "structured", "bm25-reference"])
def test_purging_every_scope_shrinks_the_store_file(tmp_path, name):
    from benchledger.adapters.memory.registry import open_memory

    path = tmp_path / "store.sqlite"
    memory = open_memory(name, path)
    try:
        empty = path.stat().st_size
        _fill(memory, "scope-a")
        _fill(memory, "scope-b")
        memory.purge("scope-a")
        half = path.stat().st_size
        assert memory.state("scope-b").documents == len(_BULK)  # the other scope is untouched
        memory.purge("scope-b")
        after = path.stat().st_size
    finally:
        memory.close()
    assert half > 20 * empty, "the store should hold one scope's pages"
    assert after <= 2 * empty + 64 * 1024, f"{after} bytes left after purging every scope (empty store {empty})"
    wal = Path(str(path) + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_a_store_made_without_auto_vacuum_is_converted_at_its_first_purge(tmp_path):
    path = tmp_path / "old.sqlite"
    memory = SqliteMemory(path)
    _fill(memory, "scope-a")
    memory.close()
    conn = sqlite3.connect(path, isolation_level=None)  # as stores were made before: auto_vacuum off
    conn.execute("PRAGMA auto_vacuum = NONE")
    conn.execute("VACUUM")
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    conn.close()
    full = path.stat().st_size
    memory = SqliteMemory(path)
    try:
        assert memory.purge("scope-a") == len(_BULK)
    finally:
        memory.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2
    conn.close()
    assert path.stat().st_size < full / 20
