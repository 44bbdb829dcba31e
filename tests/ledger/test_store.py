"""The ledger store's public API on real SQLite files: append, read back, idempotency, runs."""

from __future__ import annotations

import hashlib
import sqlite3
import pytest
from freezegun import freeze_time

from benchledger.ledger import mapper
from benchledger.ledger.chain import GENESIS, link_hash
from benchledger.errors import AmbiguousRun, ConcurrencyConflict, LedgerError, NotALedger, RunNotFound
from benchledger.ledger.events import Failed, Judged, Provenance, RunFinished, RunResumed, RunStarted
from events_factory import config as make_config
from benchledger.ledger.store import CacheEntry, Ledger, RunSummary, StoredEvent


def failed(qid: str, attempt: int = 1) -> Failed:
    return Failed(stage="answer", question_id=qid, error_class="Timeout", message="slow",
                  attempt=attempt)


def started(benchmark: str = "GroupMemBench") -> RunStarted:
    config = make_config(benchmark=benchmark, agent_model="a", judge_model="j", offline_models=True,
                         protocol="typed")
    return RunStarted(config=config, provenance=Provenance(package_version="0", python="3.11"))


@pytest.fixture
def ledger(tmp_path):
    with Ledger.open(tmp_path / "ledger.db") as opened:
        yield opened


def test_append_returns_rows_with_positions_seqs_and_a_linked_chain(ledger):
    first = ledger.writer.append("run-a", [failed("q1"), failed("q2")])
    other = ledger.writer.append("run-b", [failed("q1")])
    more = ledger.writer.append("run-a", [failed("q3")])
    assert [(e.seq, e.position) for e in first + other + more] == [(1, 1), (2, 2), (3, 1), (4, 3)]
    assert first[0].prev_hash == other[0].prev_hash == GENESIS  # each run's chain is its own
    assert first[1].prev_hash == first[0].hash and more[0].prev_hash == first[1].hash
    assert all(isinstance(e, StoredEvent) and e.type == "Failed" for e in first)


def test_events_read_back_typed_and_equal_to_what_append_returned(ledger):
    written = ledger.writer.append("run-a", [started(), failed("q1"), RunFinished(status="completed")])
    read = ledger.reader.events("run-a")
    assert read == written
    assert isinstance(read[0].event, RunStarted) and read[0].event.config.settings.k == 10
    assert [e.position for e in ledger.reader.events("run-a", types=["Failed", "RunFinished"])] == [2, 3]
    assert [e.seq for e in ledger.reader.events("run-a", until_seq=2)] == [1, 2]
    assert ledger.reader.events("run-missing") == []


def test_payload_column_holds_the_exact_hashed_json(ledger, tmp_path):
    (row,) = ledger.writer.append("run-a", [failed("q1")])
    conn = sqlite3.connect(tmp_path / "ledger.db")
    payload, recorded_at = conn.execute("SELECT payload, recorded_at FROM events").fetchone()
    assert payload == failed("q1").model_dump_json()
    assert row.hash == link_hash(GENESIS, "run-a", 1, "Failed", Failed.schema_version, recorded_at,
                                 "failed:question:q1:answer:1", payload)


def test_recorded_idempotency_keys_are_skipped_within_and_across_batches(ledger):
    ledger.writer.append("run-a", [failed("q1")])
    written = ledger.writer.append("run-a", [failed("q1"), failed("q2"), failed("q2"), failed("q1", 2)])
    assert [(e.position, e.idempotency_key) for e in written] == [
        (2, "failed:question:q2:answer:1"), (3, "failed:question:q1:answer:2")]
    assert ledger.writer.append("run-a", [failed("q2")]) == []
    assert ledger.reader.recorded_keys("run-a") == {
        "failed:question:q1:answer:1", "failed:question:q2:answer:1", "failed:question:q1:answer:2"}
    # the same key in another run is another event
    assert len(ledger.writer.append("run-b", [failed("q1")])) == 1


def test_recorded_keys_are_found_past_one_in_list_of_keys(ledger):
    """More keys than one `IN (...)` list holds (backend.KEY_CHUNK): every recorded one is still seen."""
    from benchledger.ledger.backend import KEY_CHUNK

    count = 2 * KEY_CHUNK + 7
    ledger.writer.append("run-a", [failed(f"q{i}") for i in range(count)])
    again = [failed(f"q{i}") for i in range(count)] + [failed("new")]
    assert [e.idempotency_key for e in ledger.writer.append("run-a", again)] == ["failed:question:new:answer:1"]


