"""On a shared PostgreSQL ledger no writer or reader can hold the readers up, and no session waits
without end (issue 32, item 3).

Real roles on the session's throwaway cluster: `alice` and `mallory` write one ledger, `eve` only
reads it. The attack from the issue (a writer's `LOCK TABLE views IN ACCESS EXCLUSIVE MODE`, which
its UPDATE grant on `views` allowed) is tried on every table in every mode that holds up a reader's
SELECT or a writer's INSERT: refused, while the schema's owner still may (the test would notice a
grant that allowed it). A lock the owner does hold makes a reader fail within its `lock_timeout`,
in one line naming the owner's role. A ledger set up with the old grants is migrated (p003) and
its writers lose the lock, not the rows they write.
"""

from __future__ import annotations

import threading
import time
import uuid
from contextlib import contextmanager

import psycopg
import pytest
from click.testing import CliRunner

from benchledger.cli.main import cli as main
from benchledger.ledger import pg_schema
from benchledger.ledger.events import Failed
from benchledger.ledger.pg_connection import LIMITS, connect
from benchledger.ledger.store import Ledger, init_ledger
from pg_server import OWNER

RUN = "01JABCDEFGHJKMNPQRSTVWXYZ0"
HOLDS_READERS_UP = ("ACCESS EXCLUSIVE",)
"""PostgreSQL's table lock modes that conflict with ACCESS SHARE, what every SELECT takes."""
HOLDS_WRITERS_UP = ("SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE")
"""The modes that conflict with ROW EXCLUSIVE (an INSERT) or ROW SHARE (the tail's FOR UPDATE)."""
HARMLESS = ("ACCESS SHARE", "ROW SHARE", "ROW EXCLUSIVE")
"""The modes that conflict with neither: all a SELECT or INSERT grant may take."""


def failed(qid: str) -> Failed:
    return Failed(stage="answer", question_id=qid, error_class="Timeout", message="slow")


