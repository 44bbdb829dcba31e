"""`push` and `pull` copy a run between any two ledgers, byte for byte, verified on both sides.

A run recorded in a local SQLite file is pushed to a shared PostgreSQL ledger and pulled back into
a new file: its rows keep their bytes and hashes (the columns a row's hash covers, `prev_hash`
and `hash`), the blobs their stored bodies, the cached responses their text, and the run's head
is the same in all three. Pushing again changes nothing; a run that does not verify, a run whose
version-1 rows link through other runs, and a run that has diverged are refused with one line,
nothing written.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path

import pytest

from benchledger.errors import BadInput, LedgerError
from benchledger.ledger.events import Failed
from benchledger.ledger.store import Ledger, display_target
from benchledger.ledger.transfer import copy_run
from chain_rows import append_legacy
from conftest import MINI
from ledger_cli import invoke as invoke_any
from ledger_cli import invoke_expecting as invoke
from ledger_contract import answered, reply_entry

COPIED = "run_id, position, type, schema_version, recorded_at, idempotency_key, payload, prev_hash, hash"
REQUEST = "c" * 64
RUN, FIRST, SECOND, THIRD, ALONE = (f"01JCPY{name}".ljust(26, "0") for name in ("RVN", "F", "S", "T", "A"))
"""Run ids as benchledger makes them (ULIDs): only those are copied between ledgers."""


def failed(qid: str) -> Failed:
    return Failed(stage="answer", question_id=qid, error_class="Timeout", message="slow")


def raw_body(encoding: str, body: bytes) -> bytes:
    """A stored body's raw bytes: a file keeps it compressed, a server raw (so it can re-hash it)."""
    return zlib.decompress(body) if encoding == "zlib" else body


def stored(target: str | Path, run_id: str) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """(event rows as the hash covers them, blobs as (digest, size, raw body), response rows) of a run."""
    if isinstance(target, Path):
        conn = sqlite3.connect(target)
        rows = lambda sql, *p: [tuple(r) for r in conn.execute(sql, p)]  # noqa: E731
    else:
        import psycopg

        conn = psycopg.connect(target)
        rows = lambda sql, *p: [tuple(r) for r in conn.execute(sql.replace("?", "%s"), p)]  # noqa: E731
    try:
        events = rows(f"SELECT {COPIED} FROM events WHERE run_id = ? ORDER BY position", run_id)
        blobs = rows("SELECT digest, size, encoding, body FROM blobs ORDER BY digest")
        responses = rows("SELECT * FROM responses WHERE run_id = ? ORDER BY request_digest", run_id)
        return events, [(d, s, raw_body(e, bytes(b))) for d, s, e, b in blobs], responses
    finally:
        conn.close()


@pytest.fixture
def local_run(tmp_path) -> tuple[Path, str]:
    """A real GroupMemBench run (offline models) in a local SQLite ledger, and its id."""
    path = tmp_path / "local.db"
    invoke("--ledger", str(path), "run", "groupmem", str(MINI), "--domain", "Demo")
    with Ledger.open(path, create=False) as ledger:
        return path, ledger.reader.resolve_run("latest")


def test_a_run_round_trips_through_a_shared_ledger_byte_for_byte(postgres_server, local_run, tmp_path):
    path, run_id = local_run
    shared = postgres_server.new_ledger()
    with Ledger.open(shared) as ledger:  # the shared ledger holds another team member's run already
        ledger.writer.append("someone-else", [failed("q1"), failed("q2")])
    pushed = invoke("--ledger", str(path), "push", run_id[:8], "--to", shared)
    with Ledger.open(path, create=False) as ledger:
        head = ledger.reader.head(run_id)
        count = len(ledger.reader.events(run_id))
    assert pushed.output.strip() == (f"run {run_id} from {path} to {display_target(shared)}: copied {count} "
                                     f"of its {count} events; verified in both, head {head}")
    assert "bl_writer" not in pushed.output
    back = tmp_path / "back.db"
    pulled = invoke("--ledger", str(back), "pull", run_id, "--from", shared)
    assert pulled.output.strip().endswith(f"head {head}")
    original, in_shared, in_back = stored(path, run_id), stored(shared, run_id), stored(back, run_id)
    assert original[0] == in_shared[0] == in_back[0]  # every event's bytes and hashes
    assert original[2] == in_shared[2] == in_back[2]  # its cached responses (none: offline models)
    assert set(original[1]) <= set(in_shared[1]) and original[1] == in_back[1]  # the blobs' bodies
    for target in (path, shared, back):
        with Ledger.open(target) as ledger:
            assert ledger.reader.head(run_id) == head and ledger.reader.verify().ok and ledger.reader.verify(run_id).ok
    reports = [json.loads(invoke("--ledger", str(target), "show", run_id, "--json").stdout)
               for target in (path, shared, back)]
    assert [report.pop("last_seq") for report in reports] == [129, 131, 129]  # where it stands in each
    assert reports[0] == reports[1] == reports[2]  # the same report, the same ledger head
    with Ledger.open(shared) as ledger:
        assert [e.seq for e in ledger.reader.events(run_id)][0] == 3  # its own seqs and links there


