"""Attacks on a SQLite ledger file that verify, the cache and the reads that check must catch.

Each test edits the file the way someone with the file (and the sqlite3 shell) could: rows of
the guarded response cache, blob bodies, the schema, a whole consistently re-hashed chain, or
an older copy put back. `tamper` drops the guard triggers, edits, and puts them back.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchledger.cli.main import cli
from benchledger.errors import LedgerError, VerificationFailed
from benchledger.ledger import migrations
from benchledger.ledger.events import ContextRecalled, Failed
from benchledger.ledger.migrations import GUARD_TRIGGERS
from benchledger.ledger.store import Ledger
from chain_rows import all_rows, append_legacy, relinked, rewrite
from ledger_contract import answered, reply_entry

REQUEST = "a" * 64


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def tamper(path: Path, *statements: str, params: tuple = ()) -> None:
    conn = raw(path)
    for name in GUARD_TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for statement in statements:
        conn.execute(statement, params if "?" in statement else ())
    for sql in GUARD_TRIGGERS.values():
        conn.execute(sql)
    conn.close()


@pytest.fixture
def cached(tmp_path) -> Path:
    """A ledger whose run recorded an answer and cached the reply with it."""
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        ledger.writer.append("run", [answered("q1", "Final: Paris", REQUEST)], blobs=[b"Final: Paris"],
                             cache=[reply_entry("q1", "Final: Paris", REQUEST)])
        assert ledger.cache.cache_get(REQUEST, runs=("run",)) is not None
    return path


def _served_and_verified(path: Path) -> tuple[dict | None, object]:
    with Ledger.open(path, create=False) as ledger:
        return ledger.cache.cache_get(REQUEST, runs=("run",)), ledger.reader.verify()


def _served_with_reasons(path: Path) -> tuple[dict | None, list[tuple[str, str]], object]:
    """What the cache serves for REQUEST, the (level, reason) it logs for not serving it, and verify's result."""
    import logging

    import structlog
    from structlog.testing import capture_logs

    saved = structlog.get_config()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    try:
        with capture_logs() as logs:
            served, result = _served_and_verified(path)
    finally:
        structlog.configure(**saved)
    return served, [(log["log_level"], log["reason"]) for log in logs if "reason" in log], result


def test_the_database_refuses_to_change_or_remove_a_cached_response(cached):
    conn = raw(cached)
    for statement in ("UPDATE responses SET response = '{}'", "DELETE FROM responses",
                      "INSERT INTO cache VALUES ('k', '{}', 'm', 'now')"):
        with pytest.raises(sqlite3.DatabaseError):
            conn.execute(statement)
    conn.execute("INSERT OR REPLACE INTO responses SELECT request_digest, '{}', response_digest, model, "
                 "run_id, idempotency_key, recorded_at FROM responses")  # skipped: the first wins
    assert _served_and_verified(cached)[0]["text"] == "Final: Paris"


def test_an_edited_response_is_never_served_and_fails_verify(cached):
    forged = '{"model":"m","text":"Final: Correct","usage":{}}'
    tamper(cached, "UPDATE responses SET response = ?", params=(forged,))
    served, reasons, result = _served_with_reasons(cached)
    assert served is None
    assert [(level, reason[:10]) for level, reason in reasons] == [("debug", "was edited")]
    assert not result.ok and f"cached response {REQUEST} was edited" in result.problem
    # re-hashing the forged response does not help: the recording event pins the reply
    tamper(cached, "UPDATE responses SET response_digest = ?", params=(hashlib.sha256(forged.encode()).hexdigest(),))
    served, result = _served_and_verified(cached)
    assert served is None and "does not match its recording event (seq 1)" in result.problem


def test_a_response_forged_with_its_recording_event_is_never_served(cached):
    """The forger edits the response, its digest and the raw_hash of the event that vouches for it,
    so the entry and its event agree: only the recording event's own chain hash is left to notice."""
    forged_text = "Final: Correct"
    forged = json.dumps({"model": "m", "text": forged_text, "usage": {}}, sort_keys=True, separators=(",", ":"))
    (payload,) = raw(cached).execute("SELECT payload FROM events WHERE idempotency_key = 'answer:q1'").fetchone()
    event = json.loads(payload)
    event["raw_hash"] = hashlib.sha256(forged_text.encode()).hexdigest()
    tamper(cached, "UPDATE responses SET response = ?, response_digest = ?",
           params=(forged, hashlib.sha256(forged.encode()).hexdigest()))
    tamper(cached, "UPDATE events SET payload = ? WHERE idempotency_key = 'answer:q1'",
           params=(json.dumps(event, separators=(",", ":")),))
    served, reasons, result = _served_with_reasons(cached)
    assert served is None and reasons == [("debug", "has a recording event (seq 1) that was changed")]
    assert not result.ok