@pytest.fixture(scope="module")
def roles(postgres_server):
    for role in ("alice", "mallory", "eve"):
        postgres_server.sql(f"DO $$ BEGIN CREATE ROLE {role} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    return postgres_server


class Shared:
    def __init__(self, server, schema: str) -> None:
        self.server, self.schema = server, schema

    def url(self, role: str, **options: str) -> str:
        return self.server.url(role, self.schema) + "".join(f"%20-c{k}%3D{v}" for k, v in options.items())

    def sql(self, role: str, statement: str, params: tuple = ()) -> list[tuple]:
        with psycopg.connect(self.server.url(role, self.schema), autocommit=True) as conn:
            cursor = conn.execute(statement, params or None)
            return cursor.fetchall() if cursor.description else []

    @contextmanager
    def holding(self, role: str, *statements: str):
        """`statements` run by `role` in a transaction left open for the block (a lock held)."""
        ready, done, failure = threading.Event(), threading.Event(), []

        def hold() -> None:
            try:
                with psycopg.connect(self.server.url(role, self.schema)) as conn:
                    for statement in statements:
                        conn.execute(statement)
                    ready.set()
                    done.wait(60)
                    conn.rollback()
            except psycopg.Error as exc:
                failure.append(exc)
                ready.set()

        thread = threading.Thread(target=hold)
        thread.start()
        try:
            assert ready.wait(30)
            assert not failure, failure
            yield
        finally:
            done.set()
            thread.join()


@pytest.fixture
def shared(roles) -> Shared:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    roles.sql(f"CREATE SCHEMA {schema} AUTHORIZATION {OWNER}")
    init_ledger(roles.url(OWNER, schema), writers=("alice", "mallory"), readers=("eve",))
    shared = Shared(roles, schema)
    with Ledger.open(shared.url("alice")) as ledger:
        ledger.writer.append(RUN, [failed("q1")], views=[("tally", 1, {"n": 1})])
    return shared


def lock_refused(shared: Shared, role: str, table: str, mode: str) -> bool:
    try:
        shared.sql(role, f"BEGIN; LOCK TABLE {table} IN {mode} MODE NOWAIT; ROLLBACK")
    except psycopg.errors.InsufficientPrivilege:
        return True
    return False


def cli(url: str, *args: str):
    return CliRunner().invoke(main, ["--ledger", url, *args], catch_exceptions=False)


# -- the attack: no one but the owner may take a lock that holds anyone up ---------------------

@pytest.mark.parametrize("role", ["mallory", "eve"])
def test_no_writer_or_reader_may_lock_a_table_of_the_ledger_in_a_mode_that_holds_anyone_up(shared, role):
    allowed = [(table, mode) for table in pg_schema.TABLES for mode in HOLDS_WRITERS_UP
               if not lock_refused(shared, role, table, mode)]
    assert allowed == []
    # the other side: the schema's owner may, so a grant that allowed it would show above
    assert not lock_refused(shared, OWNER, "views", "ACCESS EXCLUSIVE")
    assert not lock_refused(shared, OWNER, "ledger_tail", "EXCLUSIVE")


def test_the_issues_attack_is_refused_and_what_a_writer_may_lock_holds_no_reader_up(shared):
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied for table views"):
        shared.sql("mallory", "BEGIN; LOCK TABLE views IN ACCESS EXCLUSIVE MODE; ROLLBACK")
    # mallory takes every lock her grants still allow, on every table, and sits on them
    held = [f"LOCK TABLE {table} IN {mode} MODE" for table in pg_schema.TABLES for mode in HARMLESS
            if not lock_refused(shared, "mallory", table, mode)]
    assert "LOCK TABLE events IN ROW EXCLUSIVE MODE" in held and "LOCK TABLE views IN ROW EXCLUSIVE MODE" in held
    with shared.holding("mallory", "BEGIN", *held):
        began = time.monotonic()
        runs = cli(shared.url("eve", lock_timeout="3s"), "runs")
        verify = cli(shared.url("eve", lock_timeout="3s"), "verify")
        with Ledger.open(shared.url("alice", lock_timeout="3s")) as ledger:  # alice still appends and saves views
            ledger.writer.append(RUN, [failed("q2")], views=[("tally", 1, {"n": 2})])
            assert ledger.reader.stored_views(RUN)[0][3] == {"n": 2}
        took = time.monotonic() - began
    assert runs.exit_code == 0 and RUN in runs.output, runs.output
    assert verify.exit_code == 0, verify.output
    assert took < 3, took  # nobody waited for a lock


def test_a_writer_updates_only_the_columns_it_writes_with_no_table_privilege_that_locks(shared):
    rows = shared.sql(OWNER, "SELECT c.relname, a.privilege_type FROM pg_class c, aclexplode(c.relacl) a "
                             "WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) "
                             "AND a.grantee = 'mallory'::regrole ORDER BY 1, 2")
    table_privileges = {privilege for _, privilege in rows}
    assert table_privileges == {"SELECT", "INSERT"}
    assert {table for table, privilege in rows if privilege == "INSERT"} == {
        "events", "blobs", "responses", "run_grants", "views"}
    columns = shared.sql(OWNER, "SELECT table_name, column_name FROM information_schema.column_privileges "
                                "WHERE grantee = 'mallory' AND privilege_type = 'UPDATE' AND table_schema = current_schema() "
                                "ORDER BY 1, 2")
    assert columns == [("ledger_tail", "seq"), ("views", "position"), ("views", "value")]


# -- a lock someone does hold: the reader's one line within its timeout --------------------------

def test_every_session_sets_a_lock_and_a_statement_timeout_and_the_url_may_set_its_own(shared):
    def settings(url: str, read_only: bool) -> tuple:
        conn = connect(url, read_only=read_only)
        try:
            return conn.execute("SELECT current_setting('lock_timeout'), current_setting('statement_timeout')"
                                ).fetchone()
        finally:
            conn.close()

    assert LIMITS.read_lock_timeout_s < LIMITS.write_lock_timeout_s
    assert settings(shared.url("eve"), True) == (f"{LIMITS.read_lock_timeout_s}s", f"{LIMITS.statement_timeout_s // 60}min")
    assert settings(shared.url("alice"), False) == (f"{LIMITS.write_lock_timeout_s // 60}min",
                                                    f"{LIMITS.statement_timeout_s // 60}min")
    assert settings(shared.url("eve", lock_timeout="2s", statement_timeout="7s"), True) == ("2s", "7s")
    with Ledger.open(shared.url("eve")) as ledger:  # the reader the store opens is one of them
        (row,) = ledger.reader._conn.execute("SELECT current_setting('lock_timeout')").fetchall()
        assert row == (f"{LIMITS.read_lock_timeout_s}s",)


@pytest.mark.parametrize("command", ["runs", "verify"])
def test_a_lock_the_owner_holds_makes_a_reader_fail_within_its_timeout_in_one_line_naming_the_owner(shared, command):
    with shared.holding(OWNER, "BEGIN", "LOCK TABLE events IN ACCESS EXCLUSIVE MODE"):
        began = time.monotonic()
        result = cli(shared.url("eve", lock_timeout="2s"), command)
        took = time.monotonic() - began
    message = result.stderr.strip()
    assert result.exit_code == 1, result.output
    assert message.count("\n") == 0, message
    assert f"role {OWNER} (backend " in message and "holds a lock on table events (AccessExclusiveLock)" in message
    assert "lock_timeout (2s)" in message and "canceling statement due to lock timeout" in message
    assert 2 <= took < 8, took
    # the other side: once the owner is done, the same reader answers
    assert cli(shared.url("eve", lock_timeout="2s"), command).exit_code == 0


def test_a_writer_waiting_for_the_tail_is_told_which_role_holds_it(shared):
    with shared.holding("mallory", "BEGIN", "SELECT seq FROM ledger_tail FOR UPDATE"):
        with Ledger.open(shared.url("alice", lock_timeout="1s")) as ledger:
            with pytest.raises(Exception) as caught:
                ledger.writer.append(RUN, [failed("q2")])
    message = str(caught.value)
    assert "\n" not in message and "another writer (role mallory (backend " in message
    assert "held the ledger's tail for longer than this session's lock_timeout (1s)" in message


# -- a ledger set up with the old grants -------------------------------------------------------

def test_a_ledger_from_before_p003_loses_its_writers_table_locks_and_keeps_their_rows(roles):
    schema = f"t_{uuid.uuid4().hex[:12]}"
    roles.sql(f"CREATE SCHEMA {schema} AUTHORIZATION {OWNER}")
    old = Shared(roles, schema)
    for migration in pg_schema.MIGRATIONS[:2]:
        for statement in migration.statements:
            old.sql(OWNER, statement)
        for statement, params in pg_schema.migration_rows(migration):
            old.sql(OWNER, statement.replace("?", "%s"), params)
    tables = ", ".join(pg_schema.TABLES)
    for statement in (f"GRANT USAGE ON SCHEMA {schema} TO alice",  # what p002's init granted a writer
                      f"GRANT SELECT ON {tables} TO alice",
                      "GRANT INSERT ON events, blobs, responses, run_grants TO alice",
                      "GRANT INSERT, UPDATE ON views TO alice", "GRANT UPDATE ON ledger_tail TO alice"):
        old.sql(OWNER, statement)
    assert not lock_refused(old, "alice", "views", "ACCESS EXCLUSIVE")  # the attack, on the old grants
    with pytest.raises(Exception, match="lacks migration p003_no_table_locks"):
        Ledger.open(old.url("alice")).close()
    assert init_ledger(roles.url(OWNER, schema)) == ["p003_no_table_locks"]  # no --writer named again
    assert [mode for table in pg_schema.TABLES for mode in HOLDS_WRITERS_UP
            if not lock_refused(old, "alice", table, mode)] == []
    with Ledger.open(old.url("alice")) as ledger:
        ledger.writer.append(RUN, [failed("q1")], views=[("tally", 1, {"n": 1})])
        ledger.writer.append(RUN, [failed("q2")], views=[("tally", 1, {"n": 2})])
        assert ledger.reader.stored_views(RUN)[0][3] == {"n": 2} and ledger.reader.verify().ok