def test_pushing_the_same_run_twice_changes_nothing(postgres_server, local_run):
    path, run_id = local_run
    shared = postgres_server.new_ledger()
    invoke("--ledger", str(path), "push", run_id, "--to", shared)
    schema = shared.rsplit("%3D", 1)[1]
    before = postgres_server.sql("SELECT seq, hash, link FROM events ORDER BY seq", schema=schema)
    tail = postgres_server.sql("SELECT seq FROM ledger_tail", schema=schema)
    again = invoke("--ledger", str(path), "push", run_id, "--to", shared, "--json")
    assert '"copied": 0' in again.output
    assert postgres_server.sql("SELECT seq, hash, link FROM events ORDER BY seq", schema=schema) == before
    assert postgres_server.sql("SELECT seq FROM ledger_tail", schema=schema) == tail
    assert invoke("--ledger", shared, "pull", run_id, "--from", str(path)).output.count("nothing copied") == 1


def test_a_run_that_grew_is_pushed_again_with_only_its_new_events(tmp_path, postgres_server):
    local, shared = tmp_path / "grow.db", postgres_server.new_ledger()
    with Ledger.open(local) as source, Ledger.open(shared) as target:
        source.writer.append(RUN, [answered("q1", "Final: Paris", REQUEST)], blobs=[b"Final: Paris"],
                             cache=[reply_entry("q1", "Final: Paris", REQUEST)])
        first = copy_run(source, target, RUN)
        target.writer.append("other", [failed("x")])  # the shared ledger moves on meanwhile
        source.writer.append(RUN, [failed("q2"), failed("q3")])
        second = copy_run(source, target, RUN)
        assert (first.copied, second.copied, second.events) == (1, 2, 3)
        assert target.reader.head(RUN) == source.reader.head(RUN) == second.head
        assert target.cache.cache_get(REQUEST, runs=(RUN,))["text"] == "Final: Paris"
        assert target.reader.verify().ok and [e.seq for e in target.reader.events(RUN)] == [1, 3, 4]
    assert stored(local, RUN)[2] == stored(shared, RUN)[2] != []  # the cached response, as stored


@pytest.mark.parametrize("kind", ["sqlite-to-sqlite", "postgres-to-postgres"])
def test_any_two_ledgers_will_do(tmp_path, postgres_server, kind):
    if kind == "sqlite-to-sqlite":
        source, target = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    else:
        source, target = postgres_server.new_ledger(), postgres_server.new_ledger()
    with Ledger.open(source) as ledger:
        ledger.writer.append(RUN, [failed("q1"), failed("q2")])
        head = ledger.reader.head(RUN)
    invoke("--ledger", source, "push", RUN, "--to", target)
    with Ledger.open(target) as ledger:
        assert ledger.reader.head(RUN) == head and ledger.reader.verify().ok


def test_a_run_that_does_not_verify_is_refused_with_one_line(tmp_path, postgres_server):
    from chain_rows import raw
    from benchledger.ledger.migrations import GUARD_TRIGGERS

    path, shared = tmp_path / "bad.db", postgres_server.new_ledger()
    with Ledger.open(path) as ledger:
        ledger.writer.append(RUN, [failed("q1"), failed("q2")])
    conn = raw(path)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET payload = replace(payload, 'slow', 'fast') WHERE seq = 2")
    conn.execute(GUARD_TRIGGERS["events_no_update"])
    conn.close()
    result = invoke("--ledger", str(path), "push", RUN, "--to", shared, expect=1)
    assert result.stderr.strip().count("\n") == 0
    assert f"run {RUN} does not verify at seq 2" in result.stderr and "it is not copied" in result.stderr
    with Ledger.open(shared) as ledger:
        assert ledger.reader.runs() == []


