"""The PostgreSQL ledger's schema: its tables and guards, the roles' grants, and how it is checked.

A PostgreSQL ledger is one schema (the first of the connection's `search_path`; `public`
unless the URL says `options=-csearch_path=NAME`) holding the tables of a SQLite ledger at its
current migration: `events` (every row under chain version 2, `seq` given by the writer under
the ledger's tail lock), `blobs`, `responses`, `views`, `meta`, `schema_migrations`, and
`ledger_tail`, the largest seq ever written (what `sqlite_sequence` is in a file), kept by a
trigger on every insert and only ever moved forward, to a seq the ledger holds.

The guards are the server's: statement triggers refuse UPDATE, DELETE and TRUNCATE on events,
blobs and cached responses (whoever asks, the owner included, until the owner drops or disables
them); the writer role is granted only SELECT and INSERT there, so its UPDATE is refused even
before a trigger runs, and as it does not own the tables it cannot drop, disable or alter a
guard. `writer_grants` and `reader_grants` are the statements `benchledger ledger init` runs
for the roles it is given (the README shows the whole role set-up). No role but the owner holds
a table privilege with which PostgreSQL allows a table lock that holds a reader up
(`LOCKING_PRIVILEGES`): a writer updates `views` and `ledger_tail` through column privileges,
which `LOCK TABLE` does not count, and p003 takes the table-wide ones an older init granted.

The schema is declared once, as data (`_TABLES`, `_INDEXES`, `_FUNCTIONS`, `_TRIGGERS`), in
the form PostgreSQL prints it back (`pg_get_constraintdef`, `pg_get_indexdef`,
`pg_get_triggerdef`); `MIGRATIONS` creates it from that data and `check_schema` compares what
the catalog describes with the same data: every table's columns and constraints, indexes,
guard functions' bodies, triggers (present, unaltered and enabled), and nothing else in the
schema (no extra trigger, rule, row-level security policy or table). There is no in-memory
database to apply the migrations to, as SQLite's check does, and the writer role may not create
a scratch schema; a test applies `MIGRATIONS` to a real server and checks the catalog gives
back exactly this data.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from benchledger import clock
from benchledger.ledger import pg_identity
from benchledger.ledger.backend import LedgerConnection
from benchledger.ledger.migrations import FORMAT, Migration

__all__ = ["MIGRATIONS", "GUARD_TRIGGERS", "LOCKING_PRIVILEGES", "TABLES", "check_schema", "check_writers", "describe", "expected",
           "migration_rows", "writer_grants", "reader_grants", "init_lock_key"]


class _Table(NamedTuple):
    columns: tuple[str, ...]
    """`name type [NOT NULL] [DEFAULT x]`, in order."""
    constraints: dict[str, str]
    """name -> definition as `pg_get_constraintdef` prints it."""


_P001_TABLES: dict[str, _Table] = {
    "meta": _Table(("key text NOT NULL", "value text NOT NULL"),
                   {"meta_pkey": "PRIMARY KEY (key)"}),
    "schema_migrations": _Table(
        ("number integer NOT NULL", "name text NOT NULL", "applied_at text NOT NULL"),
        {"schema_migrations_pkey": "PRIMARY KEY (number)"}),
    "events": _Table(
        ("seq bigint NOT NULL", "run_id text NOT NULL", "position integer NOT NULL",
         "type text NOT NULL", "schema_version integer NOT NULL", "recorded_at text NOT NULL",
         "idempotency_key text", "payload text NOT NULL", "prev_hash text NOT NULL",
         "hash text NOT NULL", "chain integer NOT NULL DEFAULT 2", "link text NOT NULL"),
        {"events_pkey": "PRIMARY KEY (seq)",
         "events_seq_check": "CHECK ((seq >= 1))",
         "events_position_check": 'CHECK (("position" >= 1))',
         "events_chain_check": "CHECK ((chain = 2))",
         "events_run_id_position_key": 'UNIQUE (run_id, "position")',
         "events_run_id_idempotency_key_key": "UNIQUE (run_id, idempotency_key)"}),
    "blobs": _Table(
        ("digest text NOT NULL", "size bigint NOT NULL", "encoding text NOT NULL",
         "body bytea NOT NULL"),
        {"blobs_pkey": "PRIMARY KEY (digest)"}),
    "responses": _Table(
        ("request_digest text NOT NULL", "response text NOT NULL", "response_digest text NOT NULL",
         "model text NOT NULL", "run_id text NOT NULL", "idempotency_key text NOT NULL",
         "recorded_at text NOT NULL"),
        {"responses_pkey": "PRIMARY KEY (request_digest)"}),
    "views": _Table(
        ("run_id text NOT NULL", "name text NOT NULL", "version integer NOT NULL",
         "position integer NOT NULL", "value text NOT NULL"),
        {"views_pkey": "PRIMARY KEY (run_id, name, version)"}),
    "ledger_tail": _Table(("id boolean NOT NULL DEFAULT true", "seq bigint NOT NULL"),
                          {"ledger_tail_pkey": "PRIMARY KEY (id)", "ledger_tail_id_check": "CHECK (id)"}),
}
"""The tables as p001 created them (a migration is never edited: p002 alters them)."""

_TABLES: dict[str, _Table] = {
    **_P001_TABLES,
    "events": _Table((*_P001_TABLES["events"].columns, pg_identity.EVENTS_WRITER_COLUMN),
                     _P001_TABLES["events"].constraints),
    "blobs": _Table(_P001_TABLES["blobs"].columns,
                    {**_P001_TABLES["blobs"].constraints, pg_identity.BLOB_CHECK[0]: pg_identity.BLOB_CHECK[1]}),
    "run_grants": _Table(*pg_identity.GRANTS_TABLE),
    "writer_secret": _Table(*pg_identity.SECRET_TABLE),
}
"""The tables of a ledger at its newest migration."""
TABLES = tuple(_TABLES)

_INDEXES: dict[str, str] = {
    # Lets `runs` find each run's start and finish without scanning its events.
    "events_run_markers": ('CREATE INDEX events_run_markers ON events USING btree (run_id, type, "position") '
                           "WHERE (type = ANY (ARRAY['RunStarted'::text, 'RunFinished'::text]))"),
}

_FUNCTIONS: dict[str, str] = {
    "benchledger_refuse": """
