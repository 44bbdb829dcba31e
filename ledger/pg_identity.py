"""Writers are identities on a shared PostgreSQL ledger: the server's side of migration p002.

A writer role is trusted with nothing it says about itself. At every event insert the server,
in a row trigger (`benchledger_event_insert`), and never the client:
- sets the row's `writer` to `current_user` (whatever the client sent is overwritten);
- refuses the row unless its run is the inserting role's: a run belongs to the writer of its
  first event, and another role adds to it only where the owner granted it (`run_grants`, a
  row the owner alone can insert: `benchledger_grant_insert` sets `granted_by` and checks it),
  and then only as a segment of its own: an opener (`ledger.seal.OPENERS`: a resume, a scorer,
  an audit), or an event after the run's latest opener when that role wrote it;
- checks chain and position continuity: the position follows the run's last one, `prev_hash`
  is that event's hash (`GENESIS` for a first event), `hash` is the SHA-256 of the row's own
  framed bytes (the netstrings of `ledger.chain`, computed again in SQL), the seq follows the
  ledger's last one and the ledger tail, and `link` chains the hash to the ledger's last row.
So a forged row, a row in someone else's run, or a junk row after a run cannot be inserted at
all, and a run cannot be made unreadable by what another role appends after it.

Cached responses and saved views name a run too; `benchledger_row_writer` refuses them from a
role that may not write that run. Blobs are re-hashed by the server at insert: a CHECK
constraint (`blobs_body_check`, NOT VALID, so bodies written before p002 under `zlib` stay
readable; `verify` re-hashes those) requires a raw body whose SHA-256 is its digest and whose
length is its size, so no digest can be stored with a wrong body before the run that names it.

The trigger also refuses a run id that is not a plain token (`run_ids.TOKEN`), so no id
carrying a terminal escape reaches the ledger, however the row is inserted.

A run's writer lock is a session advisory lock, which any role may take; its key is derived
from the run id and `writer_secret`, a random value only writer roles may read, so a reader or a
role with no rights on the ledger cannot compute it and hold a run up.

Runs recorded before p002 carry no writer and have no owner: anyone who may write the ledger
may add to them, as before. Every function runs with `search_path = pg_catalog, pg_temp` and
names the ledger's tables through `TG_TABLE_SCHEMA`, so a role cannot shadow a table or a
function with one of its own.
"""

from __future__ import annotations

from benchledger.ledger.run_ids import TOKEN_PATTERN
from benchledger.ledger.seal import OPENERS

__all__ = ["NOT_YOURS", "EVENTS_WRITER_COLUMN", "GRANTS_TABLE", "SECRET_TABLE", "BLOB_CHECK", "FUNCTIONS", "FUNCTION_CONFIG",
           "TRIGGERS", "GRANT_GUARDS", "statements"]

NOT_YOURS = "BLR01"
"""The SQLSTATE of a row refused because its run belongs to another role (chosen by code, not text)."""

EVENTS_WRITER_COLUMN = "writer text"
"""The column p002 adds to `events`: the role that inserted the row (NULL before p002)."""

GRANTS_TABLE = (("run_id text NOT NULL", "grantee text NOT NULL", "granted_by text NOT NULL",
                 "granted_at text NOT NULL"),
                {"run_grants_pkey": "PRIMARY KEY (run_id, grantee)"})
"""`run_grants`: the roles a run's owner lets add to its run (a resume or a rejudge)."""

SECRET_TABLE: tuple[tuple[str, ...], dict[str, str]] = (("secret text NOT NULL",), {})
"""`writer_secret`: one random value only writer roles may read, which names the run writer locks."""

BLOB_CHECK = ("blobs_body_check",
              "CHECK (((encoding = 'identity'::text) AND (size = octet_length(body)) AND "
              "(digest = encode(sha256(body), 'hex'::text)))) NOT VALID")
"""The server re-hashes every body inserted from p002 on (as `pg_get_constraintdef` prints it)."""

FUNCTION_CONFIG = "search_path=pg_catalog, pg_temp"

_OPENERS = "ARRAY[" + ", ".join(f"'{name}'" for name in sorted(OPENERS)) + "]"
"""The segment openers (`ledger.seal`) as a SQL array."""