def test_recorded_at_comes_from_the_frozen_clock(ledger):
    with freeze_time("2025-03-04T05:06:07.123456Z"):
        (row,) = ledger.writer.append("run-a", [failed("q1")])
    assert row.recorded_at == "2025-03-04T05:06:07.123456Z"
    assert ledger.reader.events("run-a")[0].recorded_at == "2025-03-04T05:06:07.123456Z"


def test_blobs_are_content_addressed_and_stored_once(ledger, tmp_path):
    digest = ledger.writer.put_blob("packed context ü")
    assert digest == ledger.writer.put_blob("packed context ü".encode())
    assert ledger.reader.get_blob(digest) == "packed context ü".encode()
    ledger.writer.append("run-a", [failed("q1")], blobs=[b"raw output", "packed context ü"])
    conn = sqlite3.connect(tmp_path / "ledger.db")
    assert conn.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == 2
    with pytest.raises(LedgerError, match="no blob"):
        ledger.reader.get_blob("0" * 64)


def test_a_response_is_cached_only_with_the_event_that_names_it(ledger):
    """Issue 25 item 4: one cache write path. No reply is paired with an event afterwards by its text:
    an event that names no request caches nothing, and the store has no other way in."""
    assert not hasattr(ledger, "cache_put")
    raw_hash = hashlib.sha256(b"Final: Correct").hexdigest()
    (stored,) = ledger.writer.append("run", [Judged(question_id="q1", scorer_id="s1", verdict="correct", model="j",
                                                    raw_hash=raw_hash)], blobs=[b"Final: Correct"])
    assert stored.event.request_digest == "" and ledger.cache.cache_get("k1", runs=("run",)) is None
    reply = {"text": "Final: Correct", "model": "j", "usage": {}}
    ledger.writer.append("run", [Judged(question_id="q2", scorer_id="s1", verdict="correct", model="j",
                                        raw_hash=raw_hash, request_digest="k1")],
                         cache=[CacheEntry(request_digest="k1", response=reply, model="j",
                                           idempotency_key="judge:scorer:s1:question:q2")])
    assert ledger.cache.cache_get("k1", runs=("run",)) == reply and ledger.reader.verify().ok


def test_views_are_saved_at_the_runs_position_with_the_append(ledger):
    ledger.writer.append("run-a", [failed("q1")], views=[("tally", 1, {"failed": 1})])
    ledger.writer.append("run-a", [failed("q2"), failed("q3")], views=[("tally", 1, {"failed": (3,)})])
    ledger.writer.append("run-b", [failed("q1")], views=[("tally", 2, [1])])
    assert ledger.reader.stored_views("run-a") == [("tally", 1, 3, {"failed": [3]})]
    assert ledger.reader.stored_views("run-b") == [("tally", 2, 1, [1])]