BEGIN
  RAISE EXCEPTION '%', TG_ARGV[0];
END
""",
    "benchledger_note_tail": """
DECLARE
  newest bigint;
BEGIN
  SELECT max(seq) INTO newest FROM added;
  EXECUTE format('UPDATE %I.ledger_tail SET seq = $1 WHERE seq < $1', TG_TABLE_SCHEMA) USING newest;
  RETURN NULL;
END
""",
    "benchledger_tail_forward": """
DECLARE
  held bigint;
BEGIN
  EXECUTE format('SELECT COALESCE(max(seq), 0) FROM %I.events', TG_TABLE_SCHEMA) INTO held;
  IF NEW.id IS DISTINCT FROM OLD.id OR NEW.seq < OLD.seq OR NEW.seq > held THEN
    RAISE EXCEPTION 'the ledger tail only moves forward, to a seq the ledger holds';
  END IF;
  RETURN NEW;
END
""",
}


def _refusals(table: str, what: str) -> dict[str, str]:
    return {f"{table}_no_{op.lower()}": (
        f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table} FOR EACH STATEMENT "
        f"EXECUTE FUNCTION benchledger_refuse('{what} are append-only: {op} refused')")
        for op in ("UPDATE", "DELETE", "TRUNCATE")}


GUARD_TRIGGERS: dict[str, str] = {
    **_refusals("events", "events"),
    **_refusals("blobs", "blobs"),
    **_refusals("responses", "cached responses"),
    "ledger_tail_no_delete": ("CREATE TRIGGER ledger_tail_no_delete BEFORE DELETE ON ledger_tail FOR EACH "
                              "STATEMENT EXECUTE FUNCTION benchledger_refuse('the ledger tail is kept: DELETE refused')"),
    "ledger_tail_no_truncate": ("CREATE TRIGGER ledger_tail_no_truncate BEFORE TRUNCATE ON ledger_tail FOR "
                                "EACH STATEMENT EXECUTE FUNCTION benchledger_refuse('the ledger tail is kept: "
                                "TRUNCATE refused')"),
    "ledger_tail_forward": ("CREATE TRIGGER ledger_tail_forward BEFORE UPDATE ON ledger_tail FOR EACH ROW "
                            "EXECUTE FUNCTION benchledger_tail_forward()"),
}
"""Every guard trigger, by name, as `pg_get_triggerdef` prints it (without the schema)."""

_P001_TRIGGERS: dict[str, str] = {
    **GUARD_TRIGGERS,
    "events_note_tail": ("CREATE TRIGGER events_note_tail AFTER INSERT ON events REFERENCING NEW TABLE AS "
                         "added FOR EACH STATEMENT EXECUTE FUNCTION benchledger_note_tail()"),
}
_TRIGGERS: dict[str, str] = {**_P001_TRIGGERS, **pg_identity.GRANT_GUARDS, **pg_identity.TRIGGERS}


def _create_table(name: str, table: _Table) -> str:
    parts = [*table.columns, *(f"CONSTRAINT {cname} {definition}"
                               for cname, definition in table.constraints.items())]
    return f"CREATE TABLE {name} (\n    " + ",\n    ".join(parts) + "\n)"


_P001 = (
    *(_create_table(name, table) for name, table in _P001_TABLES.items()),
    *_INDEXES.values(),
    *(f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $body${body}$body$"
      for name, body in _FUNCTIONS.items()),
    *_P001_TRIGGERS.values(),
    "INSERT INTO ledger_tail (id, seq) VALUES (true, 0)",
)

LOCKING_PRIVILEGES = ("UPDATE", "DELETE", "TRUNCATE", "MAINTAIN")
"""Table privileges with which PostgreSQL lets a role take any table lock (`LOCK TABLE ... IN ACCESS
EXCLUSIVE MODE`, which holds up every reader); SELECT allows only ACCESS SHARE, INSERT only up to
ROW EXCLUSIVE, and neither conflicts with a reader's ACCESS SHARE or a writer's INSERT."""

VIEW_COLUMNS = ("position", "value")
"""The columns of `views` a writer updates (a saved view replaced by a later fold: `writer._UPSERT_VIEW`)."""
TAIL_COLUMNS = ("seq",)
"""The column of `ledger_tail` a writer updates (the insert trigger moves it forward) and locks the
row of (`SELECT ... FOR UPDATE`, which needs UPDATE on one column of the table)."""


_P003 = (f"""DO $do$
DECLARE
  grant_row record;
