"""On a shared PostgreSQL ledger a writer is an identity the server sets, and a run is its owner's.

Real roles on the session's throwaway cluster: `alice` and `mallory` are both writer roles of one
ledger, `eve` may only read it, `nobody` was granted nothing. What mallory could do to alice's
run as an ordinary writer (issue 19, finding 2) is tried here through the library and through
raw SQL with rows she computed correctly herself; the server refuses each one, and alice's run
still verifies and reads.
"""

from __future__ import annotations

import hashlib
import threading

import psycopg
import pytest

from benchledger.errors import LedgerError, LedgerWriteFailed, VerificationFailed
from benchledger.ledger.chain import GENESIS, ledger_link, link_hash
from benchledger.ledger.events import Failed
from benchledger.ledger.store import Ledger, init_ledger
from ledger_contract import answered
from pg_server import OWNER

ROLES = ("alice", "mallory", "eve", "nobody")
RUN = "01JABCDEFGHJKMNPQRSTVWXYZ0"


def failed(qid: str) -> Failed:
    return Failed(stage="answer", question_id=qid, error_class="Timeout", message="slow")


@pytest.fixture(scope="module")
def roles(postgres_server):
    for role in ROLES:
        postgres_server.sql(f"DO $$ BEGIN CREATE ROLE {role} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    return postgres_server


class Shared:
    """One ledger schema: alice and mallory write, eve reads, nobody holds nothing."""

    def __init__(self, server, schema: str) -> None:
        self.server, self.schema = server, schema

    def url(self, role: str, **options: str) -> str:
        url = self.server.url(role, self.schema)
        return url + "".join(f"%20-c{name}%3D{value}" for name, value in options.items())

    def sql(self, role: str, statement: str, params: tuple = ()) -> list[tuple]:
        with psycopg.connect(self.server.url(role, self.schema), autocommit=True) as conn:
            cursor = conn.execute(statement, params or None)
            return cursor.fetchall() if cursor.description else []

    def writers(self, run_id: str) -> list[tuple]:
        return self.sql(OWNER, "SELECT position, writer FROM events WHERE run_id = %s ORDER BY position", (run_id,))


@pytest.fixture
def shared(roles) -> Shared:
    import uuid

    schema = f"t_{uuid.uuid4().hex[:12]}"
    roles.sql(f"CREATE SCHEMA {schema} AUTHORIZATION {OWNER}")
    init_ledger(roles.url(OWNER, schema), writers=("alice", "mallory"), readers=("eve",))
    return Shared(roles, schema)


@pytest.fixture
def alices_run(shared) -> Shared:
    with Ledger.open(shared.url("alice")) as ledger:
        ledger.writer.append(RUN, [failed("q1"), failed("q2")])
    return shared


def next_row(shared: Shared, role: str, run_id: str, event, **changes) -> dict:
    """The row an honest writer would insert next for `event` in `run_id`, computed from the ledger
    as `role` reads it; `changes` override columns (a forgery)."""
    last = shared.sql(role, "SELECT position, hash FROM events WHERE run_id = %s ORDER BY position DESC LIMIT 1",
                      (run_id,))
    position, prev = (last[0][0] + 1, last[0][1]) if last else (1, GENESIS)
    head = shared.sql(role, "SELECT seq, link FROM events ORDER BY seq DESC LIMIT 1")
    seq, value = (head[0][0] + 1, head[0][1]) if head else (1, GENESIS)
    payload = event.model_dump_json()
    key = event.idempotency_key()
    row = dict(seq=seq, run_id=run_id, position=position, type=event.type, schema_version=event.schema_version,
               recorded_at="2026-01-01T00:00:00.000000Z", idempotency_key=key, payload=payload, prev_hash=prev)
    row.update({name: value for name, value in changes.items() if name in row})
    row["hash"] = link_hash(row["prev_hash"], row["run_id"], row["position"], row["type"], row["schema_version"],
                            row["recorded_at"], row["idempotency_key"], row["payload"])
    row["link"] = ledger_link(value, row["hash"])
    row.update(changes)
    return row


def insert(shared: Shared, role: str, row: dict) -> None:
    columns = ", ".join(row)
    shared.sql(role, f"INSERT INTO events ({columns}, chain) VALUES ({', '.join(['%s'] * len(row))}, 2)",
               tuple(row.values()))


def refused(shared: Shared, role: str, row: dict) -> str:
    with pytest.raises(psycopg.Error) as caught:
        insert(shared, role, row)
    return caught.value.diag.message_primary or ""


# -- who wrote it -----------------------------------------------------------------------------

def test_each_row_records_the_role_that_wrote_it_set_by_the_server(alices_run):
    assert alices_run.writers(RUN) == [(1, "alice"), (2, "alice")]
    row = next_row(alices_run, "alice", RUN, failed("q3"), writer="mallory")  # the client claims another
    insert(alices_run, "alice", row)
    assert alices_run.writers(RUN)[-1] == (3, "alice")
    with Ledger.open(alices_run.url("alice")) as ledger:
        assert ledger.reader.verify().ok and ledger.reader.verify(RUN).ok


def test_another_writer_cannot_add_to_a_run_it_does_not_own(alices_run):
    with Ledger.open(alices_run.url("alice")) as ledger:
        head = ledger.reader.head(RUN)
    with Ledger.open(alices_run.url("mallory")) as ledger:
        with pytest.raises(LedgerWriteFailed, match=f"run {RUN} belongs to role alice, which has not granted "
                                                     "role mallory to add to it"):
            ledger.writer.append(RUN, [failed("q3")])
    row = next_row(alices_run, "mallory", RUN, failed("q3"))  # an honest-looking row, by hand
    assert "belongs to role alice" in refused(alices_run, "mallory", row)
    request = "d" * 64
    with pytest.raises(psycopg.Error, match="belongs to role alice"):
        alices_run.sql("mallory", "INSERT INTO responses VALUES (%s, '{}', %s, 'm', %s, 'answer:q1', 'x')",
                       (request, "e" * 64, RUN))
    with pytest.raises(psycopg.Error, match="belongs to role alice"):
        alices_run.sql("mallory", "INSERT INTO views VALUES (%s, 'tally', 1, 2, '{}')", (RUN,))
    with Ledger.open(alices_run.url("alice")) as ledger:
        assert ledger.reader.head(RUN) == head and ledger.reader.verify(RUN).ok and ledger.reader.verify().ok
        ledger.writer.append(RUN, [failed("q3")])  # its owner still adds to it
    assert alices_run.writers(RUN)[-1] == (3, "alice")


def test_the_owner_alone_grants_another_role_to_add_to_its_run(alices_run):
    from benchledger.ledger.pg_store import grant_run

    with pytest.raises(LedgerError, match=f"only the role that started run {RUN} may grant"):
        grant_run(alices_run.url("mallory"), RUN, "mallory")  # mallory cannot let herself in
    assert grant_run(alices_run.url("alice"), RUN[:10], "mallory") == RUN
    assert alices_run.sql(OWNER, "SELECT grantee, granted_by FROM run_grants") == [("mallory", "alice")]
    with pytest.raises(psycopg.Error, match="permission denied|append-only"):
        alices_run.sql("mallory", "DELETE FROM run_grants")
    from benchledger.ledger.events import Judged, ScorerStarted

    reply = b"Final: Correct"
    with Ledger.open(alices_run.url("mallory")) as ledger:  # a segment of her own: a scorer she opens
        ledger.writer.append(RUN, [ScorerStarted(scorer_id="s9", judge_model="j", protocol="typed"),
                                   Judged(question_id="q1", scorer_id="s9", verdict="correct", model="j",
                                          raw_hash=hashlib.sha256(reply).hexdigest(), request_digest="r" * 64)],
                             blobs=[reply])
        assert ledger.reader.verify(RUN).ok
    assert alices_run.writers(RUN) == [(1, "alice"), (2, "alice"), (3, "mallory"), (4, "mallory")]


# -- what the server checks at insert ---------------------------------------------------------

FORGERIES = {
    "a position that skips one": dict(position=4),
    "a prev_hash that is not the run's last hash": dict(prev_hash="f" * 64),
    "a hash that is not the hash of the row's bytes": dict(hash="a" * 64),
    "a link that does not chain to the ledger's last row": dict(link="b" * 64),
    "a seq past the ledger's next one": dict(seq=99),
}


@pytest.mark.parametrize("forgery", FORGERIES, ids=list(FORGERIES))
def test_the_server_refuses_a_row_that_breaks_the_chain(alices_run, forgery):
    row = next_row(alices_run, "alice", RUN, failed("q3"), **FORGERIES[forgery])
    message = refused(alices_run, "alice", row)  # even the run's owner
    assert "refused" in message and RUN in message
    insert(alices_run, "alice", next_row(alices_run, "alice", RUN, failed("q3")))  # the honest row goes in
    with Ledger.open(alices_run.url("alice")) as ledger:
        assert ledger.reader.verify(RUN).ok and ledger.reader.verify().ok


def test_a_junk_row_after_a_run_cannot_be_inserted_so_the_run_stays_readable(alices_run):
    junk = next_row(alices_run, "mallory", "JUNK", failed("x"), link="0" * 64)  # breaks alice's bound to the ledger
    assert "does not continue the ledger's chain" in refused(alices_run, "mallory", junk)
    with Ledger.open(alices_run.url("alice")) as ledger:
        assert ledger.reader.verify(RUN).ok and [e.position for e in ledger.reader.verified_events(RUN)] == [1, 2]


def test_the_server_re_hashes_a_blob_at_insert(alices_run):
    prompt = b"the released judge prompt"
    digest = hashlib.sha256(prompt).hexdigest()
    for body, size, encoding in ((b"a wrong body", len(prompt), "identity"), (b"a wrong body", 12, "identity"),
                                 (prompt, len(prompt), "zlib"), (prompt, len(prompt) + 1, "identity")):
        with pytest.raises(psycopg.Error, match="blobs_body_check"):
            alices_run.sql("mallory", "INSERT INTO blobs VALUES (%s, %s, %s, %s)", (digest, size, encoding, body))
    with Ledger.open(alices_run.url("alice")) as ledger:  # so alice's later run stores its true body
        ledger.writer.append(RUN, [answered("q9", prompt.decode(), "r" * 64)], blobs=[prompt])
        assert ledger.reader.get_blob(digest) == prompt and ledger.reader.verify().ok


# -- the tail lock ----------------------------------------------------------------------------

@pytest.mark.parametrize("role", ["eve", "nobody"])
def test_a_role_that_may_not_insert_cannot_take_the_tail_lock(alices_run, role):
    with psycopg.connect(alices_run.server.url(role, alices_run.schema)) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(f"SELECT seq FROM {alices_run.schema}.ledger_tail FOR UPDATE")
        conn.rollback()
        from benchledger.ledger.pg_connection import lock_key

        # what the tail lock was: an advisory lock anyone may take; holding it now stops nobody
        conn.execute("SELECT pg_advisory_lock(%s)", (lock_key(f"benchledger:tail:{alices_run.schema}"),))
        with Ledger.open(alices_run.url("alice", lock_timeout="2s")) as ledger:
            ledger.writer.append(RUN, [failed("q3")])
    assert alices_run.writers(RUN)[-1] == (3, "alice")


def test_waiting_for_the_tail_lock_ends_in_one_line(alices_run):
    holding, done = threading.Event(), threading.Event()

    def hold() -> None:  # a writer that takes the tail and sits on it
        with psycopg.connect(alices_run.server.url("mallory", alices_run.schema)) as conn:
            conn.execute("SELECT seq FROM ledger_tail FOR UPDATE")
            holding.set()
            done.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(30)
        with Ledger.open(alices_run.url("alice", lock_timeout="1s")) as ledger:
            with pytest.raises(LedgerWriteFailed) as caught:
                ledger.writer.append(RUN, [failed("q3")])
        message = str(caught.value)
        assert "\n" not in message and "another writer (role mallory (backend " in message
        assert "held the ledger's tail for longer than this session's lock_timeout (1s)" in message
    finally:
        done.set()
        holder.join()
    with Ledger.open(alices_run.url("alice")) as ledger:
        ledger.writer.append(RUN, [failed("q3")])  # free again once the holder is done


# -- verify and pull --------------------------------------------------------------------------

def test_verify_names_a_checking_trigger_the_owner_disabled(alices_run):
    alices_run.sql(OWNER, "ALTER TABLE events DISABLE TRIGGER events_check_insert")
    with Ledger.open(alices_run.url("alice")) as ledger:
        result = ledger.reader.verify(RUN)
    assert not result.ok and result.problem.startswith("checking trigger events_check_insert is disabled")


def test_pull_does_not_copy_a_run_someone_forged_with_the_checks_off(alices_run, tmp_path):
    alices_run.sql(OWNER, "ALTER TABLE events DISABLE TRIGGER events_check_insert")
    insert(alices_run, "mallory", next_row(alices_run, "mallory", RUN, failed("q3")))
    alices_run.sql(OWNER, "ALTER TABLE events ENABLE TRIGGER events_check_insert")
    assert alices_run.writers(RUN)[-1] == (3, None)  # no trigger: nobody recorded who wrote it
    with Ledger.open(alices_run.url("alice")) as source:
        result = source.reader.verify(RUN)
        assert not result.ok and f"seq 3 of run {RUN} was written by no role" in result.problem
        with Ledger.open(tmp_path / "alice.db") as mine:
            with pytest.raises(VerificationFailed, match="written by no role"):
                from benchledger.ledger.transfer import copy_run

                copy_run(source, mine, RUN)
            assert mine.reader.runs() == []


# -- migrating a ledger from p001 ---------------------------------------------------------------

def test_a_ledger_from_before_p002_migrates_and_keeps_its_runs_readable(roles):
    import uuid

    from benchledger.ledger import pg_schema
    from benchledger.ledger.pg_connection import connect

    schema = f"t_{uuid.uuid4().hex[:12]}"
    roles.sql(f"CREATE SCHEMA {schema} AUTHORIZATION {OWNER}")
    old = Shared(roles, schema)
    for statement in pg_schema.MIGRATIONS[0].statements:
        old.sql(OWNER, statement)
    for statement, params in pg_schema.migration_rows(pg_schema.MIGRATIONS[0]):
        old.sql(OWNER, statement.replace("?", "%s"), params)
    for statement in (f"GRANT USAGE ON SCHEMA {schema} TO alice",  # what p001's init granted a writer
                      "GRANT SELECT ON meta, schema_migrations, events, blobs, responses, views, ledger_tail TO alice",
                      "GRANT INSERT ON events, blobs, responses TO alice", "GRANT INSERT, UPDATE ON views TO alice",
                      "GRANT UPDATE ON ledger_tail TO alice"):
        old.sql(OWNER, statement)
    insert(old, "alice", next_row(old, "alice", "OLD", failed("q1")))
    assert init_ledger(roles.url(OWNER, schema), writers=("alice", "mallory")) == ["p002_writer_identities",
                                                                                    "p003_no_table_locks"]
    conn = connect(roles.url(OWNER, schema))
    try:
        assert pg_schema.describe(conn) == pg_schema.expected()
    finally:
        conn.close()
    with Ledger.open(old.url("mallory")) as ledger:
        assert ledger.reader.verify().ok and ledger.reader.verify("OLD").ok
        ledger.writer.append(RUN, [failed("q1")])
    assert old.writers("OLD") == [(1, None)] and old.writers(RUN) == [(1, "mallory")]


def test_the_server_refuses_a_run_id_carrying_a_terminal_escape(alices_run):
    row = next_row(alices_run, "mallory", "01J\x1b]0;pwned\x07", failed("q1"))
    assert "run id is refused" in refused(alices_run, "mallory", row)
    with Ledger.open(alices_run.url("eve")) as ledger:
        assert [run.run_id for run in ledger.reader.runs()] == [RUN]


# -- the CLI: a run, someone else's rejudge, a grant, and show -----------------------------------

def cli(url: str, *args: str, code: int = 0):
    from click.testing import CliRunner

    from benchledger.cli.main import cli as main

    result = CliRunner().invoke(main, ["--ledger", url, *args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def test_a_rejudge_by_another_role_needs_the_owners_grant_and_show_names_each_writer(shared):
    from conftest import REPO

    cli(shared.url("alice"), "run", "groupmem", str(REPO / "examples" / "groupmem-mini"), "--domain", "Demo")
    with Ledger.open(shared.url("eve")) as ledger:
        run_id = ledger.reader.resolve_run("latest")
        count = len(ledger.reader.events(run_id))
    refused = cli(shared.url("mallory"), "rejudge", run_id, code=1)
    assert refused.stderr.strip().count("\n") == 0
    assert f"run {run_id} belongs to role alice, which has not granted role mallory" in refused.stderr
    assert "its owner can let this role add to it with `benchledger ledger grant URL RUN ROLE`" in refused.stderr
    with Ledger.open(shared.url("eve")) as ledger:
        assert len(ledger.reader.events(run_id)) == count and ledger.reader.verify(run_id).ok
    cli(shared.url("mallory"), "ledger", "grant", shared.url("mallory"), run_id, "mallory", code=1)
    granted = cli(shared.url("alice"), "ledger", "grant", shared.url("alice"), run_id[:8], "mallory")
    assert granted.output.startswith(f"run {run_id} at ") and granted.output.strip().endswith(
        ": role mallory may now add to it")
    cli(shared.url("mallory"), "rejudge", run_id)
    with Ledger.open(shared.url("eve")) as ledger:
        total = len(ledger.reader.events(run_id))
        assert total > count and ledger.reader.verify(run_id).ok and ledger.reader.verify().ok
    shown = cli(shared.url("eve"), "show", run_id).output.strip().splitlines()
    assert shown[-1] == f"owner alice; written by alice (1-{count}), mallory ({count + 1}-{total}) (event positions)"


def test_only_a_writer_can_name_a_runs_writer_lock(alices_run):
    from benchledger.errors import RunBusy
    from benchledger.ledger.pg_connection import lock_key

    for role in ("eve", "nobody"):
        with psycopg.connect(alices_run.server.url(role, alices_run.schema)) as conn:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(f"SELECT secret FROM {alices_run.schema}.writer_secret")
    with psycopg.connect(alices_run.server.url("nobody", alices_run.schema), autocommit=True) as conn:
        # the key anyone could compute before: holding it now stops nobody
        conn.execute("SELECT pg_advisory_lock(%s)", (lock_key(f"benchledger:run:{alices_run.schema}:{RUN}"),))
        with Ledger.open(alices_run.url("alice")) as ledger, ledger.writer.run_writer(RUN):
            with Ledger.open(alices_run.url("mallory")) as other, pytest.raises(RunBusy):
                with other.writer.run_writer(RUN):  # between writers the lock is still exclusive
                    pass


def test_a_granted_role_adds_only_a_segment_of_its_own(alices_run):
    from benchledger.ledger.pg_store import grant_run

    grant_run(alices_run.url("alice"), RUN, "mallory")
    inside = next_row(alices_run, "mallory", RUN, failed("q3"))  # into alice's segment: refused
    assert "only inside a segment of its own" in refused(alices_run, "mallory", inside)
    with Ledger.open(alices_run.url("mallory")) as ledger:  # the library path: the same refusal
        with pytest.raises(LedgerWriteFailed, match="only inside a segment of its own"):
            ledger.writer.append(RUN, [failed("q3")])
    assert alices_run.writers(RUN) == [(1, "alice"), (2, "alice")]


# -- a grant on a run nobody owns (issue 37, item 4) ------------------------------------------------

def grant_sql(shared: Shared, role: str, run_id: str, grantee: str) -> None:
    shared.sql(role, "INSERT INTO run_grants (run_id, grantee, granted_by, granted_at) VALUES (%s, %s, '', '')",
               (run_id, grantee))


def legacy_run(shared: Shared, run_id: str) -> None:
    """A run as recorded before writers had identities (p002): its rows carry no writer."""
    shared.sql(OWNER, "ALTER TABLE events DISABLE TRIGGER events_check_insert")
    try:
        for qid in ("q1", "q2"):
            insert(shared, OWNER, next_row(shared, OWNER, run_id, failed(qid)))
    finally:
        shared.sql(OWNER, "ALTER TABLE events ENABLE TRIGGER events_check_insert")
    assert shared.writers(run_id) == [(1, None), (2, None)]


OTHER = "01JABCDEFGHJKMNPQRSTVWXYZ9"


def test_a_role_may_grant_on_a_run_it_started_and_on_no_other(alices_run):
    from benchledger.ledger.pg_store import grant_run

    with Ledger.open(alices_run.url("mallory")) as ledger:
        ledger.writer.append(OTHER, [failed("q1")])  # mallory's own run
    assert grant_run(alices_run.url("mallory"), OTHER, "alice") == OTHER  # owned by me: allowed
    grant_sql(alices_run, "mallory", OTHER, "eve")
    with pytest.raises(LedgerError, match=f"only the role that started run {RUN} may grant others to add to it "
                                          "\\(its owner is alice\\)"):
        grant_run(alices_run.url("mallory"), RUN, "mallory")  # another's: refused
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="its owner is alice"):
        grant_sql(alices_run, "mallory", RUN, "mallory")
    assert alices_run.sql(OWNER, "SELECT run_id, grantee, granted_by FROM run_grants ORDER BY grantee") == [
        (OTHER, "alice", "mallory"), (OTHER, "eve", "mallory")]


def test_a_grant_on_a_run_id_nobody_has_started_yet_is_refused_and_cannot_wait_for_its_owner(shared):
    """mallory saw alice's run id before alice pushed it, and grants herself rights on it first."""
    from benchledger.errors import RunNotFound
    from benchledger.ledger.pg_store import grant_run

    for role in ("mallory", "alice"):  # nobody, not even the role that will start it, grants ahead
        with pytest.raises(psycopg.errors.InsufficientPrivilege,
                           match=f"only the role that started run {RUN} may grant .*its owner is no role"):
            grant_sql(shared, role, RUN, "mallory")
    with pytest.raises(RunNotFound):
        grant_run(shared.url("mallory"), RUN, "mallory")
    assert shared.sql(OWNER, "SELECT count(*) FROM run_grants") == [(0,)]
    with Ledger.open(shared.url("alice")) as ledger:  # alice pushes her run
        ledger.writer.append(RUN, [failed("q1")])
    with Ledger.open(shared.url("mallory")) as ledger:
        with pytest.raises(LedgerWriteFailed, match=f"run {RUN} belongs to role alice, which has not granted "
                                                     "role mallory"):
            ledger.writer.append(RUN, [failed("q2")])
    assert shared.writers(RUN) == [(1, "alice")]
    grant_sql(shared, "alice", RUN, "mallory")  # the other side: now it has an owner, the owner may
    assert shared.sql(OWNER, "SELECT grantee, granted_by FROM run_grants") == [("mallory", "alice")]


def test_a_grant_on_a_run_recorded_before_writers_had_identities_is_refused_to_every_role(shared):
    from benchledger.ledger.pg_store import grant_run

    legacy_run(shared, "OLD")
    for role in ("alice", "mallory"):
        with pytest.raises(LedgerError, match="only the role that started run OLD may grant .*its owner is no "
                                              "role: it was not started here since migration p002"):
            grant_run(shared.url(role), "OLD", role)
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="its owner is no role"):
            grant_sql(shared, role, "OLD", "eve")
    assert shared.sql(OWNER, "SELECT count(*) FROM run_grants") == [(0,)]
    with Ledger.open(shared.url("eve")) as ledger:
        assert ledger.reader.verify("OLD").ok