def test_an_orphan_entry_is_never_served_and_fails_verify(cached):
    text = '{"model":"m","text":"Final: Correct","usage":{}}'
    conn = raw(cached)  # inserts are allowed by the guards: an orphan needs no dropped trigger
    conn.execute("INSERT INTO responses VALUES (?, ?, ?, 'm', 'run', 'answer:q9', 'now')",
                 ("b" * 64, text, hashlib.sha256(text.encode()).hexdigest()))
    with Ledger.open(cached, create=False) as ledger:
        assert ledger.cache.cache_get("b" * 64, runs=("run",)) is None
        result = ledger.reader.verify()
    assert not result.ok and f"cached response {'b' * 64} is an orphan" in result.problem


def test_an_entry_tied_to_an_event_of_another_request_is_never_served(cached):
    conn = raw(cached)  # the same reply text, claimed for a request the event never made
    conn.execute("INSERT INTO responses SELECT ?, response, response_digest, model, run_id, "
                 "idempotency_key, recorded_at FROM responses", ("c" * 64,))
    with Ledger.open(cached, create=False) as ledger:
        assert ledger.cache.cache_get("c" * 64, runs=("run",)) is None
        assert "names request " + REQUEST in ledger.reader.verify().problem


def test_an_m001_ledger_still_verifies_and_its_cache_is_never_served(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    with monkeypatch.context() as patched:
        patched.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:1])
        Ledger.open(path).close()
    append_legacy(path, "run", [Failed(stage="run", error_class="E", message="m")])  # as m001 wrote it
    conn = raw(path)
    conn.execute("INSERT INTO cache VALUES (?, ?, 'm', 'now')", (REQUEST, '{"text": "Final: Correct"}'))
    before = path.read_bytes()
    with Ledger.open(path, create=False) as ledger:  # reading neither migrates nor serves
        assert ledger.reader.verify().ok and ledger.cache.cache_get(REQUEST, runs=("run",)) is None
    assert path.read_bytes() == before
    with Ledger.open(path) as ledger:  # the first write migrates
        ledger.writer.put_blob(b"x")
        assert ledger.reader.verify().ok and ledger.cache.cache_get(REQUEST, runs=("run",)) is None
    assert conn.execute("SELECT COUNT(*) FROM cache").fetchone()[0] == 1


def _recall(qid: str, context: bytes) -> ContextRecalled:
    return ContextRecalled(question_id=qid, query="q", k=1, items=(), context_hash=hashlib.sha256(context).hexdigest(),
                           context_tokens=3, latency_ms=1.0)


def test_the_candidates_a_recall_names_must_be_stored(tmp_path):
    """Resume answers from the candidates blob a recall names, so verify requires it (and a run
    copied to another ledger takes it along)."""
    candidates = b'[{"rank":1,"document":{"doc_id":"Msg_1"}}]'
    recall = _recall("q1", b"ctx").model_copy(update={"candidates_hash": hashlib.sha256(candidates).hexdigest()})
    with Ledger.open(tmp_path / "kept.db") as ledger:
        ledger.writer.append("run", [recall], blobs=[b"ctx", candidates])
        assert ledger.reader.verify().ok and ledger.reader.verify("run").ok
    with Ledger.open(tmp_path / "lost.db") as ledger:
        ledger.writer.append("run", [recall], blobs=[b"ctx"])
        for result in (ledger.reader.verify(), ledger.reader.verify("run")):
            assert (result.ok, result.first_bad_seq) == (False, 1)
            assert f"names blob {recall.candidates_hash}" in result.problem


def test_deleting_every_blob_fails_verify_and_every_checked_read(tmp_path):
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        ledger.writer.append("run", [_recall("q1", b"ctx one"), _recall("q2", b"ctx two")], blobs=[b"ctx one", b"ctx two"])
        assert ledger.reader.verify().ok and len(ledger.reader.verified_events("run")) == 2
    tamper(path, "DELETE FROM blobs")
    with Ledger.open(path, create=False) as ledger:
        result = ledger.reader.verify()
        assert (result.ok, result.first_bad_seq) == (False, 1) and "names blob" in result.problem
        assert ledger.reader.verify("run").first_bad_seq == 1
        with pytest.raises(VerificationFailed) as caught:
            ledger.reader.verified_events("run")
        assert caught.value.first_bad_seq == 1