BEGIN
  FOR grant_row IN SELECT c.relname, a.privilege_type,
      CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END AS grantee
    FROM pg_class c, aclexplode(c.relacl) a
    WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND c.relkind = 'r' AND a.grantee <> c.relowner
      AND a.privilege_type = ANY (ARRAY['{"', '".join(LOCKING_PRIVILEGES)}'])
  LOOP
    EXECUTE format('REVOKE %s ON %I FROM %s', grant_row.privilege_type, grant_row.relname, grant_row.grantee);
    IF grant_row.privilege_type = 'UPDATE' AND grant_row.relname = 'views' THEN
      EXECUTE format('GRANT UPDATE ({', '.join(VIEW_COLUMNS)}) ON views TO %s', grant_row.grantee);
    ELSIF grant_row.privilege_type = 'UPDATE' AND grant_row.relname = 'ledger_tail' THEN
      EXECUTE format('GRANT UPDATE ({', '.join(TAIL_COLUMNS)}) ON ledger_tail TO %s', grant_row.grantee);
    END IF;
  END LOOP;
END
$do$""",)
"""p003: no role but the owner keeps a table privilege that allows a table lock; a writer's UPDATE on
`views` and `ledger_tail` becomes UPDATE on the columns it writes (issue 32: `LOCK TABLE views IN
ACCESS EXCLUSIVE MODE`, which the table-wide grant allowed, held every reader up)."""

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "p001_ledger", _P001),
    Migration(2, "p002_writer_identities", pg_identity.statements(
        _create_table("run_grants", _TABLES["run_grants"]), _create_table("writer_secret", _TABLES["writer_secret"]))),
    Migration(3, "p003_no_table_locks", _P003),
)
"""The PostgreSQL ledger's own numbered migrations (the SQLite file has its own)."""


def init_lock_key(schema: str) -> str:
    """The text naming the advisory lock `ledger init` holds while it migrates the schema."""
    return f"benchledger:init:{schema}"


def migration_rows(migration: Migration) -> list[tuple[str, tuple[Any, ...]]]:
    """The bookkeeping statements recorded with a migration: its number, and the ledger's mark."""
    rows: list[tuple[str, tuple[Any, ...]]] = [
        ("INSERT INTO schema_migrations (number, name, applied_at) VALUES (?, ?, ?)",
         (migration.number, migration.name, clock.now_iso()))]
    if migration.number == 1:
        rows += [("INSERT INTO meta (key, value) VALUES ('format', ?)", (FORMAT,)),
                 ("INSERT INTO meta (key, value) VALUES ('created_at', ?)", (clock.now_iso(),))]
    return rows


