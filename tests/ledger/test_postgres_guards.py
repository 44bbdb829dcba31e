"""A PostgreSQL ledger is guarded by the server: roles, triggers, and a verify that checks them.

The writer role (what runs append) is refused, by the server and with its messages, every way
of changing a recorded event: UPDATE, DELETE, TRUNCATE, dropping or disabling a guard, a rule,
a replaced table, through psql as through psycopg. The owner is refused by the guard triggers
until it drops or disables them; whatever it then does, `verify` names: a disabled, dropped or
rewritten guard, a rule or row-level security added, an edited row, deleted newest rows.
"""

from __future__ import annotations

import shutil
import subprocess

import psycopg
import pytest

from benchledger.errors import LedgerError, NotALedger
from benchledger.ledger import pg_schema
from benchledger.ledger.events import Failed
from benchledger.ledger.pg_connection import connect
from benchledger.ledger.store import Ledger, init_ledger
from ledger_contract import answered, reply_entry
from pg_server import OWNER, WRITER

REQUEST = "a" * 64


def failed(qid: str) -> Failed:
    return Failed(stage="answer", question_id=qid, error_class="Timeout", message="slow")


@pytest.fixture
def ledger_url(postgres_server) -> str:
    """A ledger holding two runs, a blob and a cached response: the writer's URL."""
    url = postgres_server.new_ledger()
    with Ledger.open(url) as ledger:
        ledger.writer.append("run-a", [failed("q1"), failed("q2")])
        ledger.writer.append("run-b", [answered("q1", "Final: Paris", REQUEST)], blobs=[b"Final: Paris"],
                             cache=[reply_entry("q1", "Final: Paris", REQUEST)])
        assert ledger.reader.verify().ok
    return url


def schema_of(url: str) -> str:
    return url.rsplit("%3D", 1)[1]


def owner_url(server, url: str) -> str:
    return server.url(OWNER, schema_of(url))


def rows(server, url: str) -> list[tuple]:
    return server.sql("SELECT * FROM events ORDER BY seq", schema=schema_of(url))


