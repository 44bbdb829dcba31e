"""The SHA-256 hash chain over the exact stored bytes of every event row, in two versions.

Each row's hash is `sha256(prev_hash + canonical bytes of its columns)`. The canonical bytes
frame every column as a netstring (`<byte length>:<bytes>,`), and a NULL as `~`, so no choice
of field contents can make two different rows encode alike. The payload enters exactly as
stored (the event's JSON text), so changing one byte of it breaks the chain. What `prev_hash`
names is the row's chain version (the `chain` column, m003):

- version 1 (`CHAIN_LEDGER`, every row written before m003): the previous row in the ledger's
  global `seq` order (usually another run's), the first row linking to `GENESIS` (64 zeros);
- version 2 (`CHAIN_RUN`): the previous row *of its run*, the run's first row linking to
  `GENESIS`. A run's hashes are then a property of the run: copied alone into another ledger
  (`ledger.transfer`), its rows keep their bytes and their hashes and still verify there.

A version-2 row also carries `link = sha256(previous row's ledger value + its hash)` over the
ledger's `seq` order (`ledger_link`), where a row's ledger value is its `link` (version 2) or
its `hash` (version 1, whose hash already chains over `seq`). So deleting, inserting or
reordering rows, or a whole run, still breaks a chain over the whole ledger, and the last
row's ledger value is the ledger's head. The link is local to one ledger; the hash travels.
"""

from __future__ import annotations

from collections.abc import Callable
from hashlib import sha256

__all__ = ["GENESIS", "CHAIN_LEDGER", "CHAIN_RUN", "canonical_bytes", "link_hash", "batch_linker",
           "ledger_link", "ledger_value"]

GENESIS = "0" * 64
CHAIN_LEDGER = 1
"""Chain version 1: `prev_hash` is the hash of the previous row in the ledger's `seq` order."""
CHAIN_RUN = 2
"""Chain version 2: `prev_hash` is the hash of the previous row of the same run; plus `link`."""

_NULL = b"~"


def canonical_bytes(run_id: str, position: int, type: str, schema_version: int,
                    recorded_at: str, idempotency_key: str | None, payload: str | bytes) -> bytes:
    """The bytes of one row that the chain covers, each column framed, in a fixed order.

    `payload` may be given as its UTF-8 bytes already (the append path has them).
    """
    # One formatting call rather than a helper per column: this runs for every appended event.
    run, kind, at = run_id.encode(), type.encode(), recorded_at.encode()
    body = payload if isinstance(payload, bytes) else payload.encode()
    pos, version = b"%d" % position, b"%d" % schema_version
    if idempotency_key is None:
        key = _NULL
    else:
        raw_key = idempotency_key.encode()
        key = b"%d:%b," % (len(raw_key), raw_key)
    return b"%d:%b,%d:%b,%d:%b,%d:%b,%d:%b,%b%d:%b," % (
        len(run), run, len(pos), pos, len(kind), kind, len(version), version, len(at), at,
        key, len(body), body)


def link_hash(prev_hash: str, run_id: str, position: int, type: str, schema_version: int,
              recorded_at: str, idempotency_key: str | None, payload: str | bytes) -> str:
    """The hash of a row whose predecessor in the chain has `prev_hash`."""
    digest = sha256(prev_hash.encode("ascii"))
    digest.update(canonical_bytes(run_id, position, type, schema_version, recorded_at,
                                  idempotency_key, payload))
    return digest.hexdigest()


def batch_linker(run_id: str, recorded_at: str) -> Callable[..., str]:
    """`link_hash` for rows of one append (same run and time), with their frames built once.

    The returned `link(prev_hash, position, type, schema_version, idempotency_key, payload_bytes)`
    gives exactly `link_hash(prev_hash, run_id, position, type, schema_version, recorded_at,
    idempotency_key, payload_bytes)`; it exists because this runs for every appended event.
    """
    run, at = run_id.encode(), recorded_at.encode()
    run_frame, at_frame = b"%d:%b," % (len(run), run), b"%d:%b," % (len(at), at)

    def link(prev_hash: str, position: int, type: str, schema_version: int,
             idempotency_key: str | None, payload: bytes) -> str:
        kind, pos, version = type.encode(), b"%d" % position, b"%d" % schema_version
        if idempotency_key is None:
            key = _NULL
        else:
            raw_key = idempotency_key.encode()
            key = b"%d:%b," % (len(raw_key), raw_key)
        return sha256(b"%b%b%d:%b,%d:%b,%d:%b,%b%b%d:%b," % (
            prev_hash.encode(), run_frame, len(pos), pos, len(kind), kind, len(version), version,
            at_frame, key, len(payload), payload)).hexdigest()

    return link


def ledger_link(prev_value: str, hash_: str) -> str:
    """The `link` of a version-2 row: its hash chained to the ledger value of the row before it."""
    return sha256((prev_value + hash_).encode("ascii")).hexdigest()


def ledger_value(chain: int, hash_: str, link: str | None) -> str:
    """What the next row's `link` chains to: a version-2 row's link, a version-1 row's hash."""
    return link if chain == CHAIN_RUN and link is not None else hash_
