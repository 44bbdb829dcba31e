"""The one contract every ledger backend must pass, written against `ledger.recorder` only.

Subclass `LedgerContract` in a test module and provide a `store_factory` fixture: a callable
`(name: str) -> Recorder` that opens the store called `name` (the same name opens the same
store again, as a second handle; a new name a new, empty store), and a `change_blob` fixture:
`(name, digest, body)` replaces a stored body behind the store's guards, as someone holding the
database could, leaving its schema as it was. The returned object must also
be a context manager that closes it. `tests/ledger/test_ledger_contract.py` runs the contract on
SQLite files; a PostgreSQL backend runs it with a factory over a fresh schema.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from benchledger import clock
from benchledger.errors import (BadInput, ConcurrencyConflict, LedgerError, RunBusy, RunNotFound, RunSealed,
                                VerificationFailed)
from benchledger.ledger.chain import GENESIS, batch_linker, ledger_link, link_hash
from benchledger.ledger.events import (
    Event, Failed, Judged, QuestionAnswered, RunFinished, RunResumed, ScopePurged, ScorerStarted,
)
from benchledger.ledger.recorder import CacheEntry, EventReader, EventWriter, Recorder, ResponseCacheStore
from benchledger.ledger.tails import INSERT_EVENT, ledger_tail, run_tail

__all__ = ["LedgerContract", "StoreFactory", "answered", "reply_entry", "forge"]

StoreFactory = Callable[[str], Any]


def failed(qid: str, attempt: int = 1) -> Failed:
    return Failed(stage="answer", question_id=qid, error_class="Timeout", message="slow", attempt=attempt)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def answered(qid: str, reply: str, request: str) -> QuestionAnswered:
    """The answer event a run records for a model reply to `request`."""
    return QuestionAnswered(question_id=qid, answer=reply, abstained=False, model="m",
                            raw_hash=_sha(reply), request_digest=request)


def reply_entry(qid: str, reply: str, request: str, key: str | None = None) -> CacheEntry:
    """A cached reply vouched for by the event keyed `key` (default: the answer to `qid`)."""
    return CacheEntry(request_digest=request, response={"text": reply, "model": "m", "usage": {}},
                      model="m", idempotency_key=key or f"answer:{qid}")


def verdict(qid: str, value: str = "incorrect", scorer: str = "s1") -> Judged:
    return Judged(question_id=qid, scorer_id=scorer, verdict=value, model="j")  # type: ignore[arg-type]


def forge(store: Any, run_id: str, event: Event, key: str | None, version: int | None = None) -> int:
    """Insert one row as a writer holding the ledger's SQL rights could, bypassing `append`: the
    event's payload under `key`, chained and linked exactly as the store would, under its class's
    schema version or `version` (as an older benchledger wrote it). Its seq."""
    payload = event.model_dump_json()
    version = type(event).schema_version if version is None else version

    def insert(conn: Any) -> int:
        position, prev_hash = run_tail(conn, run_id)
        seq, value = ledger_tail(conn)
        at = clock.now_iso()
        hash_ = batch_linker(run_id, at)(prev_hash, position + 1, event.type, version, key, payload.encode())
        conn.execute(INSERT_EVENT, (seq + 1, run_id, position + 1, event.type, version, at,
                                    key, payload, prev_hash, hash_, ledger_link(value, hash_)))
        return int(seq + 1)

    return int(store._sql_writer.in_write_transaction("forge a row in", insert))


class LedgerContract:
    """Behaviour every `Recorder` shares; see the module docstring."""

    @pytest.fixture
    def store(self, store_factory: StoreFactory) -> Any:
        with store_factory("main") as opened:
            yield opened

    def test_it_implements_the_recorder_protocol(self, store: Recorder) -> None:
        assert isinstance(store, Recorder)

    def test_it_hands_out_its_sides_apart(self, store: Recorder) -> None:
        """The reading side has no way to write, the writing side no way to read; the store itself
        re-merges neither (a caller takes the side it needs)."""
        reader, writer, cache = store.reader, store.writer, store.cache
        assert isinstance(reader, EventReader) and isinstance(cache, ResponseCacheStore)
        assert isinstance(writer, EventWriter) and not isinstance(writer, EventReader)
        assert not any(hasattr(reader, name) for name in ("append", "put_blob", "run_writer", "copy_in"))
        assert not any(hasattr(store, name) for name in ("append", "events", "verify", "cache_get", "get_blob"))
        written = writer.append("run", [failed("q1")])
        assert [e.hash for e in reader.events("run")] == [e.hash for e in written]

    def test_append_continues_positions_and_chains_each_run(self, store: Recorder) -> None:
        first = store.writer.append("run-a", [failed("q1"), failed("q2")])
        second = store.writer.append("run-b", [failed("q1")])
        third = store.writer.append("run-a", [failed("q3")])
        rows = [*first, *second, *third]
        assert [(r.run_id, r.position) for r in rows] == [("run-a", 1), ("run-a", 2), ("run-b", 1), ("run-a", 3)]
        assert [r.seq for r in rows] == [1, 2, 3, 4]
        run_a = [*first, *third]
        assert run_a[0].prev_hash == second[0].prev_hash == GENESIS
        assert all(later.prev_hash == earlier.hash for earlier, later in zip(run_a, run_a[1:]))
        assert all(r.hash == link_hash(r.prev_hash, r.run_id, r.position, r.type, r.schema_version,
                                       r.recorded_at, r.idempotency_key, r.event.model_dump_json())
                   for r in rows)
        value = GENESIS  # the ledger's head chains every row's hash in seq order
        for row in rows:
            value = ledger_link(value, row.hash)
        assert store.reader.head() == store.reader.verify().head == value
        assert store.reader.events("run-a") == run_a
        assert [e.seq for e in store.reader.iter_all()] == [1, 2, 3, 4]
        assert [e.seq for e in store.reader.iter_all("run-b")] == [3]

    def test_recorded_idempotency_keys_are_skipped(self, store: Recorder) -> None:
        store.writer.append("run", [failed("q1"), failed("q1")])
        assert store.writer.append("run", [failed("q1"), failed("q2")])[0].position == 2
        assert store.reader.recorded_keys("run") == {"failed:question:q1:answer:1", "failed:question:q2:answer:1"}

    def test_an_append_behind_expected_position_writes_nothing(self, store: Recorder) -> None:
        store.writer.append("run", [failed("q1")])
        with pytest.raises(ConcurrencyConflict):
            store.writer.append("run", [failed("q2")], expected_position=0)
        assert [e.position for e in store.reader.events("run")] == [1]

    def test_blobs_views_and_heads(self, store: Recorder) -> None:
        digest = store.writer.put_blob("packed context")
        assert store.reader.get_blob(digest) == b"packed context"
        with pytest.raises(LedgerError, match="no blob"):
            store.reader.get_blob("0" * 64)
        store.writer.append("run", [failed("q1")], views=[("tally", 1, {"n": 1})])
        (last,) = store.writer.append("run", [failed("q2")], views=[("tally", 1, {"n": 2})])
        assert store.reader.stored_views("run") == [("tally", 1, 2, {"n": 2})]
        assert store.reader.head("run") == last.hash == store.reader.verify("run").head
        assert store.reader.head() == ledger_link(ledger_link(GENESIS, store.reader.events("run")[0].hash), last.hash)
        assert store.reader.head("nothing") is None
        assert store.reader.resolve_run("ru") == store.reader.resolve_run("latest") == "run"
        with pytest.raises(RunNotFound):
            store.reader.resolve_run("zzz")

    def test_verified_reads_and_verify_agree_on_a_clean_store(self, store: Recorder) -> None:
        store.writer.append("run", [failed("q1"), answered("q2", "Final: yes", "r" * 64)], blobs=[b"Final: yes"])
        assert store.reader.verified_events("run") == store.reader.events("run")
        result = store.reader.verify()
        assert result.ok and result.checked == 2 and result.head == store.reader.head()
        assert store.reader.verify("run", expect_head=store.reader.head("run")).ok
        assert store.reader.verify(expect_head=store.reader.head()).ok and store.reader.verify(expect_head=store.reader.head("run")).ok
        assert not store.reader.verify(expect_head="f" * 64).ok
        assert not store.reader.verify("run", expect_head=store.reader.head()).ok  # a run is pinned by its own hashes
        with pytest.raises(VerificationFailed, match="no event with hash"):
            store.reader.verified_events("run", expect_head="f" * 64)

    def test_a_missing_blob_fails_verified_reads(self, store: Recorder) -> None:
        store.writer.append("run", [answered("q1", "never stored", "r" * 64)])
        with pytest.raises(VerificationFailed, match="names blob") as caught:
            store.reader.verified_events("run")
        assert caught.value.first_bad_seq == 1
        assert store.reader.verify().first_bad_seq == 1

    def test_the_run_writer_lock_is_exclusive_across_handles(self, store: Recorder,
                                                              store_factory: StoreFactory) -> None:
        with store_factory("main") as other:
            with store.writer.run_writer("run"):
                with pytest.raises(RunBusy):
                    with other.writer.run_writer("run"):
                        pass
                with other.writer.run_writer("another run"):
                    pass
            with other.writer.run_writer("run"):  # released with the block
                pass

    # -- the guarded response cache -------------------------------------------------------

    def test_a_response_is_served_once_its_event_recorded_it(self, store: Recorder,
                                                           store_factory: StoreFactory) -> None:
        request = "a" * 64
        assert store.cache.cache_get(request, runs=("run",)) is None
        store.writer.append("run", [answered("q1", "Final: Paris", request)], blobs=[b"Final: Paris"],
                            cache=[reply_entry("q1", "Final: Paris", request)])
        with store_factory("main") as later:
            assert later.cache.cache_get(request, runs=("run",)) == {"text": "Final: Paris", "model": "m", "usage": {}}
        assert store.reader.verify().ok

    def test_the_first_recording_wins_and_skipped_events_record_nothing(self, store: Recorder) -> None:
        first, second = "a" * 64, "b" * 64
        store.writer.append("run", [answered("q1", "one", first)], cache=[reply_entry("q1", "one", first)])
        store.writer.append("run2", [answered("q1", "two", first)], cache=[reply_entry("q1", "two", first)])
        # q1 of run is already recorded: its new event and its entry are skipped together
        store.writer.append("run", [answered("q1", "three", second)], cache=[reply_entry("q1", "three", second)])
        assert store.cache.cache_get(first, runs=("run",))["text"] == "one"
        assert store.cache.cache_get(second, runs=("run",)) is None

    def test_a_response_is_served_only_to_the_runs_named(self, store: Recorder) -> None:
        request = "a" * 64  # another run asking the same request is never handed this run's reply
        store.writer.append("run", [answered("q1", "Final: Paris", request)], cache=[reply_entry("q1", "Final: Paris", request)])
        assert store.cache.cache_get(request, runs=("other",)) is None
        assert store.cache.cache_get(request, runs=()) is None
        assert store.cache.cache_get(request, runs=("other", "run"))["text"] == "Final: Paris"

    def test_an_entry_no_event_of_the_append_vouches_for_is_refused(self, store: Recorder) -> None:
        request = "a" * 64
        with pytest.raises(LedgerError, match="does not record"):
            store.writer.append("run", [failed("q1")], cache=[reply_entry("q9", "x", request)])
        with pytest.raises(LedgerError, match="names request"):
            store.writer.append("run", [answered("q1", "x", "b" * 64)], cache=[reply_entry("q1", "x", request)])
        with pytest.raises(LedgerError, match="raw_hash"):
            store.writer.append("run", [answered("q1", "x", request)], cache=[reply_entry("q1", "y", request)])
        assert store.reader.events("run") == [] and store.cache.cache_get(request, runs=("run",)) is None

    def test_a_judge_reply_is_cached_with_its_verdict(self, store: Recorder) -> None:
        request = "c" * 64
        verdict = Judged(question_id="q1", scorer_id="s1", verdict="correct", model="j",
                         raw_hash=_sha("Final: Correct"), request_digest=request)
        store.writer.append("run", [verdict], cache=[reply_entry("q1", "Final: Correct", request, key=verdict.idempotency_key())])
        assert store.cache.cache_get(request, runs=("run",))["text"] == "Final: Correct"


    # -- the store's rules: keys are derived, one key is one row ------------------------------

    def test_an_event_subclass_can_neither_suppress_nor_choose_its_key(self, store: Recorder) -> None:
        class Rescored(Judged):  # finding 1 of issue 19: a second verdict under the same scorer
            def idempotency_key(self) -> str | None:  # type: ignore[override]
                return None

        store.writer.append("run", [verdict("q1", "incorrect")])
        with pytest.raises(BadInput, match="Rescored is not an event type the ledger records"):
            store.writer.append("run", [Rescored(question_id="q1", scorer_id="s1", verdict="correct", model="j")])
        assert store.writer.append("run", [verdict("q1", "correct")]) == []  # the registered class: skipped by key
        (only,) = store.reader.verified_events("run")
        assert only.idempotency_key == "judge:scorer:s1:question:q1" and only.event.verdict == "incorrect"

    def test_an_event_that_would_not_read_back_is_refused(self, store: Recorder) -> None:
        junk = Judged.model_construct(question_id="q1", scorer_id="s1", verdict="perfect", model="j")
        with pytest.raises(BadInput, match="does not read back"):
            store.writer.append("run", [junk])
        assert store.reader.events("run") == []

    @pytest.mark.parametrize("key", [None, "judge:scorer:s1:question:q1:again", "answer:q9"])
    def test_a_row_under_a_key_its_payload_does_not_derive_is_tampering(self, store: Recorder,
                                                                         key: str | None) -> None:
        store.writer.append("run", [verdict("q1", "incorrect"), failed("q2")])
        seq = forge(store, "run", verdict("q1", "correct"), key)
        result = store.reader.verify()
        assert (result.ok, result.first_bad_seq) == (False, seq)
        assert "judge:scorer:s1:question:q1" in result.problem and "not written by the store" in result.problem
        assert store.reader.verify("run").first_bad_seq == seq
        with pytest.raises(VerificationFailed, match=f"at seq {seq}"):
            store.reader.verified_events("run")

    def test_a_second_row_under_a_recorded_key_is_refused_by_the_database(self, store: Recorder) -> None:
        store.writer.append("run", [verdict("q1", "incorrect")])
        with pytest.raises(ConcurrencyConflict):
            forge(store, "run", verdict("q1", "correct"), "judge:scorer:s1:question:q1")
        assert store.reader.verify().ok and [e.event.verdict for e in store.reader.verified_events("run")] == ["incorrect"]

    def test_a_row_with_the_right_key_verifies(self, store: Recorder) -> None:
        store.writer.append("run", [verdict("q1")])
        forge(store, "run", verdict("q2"), "judge:scorer:s1:question:q2")
        assert store.reader.verify().ok and len(store.reader.verified_events("run")) == 2

    # -- run ids and blobs (issue 19 items 5 and 6) -------------------------------------------

    @pytest.mark.parametrize("run_id", ["01J\x1b]0;pwned\x07", "a run", "x" * 65, "", "run/../b"])
    def test_a_run_id_that_is_not_a_token_is_refused_at_append(self, store: Recorder, run_id: str) -> None:
        from benchledger.errors import BadInput

        with pytest.raises(BadInput, match="run id .* is refused") as caught:
            store.writer.append(run_id, [failed("q1")])
        assert "\x1b" not in str(caught.value)
        assert store.reader.runs() == []
        store.writer.append("01JTOKEN0000000000000000RV", [failed("q1")])  # a ULID, and any plain token, goes in
        store.writer.append("run-a.1:b_c", [failed("q1")])
        assert len(store.reader.runs()) == 2

    def test_a_prefix_never_silently_picks_one_of_several_runs(self, store: Recorder) -> None:
        from benchledger.errors import AmbiguousRun

        real = "01JREAL0000000000000000RVN"
        store.writer.append(real, [failed("q1")])
        store.writer.append(real[:12], [failed("q1")])  # a forgery named by a prefix of the real id
        with pytest.raises(AmbiguousRun, match=f"matches 2 runs \\({real[:12]}, {real}\\)"):
            store.reader.resolve_run(real[:12])
        assert store.reader.resolve_run(real) == real  # a full ULID names one run
        assert store.reader.resolve_run(real[:13]) == real

    def test_a_run_scoped_verify_re_hashes_the_bodies_it_names(self, store: Recorder,
                                                              change_blob: Callable[[str, str, bytes], None]) -> None:
        body, digest = b"Final: Paris", _sha("Final: Paris")
        store.writer.append("run", [answered("q1", body.decode(), "r" * 64)], blobs=[body])
        store.writer.append("other", [answered("q1", "Final: Rome", "s" * 64)], blobs=[b"Final: Rome"])
        assert store.reader.verify("run").ok and store.reader.verify("other").ok
        change_blob("main", digest, b"Final: Lyon!")  # same length: only the hash tells
        result = store.reader.verify("run")
        assert not result.ok and f"blob {digest} does not hash to its digest" in result.problem
        assert store.reader.verify("other").ok  # a run that names other bodies is not held up
        with pytest.raises(LedgerError, match="does not hash to its digest"):
            store.reader.get_blob(digest)

    # -- a finished run is sealed ---------------------------------------------------------------

    def test_a_finished_run_refuses_what_joins_no_segment(self, store: Recorder) -> None:
        store.writer.append("run", [answered("q1", "a", "r" * 64), verdict("q1"), RunFinished(status="completed")],
                            blobs=[b"a"])
        before = store.reader.events("run")
        for late in ([answered("q2", "b", "s" * 64)], [verdict("q2", "correct")],
                     [RunFinished(status="aborted", reason="x", attempt=2)], [failed("q1", attempt=2)]):
            with pytest.raises(RunSealed, match="joins no segment"):
                store.writer.append("run", late)
        with pytest.raises(RunSealed):  # a batch is refused whole
            store.writer.append("run", [Failed(stage="purge", scope_key="default", error_class="E", message="m"),
                                        verdict("q3")])
        assert store.reader.events("run") == before and store.reader.verify().ok

    def test_a_segment_opened_by_its_own_event_takes_its_own_events_only(self, store: Recorder) -> None:
        store.writer.append("run", [answered("q1", "a", "r" * 64), verdict("q1"), RunFinished(status="completed")],
                            blobs=[b"a"])
        store.writer.append("run", [ScopePurged(scope_key="default", scope="s", documents_removed=3)])  # housekeeping
        store.writer.append("run", [ScorerStarted(scorer_id="s2", judge_model="j2", protocol="typed"),
                                    verdict("q1", "correct", scorer="s2")])
        with pytest.raises(RunSealed, match="inside the segment of scorer s2"):
            store.writer.append("run", [verdict("q2", "correct", scorer="s1")])
        store.writer.append("run", [RunResumed(attempt=2, fingerprint_on_disk="f", reprepared=False, pending_questions=1),
                                    answered("q2", "b", "s" * 64), verdict("q2"), RunFinished(status="completed", attempt=2)],
                            blobs=[b"b"])
        with pytest.raises(RunSealed, match="after it finished"):
            store.writer.append("run", [answered("q3", "c", "t" * 64)])
        assert store.reader.verify().ok and len(store.reader.verified_events("run")) == 10

    def test_a_row_forged_after_the_finish_is_named_by_verify(self, store: Recorder) -> None:
        store.writer.append("run", [answered("q1", "a", "r" * 64), verdict("q1"), RunFinished(status="completed")],
                            blobs=[b"a"])
        head = store.reader.head("run")
        seq = forge(store, "run", verdict("q2", "correct"), "judge:scorer:s1:question:q2")  # the key it derives: only the seal names it
        result = store.reader.verify()
        assert (result.ok, result.first_bad_seq) == (False, seq) and "after it finished" in result.problem
        assert store.reader.verify("run").first_bad_seq == seq
        with pytest.raises(VerificationFailed, match=f"at seq {seq}"):
            store.reader.verified_events("run")
        assert store.reader.verify("run", expect_head=head).first_bad_seq == seq
