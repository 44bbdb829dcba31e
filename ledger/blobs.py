"""Content-addressed blobs: the SHA-256 of the raw bytes names a stored body.

Large bodies (packed contexts, raw model outputs) live here and events hold the digest. Writing
is insert-if-absent (`ON CONFLICT DO NOTHING`; in SQLite the schema's guard trigger skips a
digest already stored first), so the same context recorded twice costs one row, and a stored
body can never be replaced.

How a body is stored is the backend's `blob_encoding`: a SQLite file compresses it (`zlib`); a
PostgreSQL ledger stores the raw bytes (`identity`, compressed by the server's own TOAST), so
the server itself can re-hash every body at insert (a CHECK constraint, `pg_schema`) and no
writer can put a wrong body under a digest before the run that names it.

Nothing read is trusted: every read is checked against its digest, and inflating a body is
bounded by the size recorded with it (`zlib.decompressobj` with `max_length`), in chunks, so a
small row that inflates to gigabytes (a zlib bomb) is one line at constant memory, never a
MemoryError. A recorded size beyond `MAX_BODY_BYTES` is refused before anything is inflated.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator, Sequence
from hashlib import sha256
from typing import Any, NamedTuple

from benchledger.errors import BadInput, LedgerError
from benchledger.ledger.backend import LedgerConnection, select_in

__all__ = ["INSERT_SQL", "EMPTY_DIGEST", "MAX_BODY_BYTES", "BlobRow", "digest_of", "encode", "insert",
           "fetch", "check", "check_digests", "unpack", "BadBlob"]

_LEVEL = 6
_CHUNK = 1 << 16
MAX_BODY_BYTES = 256 << 20
"""The largest body a ledger stores (256 MiB); a recorded size beyond it is refused on read."""
INSERT_SQL = ("INSERT INTO blobs (digest, size, encoding, body) VALUES (?, ?, ?, ?) "
              "ON CONFLICT (digest) DO NOTHING")
EMPTY_DIGEST = sha256(b"").hexdigest()
"""The empty body needs no row: its digest always names b"" (a run does not store empty outputs)."""


class BadBlob(LedgerError):
    """A stored body that does not check: unreadable, larger than recorded, or not its digest."""


class BlobRow(NamedTuple):
    """A body ready to insert: its digest, raw size, raw bytes and zlib-compressed bytes (b"" when
    it was encoded for a ledger that stores bodies raw)."""

    digest: str
    size: int
    raw: bytes
    compressed: bytes


def digest_of(data: bytes | str) -> tuple[str, bytes]:
    """(sha256 hex, raw bytes) of a body; text is stored as UTF-8."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return sha256(raw).hexdigest(), raw


def encode(data: bytes | str, *, compress: bool = True) -> BlobRow:
    """A body ready for `insert` (compressed here, before any lock is taken, for a ledger that
    stores bodies compressed; `compress=False` for one that stores them raw)."""
    digest, raw = digest_of(data)
    if len(raw) > MAX_BODY_BYTES:
        raise BadInput(f"a body of {len(raw)} bytes is larger than a ledger stores ({MAX_BODY_BYTES} bytes)",
                       field="blob")
    return BlobRow(digest, len(raw), raw, zlib.compress(raw, _LEVEL) if compress else b"")


def insert(conn: LedgerConnection, rows: Iterable[BlobRow]) -> None:
    """Insert the bodies absent from the ledger, in the connection's own encoding."""
    if conn.blob_encoding == "identity":
        params = [(row.digest, row.size, "identity", row.raw) for row in rows]
    else:
        params = [(row.digest, row.size, "zlib", row.compressed or zlib.compress(row.raw, _LEVEL)) for row in rows]
    if params:
        conn.executemany(INSERT_SQL, params)