def test_a_legacy_run_that_links_through_other_runs_is_refused_with_one_line_saying_why(tmp_path, postgres_server):
    path, shared = tmp_path / "old.db", postgres_server.new_ledger()
    Ledger.open(path).close()
    append_legacy(path, FIRST, [failed("q1"), failed("q2")])  # alone in the ledger: a chain of its own
    append_legacy(path, SECOND, [failed("q1")])
    append_legacy(path, FIRST, [failed("q3")])  # now first's chain runs through second's row
    append_legacy(path, THIRD, [failed("q1")])
    result = invoke("--ledger", str(path), "push", FIRST, "--to", shared, expect=2)
    assert result.stderr.strip().count("\n") == 0
    assert "chain version 1" in result.stderr and "position 3 (seq 4)" in result.stderr
    assert "copy the whole ledger file instead" in result.stderr
    refused = invoke("--ledger", str(path), "push", THIRD, "--to", shared, expect=2)
    assert "position 1 (seq 5)" in refused.stderr
    with Ledger.open(shared) as ledger:
        assert ledger.reader.runs() == []
    with Ledger.open(path) as legacy, Ledger.open(tmp_path / "copy.db") as copy:  # second never shared
        with pytest.raises(BadInput, match="chain version 1"):
            copy_run(legacy, copy, SECOND)


def test_a_legacy_run_with_a_chain_of_its_own_keeps_its_hashes_elsewhere(tmp_path, postgres_server):
    path, shared = tmp_path / "old.db", postgres_server.new_ledger()
    Ledger.open(path).close()
    append_legacy(path, ALONE, [failed("q1"), failed("q2")])
    with Ledger.open(path) as legacy, Ledger.open(shared) as target:
        legacy.writer.append(ALONE, [failed("q3")])  # resumed after m003: its next row links to its own last
        result = copy_run(legacy, target, ALONE)
        assert result.copied == 3 and result.head == legacy.reader.head(ALONE)
    assert stored(path, ALONE)[0] == stored(shared, ALONE)[0]


def test_a_diverged_run_is_refused_and_nothing_is_written(tmp_path):
    with Ledger.open(tmp_path / "a.db") as a, Ledger.open(tmp_path / "b.db") as b, \
            Ledger.open(tmp_path / "c.db") as c:
        a.writer.append(RUN, [failed("q1"), failed("q2")])
        b.writer.append(RUN, [failed("q1"), failed("q9")])
        with pytest.raises(LedgerError, match="differs at position 1 between the two ledgers"):
            copy_run(a, b, RUN)
        assert [e.event.question_id for e in b.reader.events(RUN)] == ["q1", "q9"]
        copy_run(a, c, RUN)
        c.writer.append(RUN, [failed("q3")])  # c's copy of the run went on without a
        with pytest.raises(LedgerError, match="has 3 events where it is copied to, more than the 2"):
            copy_run(a, c, RUN)
        assert len(c.reader.events(RUN)) == 3 and c.reader.verify().ok


def test_the_target_being_written_is_refused(tmp_path):
    from benchledger.errors import RunBusy

    with Ledger.open(tmp_path / "a.db") as a, Ledger.open(tmp_path / "b.db") as b:
        a.writer.append(RUN, [failed("q1")])
        with b.writer.run_writer(RUN), Ledger.open(tmp_path / "b.db") as other_handle:
            with pytest.raises(RunBusy):
                copy_run(a, other_handle, RUN)