def refused_by_psql(url: str, statement: str) -> str:
    """Run one statement through psql; the server's error line (the statement must fail)."""
    psql = shutil.which("psql")
    if psql is None:
        pytest.skip("psql is not on the PATH (Debian's postgresql-client package provides it)")
    done = subprocess.run([psql, url, "-v", "ON_ERROR_STOP=1", "-X", "-q", "-c", statement],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0, f"psql accepted {statement!r}"
    return next(line for line in done.stderr.splitlines() if line.startswith("ERROR:"))


def refused_by_psycopg(url: str, statement: str) -> str:
    with psycopg.connect(url, autocommit=True) as conn:
        with pytest.raises(psycopg.Error) as caught:
            conn.execute(statement)
    return caught.value.diag.message_primary or str(caught.value)


def verify(url: str, run_id: str | None = None):
    with Ledger.open(url) as ledger:
        return ledger.reader.verify(run_id)


# -- the writer role --------------------------------------------------------------------------

WRITER_ATTEMPTS = {
    "UPDATE events SET payload = '{}' WHERE seq = 1": "permission denied for table events",
    "DELETE FROM events WHERE seq = 3": "permission denied for table events",
    "TRUNCATE events": "permission denied for table events",
    "DROP TRIGGER events_no_update ON events": "must be owner of relation events",
    "ALTER TABLE events DISABLE TRIGGER events_no_delete": "must be owner of table events",
    "ALTER TABLE events DROP CONSTRAINT events_run_id_position_key": "must be owner of table events",
    "CREATE RULE keep_nothing AS ON INSERT TO events DO INSTEAD NOTHING": "must be owner of table events",
    "DROP TABLE events": "must be owner of table events",
    "CREATE OR REPLACE FUNCTION benchledger_refuse() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NULL; END$$":
        "permission denied for schema",
    "UPDATE blobs SET body = '\\x00'": "permission denied for table blobs",
    "DELETE FROM responses": "permission denied for table responses",
    "INSERT INTO blobs SELECT * FROM blobs ON CONFLICT (digest) DO UPDATE SET body = '\\x00'":
        "permission denied for table blobs",
    "UPDATE ledger_tail SET seq = seq - 1": "the ledger tail only moves forward, to a seq the ledger holds",
    "UPDATE ledger_tail SET seq = seq + 5": "the ledger tail only moves forward, to a seq the ledger holds",
    "DELETE FROM ledger_tail": "permission denied for table ledger_tail",
}


@pytest.mark.parametrize("client", ["psql", "psycopg"])
def test_the_writer_role_cannot_change_delete_truncate_or_unguard_an_event(postgres_server, ledger_url, client):
    before = rows(postgres_server, ledger_url)
    refuse = refused_by_psql if client == "psql" else refused_by_psycopg
    for statement, message in WRITER_ATTEMPTS.items():
        assert message in refuse(ledger_url, statement), statement
    assert rows(postgres_server, ledger_url) == before
    assert verify(ledger_url).ok


def test_the_guards_refuse_the_owner_too_until_it_drops_them(postgres_server, ledger_url):
    owner = owner_url(postgres_server, ledger_url)
    for table, column, what in (("events", "payload", "events"), ("blobs", "body", "blobs"),
                                ("responses", "response", "cached responses")):
        for op, statement in (("UPDATE", f"UPDATE {table} SET {column} = {column}"),
                              ("DELETE", f"DELETE FROM {table}"), ("TRUNCATE", f"TRUNCATE {table}")):
            assert f"{what} are append-only: {op} refused" in refused_by_psycopg(owner, statement)
    assert verify(ledger_url).ok


def test_the_writers_messages_through_ledger_are_typed_errors(postgres_server, ledger_url):
    conn = connect(ledger_url)
    with pytest.raises(psycopg.Error) as caught:
        conn.execute("DELETE FROM events")
    error = conn.storage_error(caught.value, "delete from")
    conn.close()
    assert isinstance(error, LedgerError) and "permission denied for table events" in str(error)
    assert "role set-up" in str(error)


# -- what verify sees when the owner unguards the ledger -------------------------------------

def _as_owner(server, url: str, *statements: str) -> None:
    server.sql(*statements, user=OWNER, schema=schema_of(url))


@pytest.mark.parametrize("statements, problem", [
    (["ALTER TABLE events DISABLE TRIGGER events_no_update"], "guard trigger events_no_update was disabled"),
    (["DROP TRIGGER events_no_truncate ON events"], "guard trigger events_no_truncate is missing"),
    (["CREATE OR REPLACE FUNCTION benchledger_refuse() RETURNS trigger LANGUAGE plpgsql AS "
      "$$BEGIN RETURN NULL; END$$"], "function benchledger_refuse differs"),
    (["CREATE RULE keep_nothing AS ON DELETE TO events DO INSTEAD NOTHING"], "unexpected rule keep_nothing"),
    (["ALTER TABLE events ENABLE ROW LEVEL SECURITY"], "table events differs"),
    (["ALTER TABLE events DROP CONSTRAINT events_run_id_position_key"],
     "constraint events.events_run_id_position_key is missing"),
    (["CREATE TABLE notes (text text)"], "unexpected table notes"),
    (["CREATE TRIGGER extra AFTER INSERT ON blobs FOR EACH STATEMENT EXECUTE FUNCTION benchledger_refuse('x')"],
     "unexpected trigger extra"),
])
def test_verify_names_an_unguarded_schema(postgres_server, ledger_url, statements, problem):
    _as_owner(postgres_server, ledger_url, *statements)
    result = verify(ledger_url)
    assert not result.ok and problem in result.problem, result.problem
    assert not verify(ledger_url, "run-a").ok  # a checked read refuses it too


def test_verify_names_a_row_edited_with_the_guards_disabled(postgres_server, ledger_url):
    _as_owner(postgres_server, ledger_url, "ALTER TABLE events DISABLE TRIGGER events_no_update",
              "UPDATE events SET payload = replace(payload, 'q2', 'q9') WHERE seq = 2",
              "ALTER TABLE events ENABLE TRIGGER events_no_update")
    result = verify(ledger_url)
    assert (result.ok, result.first_bad_seq) == (False, 2) and "was changed" in result.problem
    assert verify(ledger_url, "run-a").first_bad_seq == 2 and verify(ledger_url, "run-b").ok


def test_verify_names_the_newest_rows_deleted_through_the_ledger_tail(postgres_server, ledger_url):
    _as_owner(postgres_server, ledger_url, "ALTER TABLE events DISABLE TRIGGER events_no_delete",
              "DELETE FROM events WHERE seq = 3", "ALTER TABLE events ENABLE TRIGGER events_no_delete")
    result = verify(ledger_url)
    assert (result.ok, result.first_bad_seq) == (False, 3) and "newest rows were deleted" in result.problem


# -- opening, creating, migrating -------------------------------------------------------------

def test_a_new_ledger_has_exactly_the_declared_schema(postgres_server):
    url = postgres_server.new_ledger()
    conn = connect(url)
    try:
        assert pg_schema.describe(conn) == pg_schema.expected()
        assert conn.execute("SELECT number, name FROM schema_migrations").fetchall() == [(1, "p001_ledger"),
                                                                                  (2, "p002_writer_identities"),
                                                                                  (3, "p003_no_table_locks")]
        assert conn.execute("SELECT seq FROM ledger_tail").fetchall() == [(0,)]
    finally:
        conn.close()


def test_opening_never_creates_and_init_is_idempotent(postgres_server):
    postgres_server.sql(f"CREATE SCHEMA empty_one AUTHORIZATION {OWNER}")
    url, owner = postgres_server.url(WRITER, "empty_one"), postgres_server.url(OWNER, "empty_one")
    with pytest.raises(NotALedger, match="no ledger in schema empty_one .*ledger init URL"):
        Ledger.open(owner)
    with pytest.raises(NotALedger, match="names no schema this role may use .*ledger init URL --writer ROLE"):
        Ledger.open(url)  # not yet granted anything
    postgres_server.sql(f"GRANT USAGE ON SCHEMA empty_one TO {WRITER}")
    with pytest.raises(LedgerError, match="permission denied for schema empty_one"):
        init_ledger(url)  # the writer cannot create a ledger
    assert postgres_server.sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'empty_one'") == [(0,)]
    assert init_ledger(owner, writers=(WRITER,)) == ["p001_ledger", "p002_writer_identities", "p003_no_table_locks"]
    assert init_ledger(owner, writers=(WRITER,)) == []
    with Ledger.open(url) as ledger:
        assert ledger.reader.runs() == [] and ledger.reader.verify().ok


def test_a_schema_holding_something_else_is_not_a_ledger(postgres_server):
    postgres_server.sql(f"CREATE SCHEMA accounts AUTHORIZATION {OWNER}")
    postgres_server.sql("CREATE TABLE people (name text)", user=OWNER, schema="accounts")
    with pytest.raises(NotALedger, match="holds tables \\(people\\) but no benchledger ledger"):
        Ledger.open(postgres_server.url(OWNER, "accounts"))
    with pytest.raises(NotALedger):
        init_ledger(postgres_server.url(OWNER, "accounts"))
    assert postgres_server.sql("SELECT tablename FROM pg_tables WHERE schemaname = 'accounts'") == [("people",)]


def test_a_ledger_from_a_newer_benchledger_is_refused(postgres_server):
    url = postgres_server.new_ledger()
    postgres_server.sql("INSERT INTO schema_migrations VALUES (99, 'p099_future', 'x')", user=OWNER,
                        schema=schema_of(url))
    with pytest.raises(LedgerError, match="newer benchledger"):
        Ledger.open(url)


def test_granting_a_role_that_does_not_exist_is_bad_input(postgres_server):
    from benchledger.errors import BadInput

    postgres_server.sql(f"CREATE SCHEMA lonely AUTHORIZATION {OWNER}")
    with pytest.raises(BadInput, match="create the role first"):
        init_ledger(postgres_server.url(OWNER, "lonely"), writers=("nobody_here",))
    assert postgres_server.sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'lonely'") == [(0,)]


def test_a_password_in_the_url_never_reaches_a_message(postgres_server):
    url = postgres_server.url(WRITER, "nowhere_at_all", password="s3cret-pass").replace("/postgres?", "/no_such_db?")
    with pytest.raises(LedgerError) as caught:
        Ledger.open(url)
    assert "s3cret-pass" not in str(caught.value) and "no_such_db" in str(caught.value)