def test_a_checked_read_names_the_first_event_whose_blob_was_deleted(tmp_path):
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        ledger.writer.append("run", [_recall("q1", b"ctx one"), _recall("q2", b"ctx two"), _recall("q3", b"ctx one")],
                             blobs=[b"ctx one", b"ctx two"])
        assert len(ledger.reader.verified_events("run")) == 3
    second = hashlib.sha256(b"ctx two").hexdigest()
    tamper(path, "DELETE FROM blobs WHERE digest = ?", params=(second,))
    with Ledger.open(path, create=False) as ledger, pytest.raises(VerificationFailed) as caught:
        ledger.reader.verified_events("run")
    assert caught.value.first_bad_seq == 2 and f"names blob {second}" in str(caught.value)


def test_a_changed_blob_body_is_never_handed_out(tmp_path):
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        digest = ledger.writer.put_blob(b"the real context")
    import zlib
    tamper(path, "UPDATE blobs SET body = ?", params=(zlib.compress(b"another context"),))
    with Ledger.open(path, create=False) as ledger, pytest.raises(LedgerError, match="does not hash"):
        ledger.reader.get_blob(digest)


@pytest.mark.parametrize("rebuild", [
    # events without its UNIQUE and CHECK constraints, rows kept
    ["CREATE TABLE e2 AS SELECT * FROM events", "DROP TABLE events", "ALTER TABLE e2 RENAME TO events"],
    ["CREATE INDEX extra ON events (type)"],
    ["DROP INDEX events_run_markers"],
])
def test_a_schema_that_is_not_exactly_the_ledgers_fails_verify(tmp_path, rebuild):
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        ledger.writer.append("run", [Failed(stage="run", error_class="E", message="m")])
    tamper(path, *rebuild)
    with Ledger.open(path, create=False) as ledger:
        result = ledger.reader.verify()
        assert not result.ok and "schema" in result.problem, result
        with pytest.raises(VerificationFailed, match="schema"):
            ledger.reader.verified_events("run")


def _rehash_everything(path: Path, edit) -> None:
    """Rewrite the chain consistently, as someone with the file could: every later hash redone."""
    rewrite(path, relinked([(*row[:7], edit(row[0], row[7]), *row[8:]) for row in all_rows(path)]))


def test_expect_head_catches_a_consistent_rewrite_and_an_older_copy(tmp_path):
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        ledger.writer.append("run", [Failed(stage="answer", question_id=f"q{i}", error_class="E", message="m")
                                     for i in range(3)])
    older = tmp_path / "older.db"
    shutil.copyfile(path, older)
    with Ledger.open(path) as ledger:
        ledger.writer.append("run", [Failed(stage="answer", question_id="q9", error_class="E", message="m")])
        head = ledger.reader.head("run")  # the run's head (a report's ledger_head); the ledger's is its link
        assert ledger.reader.verify(expect_head=head).ok and ledger.reader.verify("run", expect_head=head).ok
        assert ledger.reader.verify(expect_head=ledger.reader.head()).ok
    runner = CliRunner()
    restored = runner.invoke(cli, ["--ledger", str(older), "verify", "--expect-head", head])
    assert restored.exit_code == 1 and "no event with hash" in restored.output
    assert runner.invoke(cli, ["--ledger", str(older), "verify"]).exit_code == 0, "alone, it looks fine"

    _rehash_everything(path, lambda seq, payload: payload.replace('"m"', '"edited"') if seq == 2 else payload)
    assert runner.invoke(cli, ["--ledger", str(path), "verify"]).exit_code == 0
    rewritten = runner.invoke(cli, ["--ledger", str(path), "verify", "run", "--expect-head", head])
    assert rewritten.exit_code == 1 and "no event with hash" in rewritten.output
    assert len(rewritten.output.strip().splitlines()) == 1


def test_a_released_prompt_the_run_names_must_be_stored(tmp_path):
    from benchledger.ledger.events import Provenance, RunStarted
    from events_factory import config as make_config

    prompt = b"You are a careful judge."
    config = make_config(subset="Demo", agent_model="a", judge_model="j", offline_models=True,
                         reference_prompt_hashes={"judge_system": hashlib.sha256(prompt).hexdigest()})
    started = RunStarted(config=config, provenance=Provenance(package_version="0", python="3.11"))
    with Ledger.open(tmp_path / "kept.db") as ledger:
        ledger.writer.append("run", [started], blobs=[prompt])
        assert ledger.reader.verify().ok and ledger.reader.verified_events("run")
    with Ledger.open(tmp_path / "lost.db") as ledger:
        ledger.writer.append("run", [started])
        assert "names blob " + hashlib.sha256(prompt).hexdigest() in ledger.reader.verify().problem
        with pytest.raises(VerificationFailed, match="names blob"):
            ledger.reader.verified_events("run")