def test_a_failure_inside_the_transaction_rolls_back_events_blobs_and_views(ledger, tmp_path):
    conn = sqlite3.connect(tmp_path / "ledger.db")
    conn.execute("CREATE TRIGGER refuse_views BEFORE INSERT ON views "
                 "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
    conn.commit()
    with pytest.raises(ConcurrencyConflict, match="refused by the test"):
        ledger.writer.append("run-a", [failed("q1")], blobs=[b"x"], views=[("v", 1, 1)])
    assert ledger.reader.events("run-a") == [] and ledger.reader.stored_views("run-a") == []
    assert conn.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == 0


def test_runs_are_listed_newest_first_with_their_start_and_finish(ledger):
    with freeze_time("2025-01-01T00:00:00Z"):
        ledger.writer.append("01AAA", [started("LoCoMo"), failed("q1")])
    with freeze_time("2025-01-02T00:00:00Z"):
        ledger.writer.append("01BBB", [started(), RunFinished(status="aborted", reason="x")])
        # a finished run is sealed: its second finish comes inside the resume that opened it
        ledger.writer.append("01BBB", [RunResumed(attempt=2, fingerprint_on_disk="f", reprepared=False, pending_questions=0),
                                       RunFinished(status="completed", attempt=2)])
    ledger.writer.append("01CCC", [failed("q1")])
    assert ledger.reader.runs() == [
        RunSummary(run_id="01CCC", started_at=ledger.reader.events("01CCC")[0].recorded_at,
                   benchmark=None, subset=None, memory=None, events=1, finished=None),
        RunSummary(run_id="01BBB", started_at="2025-01-02T00:00:00.000000Z",
                   benchmark="GroupMemBench", subset="Finance", memory="sqlite", events=4,
                   finished="completed"),
        RunSummary(run_id="01AAA", started_at="2025-01-01T00:00:00.000000Z", benchmark="LoCoMo",
                   subset="Finance", memory="sqlite", events=2, finished=None),
    ]


def test_resolve_run_takes_full_ids_unique_prefixes_and_latest(ledger):
    with pytest.raises(RunNotFound, match="no runs yet"):
        ledger.reader.resolve_run("latest")
    ledger.writer.append("01ABC", [failed("q1")])
    ledger.writer.append("01ABD", [failed("q1")])
    ledger.writer.append("01AB", [failed("q1")])
    ledger.writer.append("01ABC", [failed("q2")])
    assert ledger.reader.resolve_run("01ABC") == "01ABC"
    assert ledger.reader.resolve_run("01ABD") == "01ABD"
    with pytest.raises(AmbiguousRun, match="'01AB' matches 3 runs \\(01AB, 01ABC, 01ABD\\)"):
        ledger.reader.resolve_run("01AB")  # an id that is a prefix of others is not a full ULID: no silent pick
    assert ledger.reader.resolve_run("latest") == "01AB"  # started last, though 01ABC wrote last
    assert ledger.reader.runs()[0].run_id == "01AB"
    with pytest.raises(AmbiguousRun, match="more characters"):
        ledger.reader.resolve_run("01A")
    with pytest.raises(RunNotFound, match="benchledger runs"):
        ledger.reader.resolve_run("01Z")
    with pytest.raises(RunNotFound):
        ledger.reader.resolve_run("%")
    with pytest.raises(RunNotFound, match="no run id given"):
        ledger.reader.resolve_run("")


def test_head_is_the_hash_of_the_runs_last_event(ledger):
    assert ledger.reader.head("run-a") is None
    ledger.writer.append("run-a", [failed("q1")])
    (last,) = ledger.writer.append("run-a", [failed("q2")])
    ledger.writer.append("run-b", [failed("q1")])
    assert ledger.reader.head("run-a") == last.hash


def test_iter_all_pages_through_every_event_in_seq_order(ledger, monkeypatch):
    monkeypatch.setattr("benchledger.ledger.reader._PAGE", 3)
    for index in range(7):
        ledger.writer.append("run-a" if index % 2 else "run-b", [failed(f"q{index}")])
    assert [e.seq for e in ledger.reader.iter_all()] == list(range(1, 8))
    assert [e.position for e in ledger.reader.iter_all("run-a")] == [1, 2, 3]


def test_an_old_schema_version_is_upcast_on_read_and_the_row_kept(ledger, tmp_path, monkeypatch):
    # v0 of Judged called the verdict "outcome"; the row stays v0 and still verifies.
    monkeypatch.setitem(mapper.UPCASTERS, ("Judged", 0), lambda p: {
        **{k: v for k, v in p.items() if k != "outcome"}, "verdict": p["outcome"]})
    payload = '{"type":"Judged","question_id":"q1","scorer_id":"s","outcome":"correct","model":"m"}'
    at = "2024-01-01T00:00:00.000000Z"
    row_hash = link_hash(GENESIS, "run-old", 1, "Judged", 0, at, "judge:s:q1", payload)
    conn = sqlite3.connect(tmp_path / "ledger.db")
    conn.execute("INSERT INTO events (run_id, position, type, schema_version, recorded_at, "
                 "idempotency_key, payload, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?)",
                 ("run-old", 1, "Judged", 0, at, "judge:s:q1", payload, GENESIS, row_hash))
    conn.commit()
    (stored,) = ledger.reader.events("run-old")
    assert stored.schema_version == 0 and isinstance(stored.event, Judged)
    assert stored.event.verdict == "correct"
    assert conn.execute("SELECT payload FROM events").fetchone()[0] == payload
    assert ledger.reader.verify().ok


def test_a_missing_upcaster_is_a_clear_error(ledger, tmp_path):
    conn = sqlite3.connect(tmp_path / "ledger.db")
    conn.execute("INSERT INTO events (run_id, position, type, schema_version, recorded_at, "
                 "payload, prev_hash, hash) VALUES ('r', 1, 'Judged', 0, 'a', '{}', 'p', 'h')")
    conn.commit()
    with pytest.raises(LedgerError, match="no upcaster registered for Judged schema_version 0"):
        ledger.reader.events("r")


def test_a_new_path_is_created_and_reopened(tmp_path):
    path = tmp_path / "fresh.db"
    with Ledger.open(path) as ledger:
        ledger.writer.append("run-a", [failed("q1")])
    with Ledger.open(path, create=False) as ledger:
        assert len(ledger.reader.events("run-a")) == 1
        assert ledger.path == path


@pytest.mark.parametrize("content", [b"", None])
def test_create_false_refuses_a_missing_or_empty_path(tmp_path, content):
    path = tmp_path / "none.db"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(NotALedger, match="no ledger at"):
        Ledger.open(path, create=False)
    assert (path.exists(), path.read_bytes() if path.exists() else None) == (
        content is not None, content)


def test_a_text_file_is_not_a_ledger_and_is_left_alone(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello, this is not a database\n")
    with pytest.raises(NotALedger, match="not a SQLite file"):
        Ledger.open(path)
    assert path.read_text() == "hello, this is not a database\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_another_sqlite_database_is_not_a_ledger_and_is_left_alone(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE events (id INTEGER)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(NotALedger, match=r"not a benchledger ledger \(application_id=0, tables: events\)"):
        Ledger.open(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_a_directory_is_not_a_ledger(tmp_path):
    with pytest.raises(NotALedger, match="is a directory"):
        Ledger.open(tmp_path)


def test_rows_built_on_the_fast_path_equal_validated_rows(ledger):
    (appended,) = ledger.writer.append("run-a", [started()])
    (read,) = ledger.reader.events("run-a")
    for row in (appended, read):
        validated = StoredEvent.model_validate(row.model_dump())
        assert row == validated
        assert row.model_fields_set == validated.model_fields_set
        assert row.model_dump_json() == validated.model_dump_json()
        with pytest.raises(ValueError):
            row.seq = 5


def test_reads_see_events_another_writer_appended_after_a_cached_read(ledger, tmp_path):
    ledger.writer.append("run-a", [failed("q1")])
    assert [e.position for e in ledger.reader.events("run-a")] == [1]  # now cached
    with Ledger.open(tmp_path / "ledger.db") as other:
        other.writer.append("run-a", [failed("q2")])
    ledger.writer.append("run-a", [failed("q3")])  # does not follow the cached position 1
    assert [e.event.question_id for e in ledger.reader.events("run-a")] == ["q1", "q2", "q3"]
    ledger.writer.append("run-a", [failed("q4")])  # follows the cache
    assert [e.position for e in ledger.reader.events("run-a", types=["Failed"])] == [1, 2, 3, 4]
    assert ledger.reader.events("run-a") == list(ledger.reader.iter_all("run-a"))


def test_returned_event_lists_are_the_callers_own(ledger):
    ledger.writer.append("run-a", [failed("q1")])
    ledger.reader.events("run-a").clear()
    assert len(ledger.reader.events("run-a")) == 1


def test_expected_position_refuses_an_append_after_another_writer(ledger):
    ledger.writer.append("run-a", [failed("q1")], expected_position=0)
    ledger.writer.append("run-a", [failed("q2")])
    with pytest.raises(ConcurrencyConflict, match="at position 2, not 1"):
        ledger.writer.append("run-a", [failed("q3")], views=[("v", 1, 1)], expected_position=1)
    assert len(ledger.reader.events("run-a")) == 2 and ledger.reader.stored_views("run-a") == []
    (row,) = ledger.writer.append("run-a", [failed("q3")], views=[("v", 1, 3)], expected_position=2)
    assert row.position == 3 and ledger.reader.stored_views("run-a") == [("v", 1, 3, 3)]

