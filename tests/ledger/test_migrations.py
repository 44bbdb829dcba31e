"""The ledger file's schema after migrations: tables, columns, indexes, triggers, markers."""

from __future__ import annotations

import sqlite3
import pytest
from benchledger.ledger import migrations
from benchledger.errors import LedgerError
from benchledger.ledger.store import Ledger


def schema(path) -> dict[str, dict[str, str]]:
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex%'")
    found: dict[str, dict[str, str]] = {}
    for type_, name, table in rows:
        found.setdefault(type_, {})[name] = table
    return found


def test_a_new_ledger_has_exactly_the_expected_schema(tmp_path):
    path = tmp_path / "ledger.db"
    Ledger.open(path).close()
    assert schema(path) == {
        "table": {name: name for name in (
            "schema_migrations", "meta", "events", "sqlite_sequence", "blobs", "cache", "views",
            "responses")},
        "index": {"events_run_markers": "events"},
        "trigger": {
            "events_no_update": "events", "events_no_delete": "events", "events_no_replace": "events",
            "blobs_no_update": "blobs", "blobs_no_delete": "blobs", "blobs_insert_if_absent": "blobs",
            "responses_no_update": "responses", "responses_no_delete": "responses",
            "responses_insert_if_absent": "responses", "cache_frozen_insert": "cache",
            "cache_frozen_update": "cache", "cache_frozen_delete": "cache",
        },
    }
    conn = sqlite3.connect(path)
    columns = [row[1] for row in conn.execute("PRAGMA table_info(events)")]
    assert columns == ["seq", "run_id", "position", "type", "schema_version", "recorded_at",
                       "idempotency_key", "payload", "prev_hash", "hash", "chain", "link"]
    unique = sorted(tuple(c[2] for c in conn.execute(f"PRAGMA index_info('{name}')"))
                    for _, name, is_unique, *_ in conn.execute("PRAGMA index_list(events)")
                    if is_unique)
    assert unique == [("run_id", "idempotency_key"), ("run_id", "position")]
    assert [row[1] for row in conn.execute("PRAGMA table_info(views)")] == [
        "run_id", "name", "version", "position", "value"]
    assert [row[1] for row in conn.execute("PRAGMA table_info(cache)")] == [
        "key", "response", "model", "created_at"]
    assert [row[1] for row in conn.execute("PRAGMA table_info(responses)")] == [
        "request_digest", "response", "response_digest", "model", "run_id", "idempotency_key",
        "recorded_at"]


def test_the_file_is_marked_and_its_migrations_recorded(tmp_path):
    path = tmp_path / "ledger.db"
    Ledger.open(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == migrations.APPLICATION_ID
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert dict(conn.execute("SELECT key, value FROM meta"))["format"] == migrations.FORMAT
    assert [tuple(r) for r in conn.execute("SELECT number, name FROM schema_migrations")] == [
        (m.number, m.name) for m in migrations.MIGRATIONS]
    assert migrations.MIGRATIONS[0].name == "m001_initial"


def test_reopening_applies_nothing_twice(tmp_path):
    path = tmp_path / "ledger.db"
    Ledger.open(path).close()
    before = schema(path)
    Ledger.open(path).close()
    assert schema(path) == before
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] == len(migrations.MIGRATIONS)
    assert conn.execute("SELECT COUNT(*) FROM meta WHERE key = 'format'").fetchone()[0] == 1


def test_a_later_migration_is_applied_by_the_first_write_and_never_by_a_read(tmp_path, monkeypatch):
    path = tmp_path / "ledger.db"
    Ledger.open(path).close()
    added = migrations.Migration(99, "m099_test_note", ("CREATE TABLE notes (text TEXT)",))
    monkeypatch.setattr(migrations, "MIGRATIONS", (*migrations.MIGRATIONS, added))
    before = path.read_bytes()
    with Ledger.open(path) as ledger:
        assert ledger.reader.verify().ok and ledger.reader.runs() == []
    assert path.read_bytes() == before and "notes" not in schema(path)["table"]
    with Ledger.open(path) as ledger:
        ledger.writer.put_blob(b"a write")
    assert "notes" in schema(path)["table"]
    conn = sqlite3.connect(path)
    assert [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY number")] == [
        "m001_initial", "m002_guarded_response_cache", "m003_run_chains", "m099_test_note"]


def test_a_ledger_from_a_newer_benchledger_is_refused(tmp_path):
    path = tmp_path / "ledger.db"
    Ledger.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_migrations VALUES (99, 'm099_future', 'x')")
    conn.commit()
    with pytest.raises(LedgerError, match="newer benchledger"):
        Ledger.open(path)