_MAY_WRITE = f"""
  EXECUTE format('SELECT writer FROM %I.events WHERE run_id = $1 AND position = 1', TG_TABLE_SCHEMA)
    INTO run_owner USING NEW.run_id;
  IF run_owner IS NOT NULL AND run_owner <> current_user THEN
    EXECUTE format('SELECT grantee FROM %I.run_grants WHERE run_id = $1 AND grantee = $2', TG_TABLE_SCHEMA)
      INTO granted USING NEW.run_id, current_user::text;
    IF granted IS NULL THEN
      RAISE EXCEPTION USING ERRCODE = '{NOT_YOURS}', MESSAGE = format(
        'run %s belongs to role %s, which has not granted role %s to add to it', NEW.run_id, run_owner,
        current_user);
    END IF;
  END IF;"""

FUNCTIONS: dict[str, str] = {
    "benchledger_event_insert": f"""
DECLARE
  run_owner text;
  granted text;
  opener text;
  last_position integer;
  last_hash text;
  last_seq bigint;
  last_value text;
  tail bigint;
  framed bytea;
  part bytea;
BEGIN
  IF NEW.run_id !~ '^{TOKEN_PATTERN}$' THEN
    RAISE EXCEPTION 'an event''s run id is refused: a run id is letters, digits and . _ : - (at most 64)';
  END IF;
  NEW.writer := current_user;{_MAY_WRITE}
  IF run_owner IS NOT NULL AND run_owner <> current_user AND NEW.type <> ALL ({_OPENERS}) THEN
    EXECUTE format('SELECT writer FROM %I.events WHERE run_id = $1 AND type = ANY ($2) '
                   'ORDER BY position DESC LIMIT 1', TG_TABLE_SCHEMA) INTO opener USING NEW.run_id, {_OPENERS};
    IF opener IS DISTINCT FROM current_user THEN
      RAISE EXCEPTION USING ERRCODE = '{NOT_YOURS}', MESSAGE = format(
        'role %s adds to run %s (role %s''s) only inside a segment of its own: a resume or a scorer it opens',
        current_user, NEW.run_id, run_owner);
    END IF;
  END IF;
  EXECUTE format('SELECT position, hash FROM %I.events WHERE run_id = $1 ORDER BY position DESC LIMIT 1',
                 TG_TABLE_SCHEMA) INTO last_position, last_hash USING NEW.run_id;
  IF NEW.position <> COALESCE(last_position, 0) + 1
     OR NEW.prev_hash <> COALESCE(last_hash, repeat('0', 64)) THEN
    RAISE EXCEPTION 'event at position % of run % does not continue the run (its last event is at position %): refused',
      NEW.position, NEW.run_id, COALESCE(last_position, 0);
  END IF;
  framed := convert_to(NEW.prev_hash, 'UTF8');
  FOREACH part IN ARRAY ARRAY[convert_to(NEW.run_id, 'UTF8'), convert_to(NEW.position::text, 'UTF8'),
                              convert_to(NEW.type, 'UTF8'), convert_to(NEW.schema_version::text, 'UTF8'),
                              convert_to(NEW.recorded_at, 'UTF8')] LOOP
    framed := framed || convert_to(octet_length(part)::text || ':', 'UTF8') || part || decode('2c', 'hex');
  END LOOP;
  IF NEW.idempotency_key IS NULL THEN
    framed := framed || decode('7e', 'hex');
  ELSE
    part := convert_to(NEW.idempotency_key, 'UTF8');
    framed := framed || convert_to(octet_length(part)::text || ':', 'UTF8') || part || decode('2c', 'hex');
  END IF;
  part := convert_to(NEW.payload, 'UTF8');
  framed := framed || convert_to(octet_length(part)::text || ':', 'UTF8') || part || decode('2c', 'hex');
  IF NEW.hash <> encode(sha256(framed), 'hex') THEN
    RAISE EXCEPTION 'event at position % of run % does not hash to its stored hash: refused', NEW.position, NEW.run_id;
  END IF;
  EXECUTE format('SELECT seq, CASE WHEN chain = 2 AND link IS NOT NULL THEN link ELSE hash END FROM %I.events '
                 'ORDER BY seq DESC LIMIT 1', TG_TABLE_SCHEMA) INTO last_seq, last_value;
  EXECUTE format('SELECT seq FROM %I.ledger_tail', TG_TABLE_SCHEMA) INTO tail;
  IF NEW.seq <> GREATEST(COALESCE(last_seq, 0), COALESCE(tail, 0)) + 1
     OR NEW.link IS DISTINCT FROM encode(sha256(convert_to(COALESCE(last_value, repeat('0', 64)) || NEW.hash, 'UTF8')), 'hex') THEN
    RAISE EXCEPTION 'event at position % of run % does not continue the ledger''s chain at seq %: refused',
      NEW.position, NEW.run_id, NEW.seq;
  END IF;
  RETURN NEW;
END
""",
    "benchledger_row_writer": f"""
DECLARE
  run_owner text;
  granted text;
BEGIN{_MAY_WRITE}
  RETURN NEW;
END
""",
    "benchledger_grant_insert": """
DECLARE
  run_owner text;
BEGIN
  NEW.granted_by := current_user;
  NEW.granted_at := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
  EXECUTE format('SELECT writer FROM %I.events WHERE run_id = $1 AND position = 1', TG_TABLE_SCHEMA)
    INTO run_owner USING NEW.run_id;
  IF run_owner IS NULL OR run_owner <> current_user THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = format(
      'only the role that started run %s may grant others to add to it (its owner is %s)', NEW.run_id,
      COALESCE(run_owner, 'no role: it was not started here since migration p002'));
  END IF;
  RETURN NEW;
END
""",
}
"""The trigger functions of p002, by name (bodies as `pg_proc.prosrc` holds them)."""