def _chunks(digest: str, size: int, encoding: str, body: bytes) -> Iterator[bytes]:
    """The raw bytes of a stored body in chunks, never more than `size` of them; BadBlob else."""
    if size < 0 or size > MAX_BODY_BYTES:
        raise BadBlob(f"blob {digest} records a size of {size} bytes, outside what a ledger stores "
                      f"(0..{MAX_BODY_BYTES}): it is not a body benchledger wrote")
    if encoding == "identity":
        if len(body) != size:
            raise BadBlob(f"blob {digest} does not hash to its digest: it holds {len(body)} bytes, not the "
                          f"{size} recorded with it")
        yield body
        return
    if encoding != "zlib":
        raise BadBlob(f"blob {digest} has unknown encoding {encoding!r}; upgrade benchledger")
    inflater = zlib.decompressobj()
    produced, pending = 0, body
    try:
        while not inflater.eof:
            # max_length bounds every step, so memory stays at one chunk whatever the body inflates to
            chunk = inflater.decompress(pending, min(_CHUNK, size - produced + 1))
            stuck = not chunk and len(inflater.unconsumed_tail) == len(pending)
            pending = inflater.unconsumed_tail
            produced += len(chunk)
            if produced > size:
                raise BadBlob(f"blob {digest} does not hash to its digest: it inflates beyond the {size} bytes "
                              "recorded with it (a changed body, or a decompression bomb), and was not read")
            if stuck:
                break  # no input left to take and no output: the stream is cut short
            yield chunk
    except zlib.error as exc:
        raise BadBlob(f"blob {digest} cannot be read: {exc}") from None
    if not inflater.eof:
        raise BadBlob(f"blob {digest} cannot be read: its compressed body is cut short or damaged")
    if produced != size:
        raise BadBlob(f"blob {digest} does not hash to its digest: it inflates to {produced} bytes, not the "
                      f"{size} recorded with it")


def unpack(digest: str, size: int, encoding: str, body: bytes) -> bytes:
    """The raw bytes of a stored row, checked against its size and digest; BadBlob otherwise."""
    raw = b"".join(_chunks(digest, int(size), str(encoding), bytes(body)))
    if sha256(raw).hexdigest() != digest:
        raise BadBlob(f"blob {digest} does not hash to its digest (its body was changed)")
    return raw


def _problem(digest: str, size: Any, encoding: Any, body: Any) -> str | None:
    """Re-hash one stored row as it inflates (constant memory); what is wrong, or None."""
    hasher = sha256()
    try:
        for chunk in _chunks(digest, int(size), str(encoding), bytes(body)):
            hasher.update(chunk)
    except BadBlob as exc:
        return str(exc)
    if hasher.hexdigest() != digest:
        return f"blob {digest} does not hash to its digest (its body was changed)"
    return None


def fetch(conn: LedgerConnection, digest: str) -> bytes:
    """The raw bytes of a stored blob, checked against its digest; LedgerError naming it otherwise."""
    row = conn.execute("SELECT size, encoding, body FROM blobs WHERE digest = ?", (digest,)).fetchone()
    if row is None:
        if digest == EMPTY_DIGEST:
            return b""
        raise LedgerError(f"no blob {digest} in this ledger")
    return unpack(digest, *row)


def check(conn: LedgerConnection) -> str | None:
    """Re-hash every stored blob; a description of the first that does not check, or None."""
    for digest, size, encoding, body in conn.execute(
            "SELECT digest, size, encoding, body FROM blobs ORDER BY digest"):
        problem = _problem(str(digest), size, encoding, body)
        if problem:
            return problem
    return None


def check_digests(conn: LedgerConnection, digests: Sequence[str]) -> str | None:
    """Re-hash the stored blobs among `digests` (a run's); the first that does not check, or None."""
    wanted = sorted(set(digests) - {EMPTY_DIGEST, ""})
    for digest, size, encoding, body in select_in(
            conn, "SELECT digest, size, encoding, body FROM blobs WHERE digest IN ({marks}) ORDER BY digest",
            wanted):
        problem = _problem(str(digest), size, encoding, body)
        if problem:
            return problem
    return None
