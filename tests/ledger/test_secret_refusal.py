"""The store refuses to record a registered secret of 12 characters or more, wherever an append
carries it, and records a shorter value: at, below and above that length (issue 37 item 5).

A key a model or memory echoes can sit in an event's field, in a body, or in a cached response;
it may also stand inside JSON, where a quote, a backslash or a control character is escaped. Each
case is an append to a real ledger file with the key in a variable registered as a secret, and
what is checked is what the ledger then holds: nothing at all for a refused append (and the
message names the variable, never the value), the key's bytes for a recorded one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from benchledger.errors import LedgerError
from benchledger.ledger.cache import CacheEntry
from benchledger.ledger.events import Event, QuestionAnswered, RunFinished
from benchledger.ledger.store import Ledger
from benchledger.redaction import register_secret_env

RUN = "01HSECRETS0000000000000000"
VARIABLE = "BOUNDARY_TEST_KEY"
OTHER = "BOUNDARY_TEST_OTHER_KEY"
REFUSED_FROM = 12
"""The documented rule: a registered value of at least 12 characters is never recorded."""


def key_of(length: int) -> str:
    """A key of exactly `length` characters that no key pattern (sk-, Bearer, ...) would catch."""
    return ("horse-battery-staple-" * 4)[:length]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def carriers(key: str) -> dict[str, tuple[list[Event], list[bytes], list[CacheEntry]]]:
    """The three places an append carries text to: an event's field, a body, a cached response."""
    reply = "Final: Paris"  # the response's text is its event's body; its model name carries the key
    answer = QuestionAnswered(question_id="q1", answer="Paris", abstained=False, model="m",
                              raw_hash=_sha(reply), request_digest="a" * 64)
    return {
        "event": ([RunFinished(status="completed", reason=f"the endpoint said {key}")], [], []),
        "body": ([RunFinished(status="completed")], [f"raw output: {key}".encode()], []),
        "cached response": ([answer], [reply.encode()], [CacheEntry(
            request_digest="a" * 64, model="m", idempotency_key="answer:q1",
            response={"text": reply, "model": f"m answering as {key}", "usage": {}})]),
    }


def stored_bytes(path: Path) -> bytes:
    """Every byte of the ledger file and its write-ahead log (bodies are compressed: see `recorded`)."""
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


@pytest.fixture
def ledger_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    register_secret_env(VARIABLE)
    register_secret_env(OTHER)
    monkeypatch.delenv(OTHER, raising=False)
    return tmp_path / "ledger.db"


@pytest.mark.parametrize("where", ["event", "body", "cached response"])
@pytest.mark.parametrize("length", [REFUSED_FROM, REFUSED_FROM + 1, 40])
def test_a_key_at_or_above_the_length_is_refused_wherever_the_append_carries_it(
        ledger_path: Path, monkeypatch: pytest.MonkeyPatch, length: int, where: str) -> None:
    key = key_of(length)
    monkeypatch.setenv(VARIABLE, key)
    events, blobs, cache = carriers(key)[where]
    with Ledger.open(ledger_path) as ledger:
        with pytest.raises(LedgerError, match=rf"refused to record the value of \${VARIABLE}") as caught:
            ledger.writer.append(RUN, events, blobs=blobs, cache=cache)
        assert key not in str(caught.value)
        assert ledger.reader.runs() == [] and ledger.cache.cache_get("a" * 64, runs=(RUN,)) is None
    assert key.encode() not in stored_bytes(ledger_path)


@pytest.mark.parametrize("where", ["event", "body", "cached response"])
def test_a_value_one_character_short_of_the_length_is_recorded(ledger_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               where: str) -> None:
    key = key_of(REFUSED_FROM - 1)
    monkeypatch.setenv(VARIABLE, key)
    events, blobs, cache = carriers(key)[where]
    with Ledger.open(ledger_path) as ledger:
        written = ledger.writer.append(RUN, events, blobs=blobs, cache=cache)
        assert len(written) == 1 and ledger.reader.verify().ok
        recorded = [stored.event.model_dump_json() for stored in ledger.reader.events(RUN)]
        recorded += [ledger.reader.get_blob(_sha(body.decode())).decode() for body in blobs]
        served = ledger.cache.cache_get("a" * 64, runs=(RUN,))
        recorded += [served["model"]] if served else []
    assert any(key in text for text in recorded), "the short value is kept as it came"


@pytest.mark.parametrize("key", ['quote"and\\backslash-9', "tab\tand\nnewline-key-9", "clé-non-ascii-0042"])
def test_a_key_is_refused_where_json_escapes_it(ledger_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                key: str) -> None:
    monkeypatch.setenv(VARIABLE, key)
    with Ledger.open(ledger_path) as ledger:
        for events, blobs, cache in carriers(key).values():
            with pytest.raises(LedgerError, match="refused to record"):
                ledger.writer.append(RUN, events, blobs=blobs, cache=cache)
        assert ledger.reader.runs() == []


def test_the_refusal_follows_the_variables_current_values(ledger_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = key_of(REFUSED_FROM), key_of(30)
    monkeypatch.setenv(VARIABLE, first)
    with Ledger.open(ledger_path) as ledger:
        with pytest.raises(LedgerError):
            ledger.writer.append(RUN, [RunFinished(status="completed", reason=first)])
        monkeypatch.setenv(VARIABLE, second)
        monkeypatch.setenv(OTHER, key_of(20).upper())
        with pytest.raises(LedgerError, match=rf"the value of \${OTHER}"):  # the variable that holds it is named
            ledger.writer.append(RUN, [RunFinished(status="completed", reason=key_of(20).upper())])
        ledger.writer.append(RUN, [RunFinished(status="completed", reason=f"once {first}")])  # no longer a secret
        assert len(ledger.reader.events(RUN)) == 1