def writer_grants(schema: str, role: str) -> list[str]:
    """What a writer role may do: read everything, append events, blobs, responses and grants, save
    views, and move the ledger tail forward (the insert trigger does it as the inserting role).

    No table privilege that allows a table lock (`LOCKING_PRIVILEGES`): what it updates it may
    update through column privileges only, which PostgreSQL does not count for `LOCK TABLE`
    (it checks the table's own privileges), so a writer can take no lock a reader's SELECT or
    another writer's INSERT waits for. An older `ledger init` granted UPDATE on `views` and
    `ledger_tail` whole; it is revoked first. `schema` and `role` are quoted identifiers."""
    return [*reader_grants(schema, role),
            f"GRANT SELECT ON writer_secret TO {role}",
            f"REVOKE {', '.join(LOCKING_PRIVILEGES[:3])} ON {', '.join(_TABLES)} FROM {role}",
            f"GRANT INSERT ON events, blobs, responses, run_grants, views TO {role}",
            f"GRANT UPDATE ({', '.join(VIEW_COLUMNS)}) ON views TO {role}",
            f"GRANT UPDATE ({', '.join(TAIL_COLUMNS)}) ON ledger_tail TO {role}"]


def reader_grants(schema: str, role: str) -> list[str]:
    """What a reader role may do: read the schema's tables (quoted identifiers, as above)."""
    return [f"GRANT USAGE ON SCHEMA {schema} TO {role}",
            f"GRANT SELECT ON {', '.join(name for name in _TABLES if name != 'writer_secret')} TO {role}"]


# -- the check --------------------------------------------------------------------------------

Facts = dict[tuple[str, str], str]
"""(kind, name) -> a one-line description of one object of the schema."""


def expected() -> Facts:
    """What a ledger schema holds, from the declared data (the same data `MIGRATIONS` creates)."""
    facts: Facts = {}
    for name, table in _TABLES.items():
        facts[("table", name)] = "; ".join(table.columns)
        for cname, definition in table.constraints.items():
            facts[("constraint", f"{name}.{cname}")] = definition
    for name, definition in _INDEXES.items():
        facts[("index", name)] = definition
    for name, body in _FUNCTIONS.items():
        facts[("function", name)] = " ".join(body.split())
    for name, body in pg_identity.FUNCTIONS.items():
        facts[("function", name)] = " ".join(body.split()) + f" (set {pg_identity.FUNCTION_CONFIG})"
    for name, definition in _TRIGGERS.items():
        facts[("trigger", name)] = definition
    return facts


_COLUMNS = """SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
    pg_get_expr(d.adbin, d.adrelid)
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
  LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
  WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = ?) AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
  ORDER BY c.relname, a.attnum"""
_RELATIONS = """SELECT c.relname, c.relkind, c.relrowsecurity OR c.relforcerowsecurity FROM pg_class c
  WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = ?) AND c.relkind NOT IN ('i', 'I', 'S', 't', 'c')"""
_CONSTRAINTS = """SELECT c.relname, k.conname, pg_get_constraintdef(k.oid) FROM pg_constraint k
  JOIN pg_class c ON c.oid = k.conrelid
  WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = ?) AND k.contype IN ('p', 'u', 'c', 'f', 'x', 't')"""
_INDEX_DEFS = """SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
  WHERE i.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = ?)
    AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.oid)"""
_FUNCTION_DEFS = """SELECT p.proname, p.prosrc, p.prosecdef, l.lanname, p.proconfig FROM pg_proc p
  JOIN pg_language l ON l.oid = p.prolang WHERE p.pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = ?)"""
_TRIGGER_DEFS = """SELECT t.tgname, pg_get_triggerdef(t.oid), t.tgenabled FROM pg_trigger t
  JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = ?) AND NOT t.tgisinternal"""
_OTHERS = """SELECT 'rule', r.rulename FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
    WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = ?) AND c.relkind IN ('r', 'p')
  UNION ALL SELECT 'policy', p.polname FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
    WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = ?)"""


def _settings(config: object) -> list[str]:
    """`pg_proc.proconfig` as a list (psycopg's raw cursor gives the array's text, `{a,"b c"}`)."""
    if isinstance(config, (list, tuple)):
        return [str(item) for item in config]
    text = str(config).strip("{}")
    return [item.strip('"') for item in text.split('","')] if text.startswith('"') else text.split(",")