def test_a_target_whose_guards_were_dropped_takes_nothing(tmp_path):
    with Ledger.open(tmp_path / "a.db") as a, Ledger.open(tmp_path / "b.db") as b:
        a.writer.append(RUN, [failed("q1")])
        b.writer.append("other", [failed("q0")])
    conn = sqlite3.connect(tmp_path / "b.db", isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.close()
    with Ledger.open(tmp_path / "a.db") as a, Ledger.open(tmp_path / "b.db") as b:
        with pytest.raises(LedgerError, match="guard trigger events_no_update is missing"):
            copy_run(a, b, RUN)
        assert [r.run_id for r in b.reader.runs()] == ["other"]


def test_pull_from_a_missing_ledger_or_run_is_one_line(tmp_path):
    result = invoke("pull", "latest", "--from", str(tmp_path / "nowhere.db"), expect=2)
    assert "no ledger at" in result.stderr
    with Ledger.open(tmp_path / "a.db") as a:
        a.writer.append(RUN, [failed("q1")])
    result = invoke("--ledger", str(tmp_path / "a.db"), "push", "zzz", "--to", str(tmp_path / "b.db"), expect=2)
    assert "no run matches 'zzz'" in result.stderr


def test_only_a_run_named_by_a_ulid_is_copied(tmp_path):
    path = tmp_path / "a.db"
    with Ledger.open(path) as ledger:
        ledger.writer.append("by-hand", [failed("q1")])
    result = invoke("--ledger", str(path), "push", "by-hand", "--to", str(tmp_path / "b.db"), expect=2)
    assert result.stderr.strip().count("\n") == 0 and "run id by-hand is not a ULID" in result.stderr
    result = invoke("--ledger", str(tmp_path / "c.db"), "pull", "by-hand", "--from", str(path), expect=2)
    assert "is not a ULID" in result.stderr
    with Ledger.open(tmp_path / "c.db") as ledger:
        assert ledger.reader.runs() == []


def test_a_run_pushed_under_a_prefix_of_another_id_cannot_stand_in_for_it(tmp_path):
    real, path = RUN, tmp_path / "shared.db"
    with Ledger.open(path) as ledger:
        ledger.writer.append(real, [failed("q1")])
        ledger.writer.append(real[:12], [failed("q9")])  # the forgery, under a prefix people type
    result = invoke("--ledger", str(path), "events", real[:12], expect=2)
    assert result.stderr.strip() == (f"Error: '{real[:12]}' matches 2 runs ({real[:12]}, {real}); give more "
                                     "characters of the run id (its full ULID names one run)")
    assert "q1" in invoke("--ledger", str(path), "events", real).output


def test_a_run_id_written_by_hand_with_a_terminal_escape_is_refused_on_read(tmp_path):
    path = tmp_path / "hand.db"
    with Ledger.open(path) as ledger:
        ledger.writer.append(RUN, [failed("q1")])
    conn = sqlite3.connect(path, isolation_level=None)  # a row put in by hand, with the next seq
    conn.execute("INSERT INTO events (seq, run_id, position, type, schema_version, recorded_at, payload, "
                 "prev_hash, hash, chain, link) SELECT 2, ?, 1, type, schema_version, recorded_at, payload, "
                 "prev_hash, hash, chain, link FROM events WHERE seq = 1", ("01X\x1b]0;pwned\x07",))
    conn.close()
    result = invoke("--ledger", str(path), "events", "01X", expect=1)
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "run id '01X\\x1b]0;pwned\\x07' is not one benchledger records" in result.stderr
    assert "q1" in invoke("--ledger", str(path), "events", RUN).output


_ULID_TAIL = "1JCPYRVN0000000000000000Z"
"""25 characters of Crockford's base32 (0-9 and A-Z without I, L, O, U) to follow a first character."""


def _copied(tmp_path: Path, run_id: str) -> tuple[int, int, str, str]:
    """(push's exit code, pull's exit code, their error lines) for a run recorded under `run_id`."""
    source = tmp_path / "source.db"
    with Ledger.open(source) as ledger:
        ledger.writer.append(run_id, [failed("q1")])
    pushed = invoke_any("--ledger", str(source), "push", run_id, "--to", str(tmp_path / "pushed.db"))
    pulled = invoke_any("--ledger", str(tmp_path / "pulled.db"), "pull", run_id, "--from", str(source))
    return pushed.exit_code, pulled.exit_code, pushed.stderr.strip(), pulled.stderr.strip()


@pytest.mark.parametrize("first", ["0", "7"])
def test_a_ulid_whose_first_character_is_at_the_edge_0_to_7_is_pushed_and_pulled(tmp_path, first):
    run_id = first + _ULID_TAIL
    assert _copied(tmp_path, run_id) == (0, 0, "", "")
    for copy in ("pushed.db", "pulled.db"):
        with Ledger.open(tmp_path / copy) as ledger:
            assert [run.run_id for run in ledger.reader.runs()] == [run_id]


@pytest.mark.parametrize("run_id", [
    "8" + _ULID_TAIL,                       # just past the largest first character (a ULID's 48-bit time)
    "Z" + _ULID_TAIL,                       # a Crockford character, but no ULID starts with it
    *(f"01JCPY{bad}".ljust(26, "0") for bad in "ILOU"),  # the four letters Crockford's alphabet leaves out
    "01jcpyrvn0000000000000000z",           # lower case: benchledger writes its ids in capitals
    ("0" + _ULID_TAIL)[:25], "0" + _ULID_TAIL + "0",  # one character short, one too many
])
def test_a_run_id_outside_the_ulid_alphabet_or_length_is_refused_by_push_and_pull(tmp_path, run_id):
    pushed, pulled, push_line, pull_line = _copied(tmp_path, run_id)
    assert (pushed, pulled) == (2, 2)
    for line in (push_line, pull_line):
        assert line.count("\n") == 0 and f"run id {run_id} is not a ULID" in line, line
    for copy in ("pushed.db", "pulled.db"):
        if (tmp_path / copy).exists():
            with Ledger.open(tmp_path / copy) as ledger:
                assert ledger.reader.runs() == []