GRANT_GUARDS: dict[str, str] = {
    f"run_grants_no_{op.lower()}": (
        f"CREATE TRIGGER run_grants_no_{op.lower()} BEFORE {op} ON run_grants FOR EACH STATEMENT "
        f"EXECUTE FUNCTION benchledger_refuse('run grants are append-only: {op} refused')")
    for op in ("UPDATE", "DELETE", "TRUNCATE")}

TRIGGERS: dict[str, str] = {
    "events_check_insert": ("CREATE TRIGGER events_check_insert BEFORE INSERT ON events FOR EACH ROW "
                            "EXECUTE FUNCTION benchledger_event_insert()"),
    "responses_check_writer": ("CREATE TRIGGER responses_check_writer BEFORE INSERT ON responses FOR EACH ROW "
                               "EXECUTE FUNCTION benchledger_row_writer()"),
    "views_check_writer": ("CREATE TRIGGER views_check_writer BEFORE INSERT OR UPDATE ON views FOR EACH ROW "
                           "EXECUTE FUNCTION benchledger_row_writer()"),
    "run_grants_check_insert": ("CREATE TRIGGER run_grants_check_insert BEFORE INSERT ON run_grants FOR EACH ROW "
                                "EXECUTE FUNCTION benchledger_grant_insert()"),
}
"""p002's checking triggers, as `pg_get_triggerdef` prints them (without the schema)."""


def statements(create_grants: str, create_secret: str) -> tuple[str, ...]:
    """The statements of p002, given the CREATE TABLE of `run_grants` and of `writer_secret`."""
    return (
        f"ALTER TABLE events ADD COLUMN {EVENTS_WRITER_COLUMN}",
        create_grants,
        create_secret,
        "INSERT INTO writer_secret (secret) VALUES (encode(sha256(convert_to(gen_random_uuid()::text || "
        "gen_random_uuid()::text, 'UTF8')), 'hex'))",
        f"ALTER TABLE blobs ADD CONSTRAINT {BLOB_CHECK[0]} CHECK (encoding = 'identity' AND "
        "size = octet_length(body) AND digest = encode(sha256(body), 'hex')) NOT VALID",
        *(f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp "
          f"AS $body${body}$body$" for name, body in FUNCTIONS.items()),
        *GRANT_GUARDS.values(),
        *TRIGGERS.values(),
    )