def describe(conn: LedgerConnection) -> Facts:
    """The facts of the connection's current schema, in the form `expected` gives them.

    A disabled trigger, a security-definer or non-plpgsql guard function, a table with row-level
    security, a rule or a policy is described so that it differs from anything expected.
    """
    (schema, prefix) = conn.execute("SELECT current_schema(), quote_ident(current_schema()) || '.'").fetchone()
    facts: Facts = {}
    columns: dict[str, list[str]] = {}
    for table, name, type_, not_null, default in conn.execute(_COLUMNS, (schema,)):
        columns.setdefault(table, []).append(
            f"{name} {type_}" + (" NOT NULL" if not_null else "") + (f" DEFAULT {default}" if default else ""))
    for name, kind, secured in conn.execute(_RELATIONS, (schema,)):
        described = "; ".join(columns.get(name, ())) if kind in ("r", "p") else f"relation of kind {kind}"
        facts[("table", name)] = described + (" (with row-level security)" if secured else "")
    for table, name, definition in conn.execute(_CONSTRAINTS, (schema,)):
        facts[("constraint", f"{table}.{name}")] = definition
    for name, definition in conn.execute(_INDEX_DEFS, (schema,)):
        facts[("index", name)] = definition.replace(f" ON {prefix}", " ON ", 1)
    for name, source, definer, language, config in conn.execute(_FUNCTION_DEFS, (schema,)):
        extra = (" (security definer)" if definer else "") + ("" if language == "plpgsql" else f" ({language})")
        extra += f" (set {'; '.join(_settings(config))})" if config else ""
        facts[("function", name)] = " ".join(source.split()) + extra
    for name, definition, enabled in conn.execute(_TRIGGER_DEFS, (schema,)):
        shown = definition.replace(f" ON {prefix}", " ON ", 1)
        facts[("trigger", name)] = shown + ("" if enabled in ("O", "A") else " (disabled)")
    for kind, name in conn.execute(_OTHERS, (schema, schema)):
        facts[(kind, name)] = kind
    return facts


def check_schema(conn: LedgerConnection) -> str | None:
    """The first difference between the ledger's schema and the expected one, or None."""
    found, wanted = describe(conn), expected()
    for name in GUARD_TRIGGERS:
        key = ("trigger", name)
        if key not in found:
            return f"guard trigger {name} is missing: the ledger is no longer protected as append-only"
        if found[key] != wanted[key]:
            how = "disabled" if found[key].endswith("(disabled)") else "altered"
            return f"guard trigger {name} was {how}: the ledger is no longer protected as append-only"
    for name in (*pg_identity.GRANT_GUARDS, *pg_identity.TRIGGERS):
        key = ("trigger", name)
        if found.get(key) != wanted[key]:
            how = "missing" if key not in found else "disabled" if found[key].endswith("(disabled)") else "altered"
            return (f"checking trigger {name} is {how}: the server no longer checks who writes each row and "
                    "that it continues its run's chain")
    for key, fact in sorted(wanted.items()):
        if key not in found:
            return f"{key[0]} {key[1]} is missing from the ledger's schema"
        if found[key] != fact:
            return (f"{key[0]} {key[1]} differs from the expected schema: its columns, constraints "
                    "or definition were changed")
    for kind, name in sorted(set(found) - set(wanted)):
        return f"unexpected {kind} {name} in the ledger's schema"
    return None


_STRAY_WRITER = """SELECT e.seq, e.run_id, e.writer, o.writer FROM events e
  JOIN events o ON o.run_id = e.run_id AND o.position = 1
  WHERE {where}o.writer IS NOT NULL AND (e.writer IS NULL OR (e.writer <> o.writer AND NOT EXISTS (
    SELECT 1 FROM run_grants g WHERE g.run_id = e.run_id AND g.grantee = e.writer)))
  ORDER BY e.seq LIMIT 1"""


def check_writers(conn: LedgerConnection, run_id: str | None) -> tuple[int, str] | None:
    """The first row of a run (or of any run) that its owner's run did not take from its writer.

    The insert trigger refuses such a row, so one is there only if the checks were off when it
    was written (the owner disabled them, or a superuser bypassed them); a run recorded before
    p002 (no writer on its first row) has no owner and is not checked.
    """
    where = "e.run_id = ? AND " if run_id is not None else ""
    row = conn.execute(_STRAY_WRITER.format(where=where), (run_id,) if run_id is not None else ()).fetchone()
    if row is None:
        return None
    seq, run, writer, owner = row
    who = f"role {writer}" if writer is not None else "no role"
    return int(seq), (f"seq {seq} of run {run} was written by {who}, but the run belongs to role {owner}, "
                      "which did not grant it: the server's checks were bypassed")
