"""Content-addressed blobs: the SHA-256 of the raw bytes names a zlib-compressed body.

Large bodies (packed contexts, raw model outputs) live here and events hold the digest. Writing
is insert-if-absent (`ON CONFLICT DO NOTHING`; in SQLite the schema's guard trigger skips a
digest already stored first), so the same
context recorded twice costs one row, and a stored body can never be replaced. Every read is
checked against its digest, so a body changed behind the guards is never handed out.
"""

from __future__ import annotations

import zlib
from hashlib import sha256

from benchledger.errors import LedgerError
from benchledger.ledger.backend import LedgerConnection

__all__ = ["INSERT_SQL", "EMPTY_DIGEST", "digest_of", "encode", "fetch", "check"]

_LEVEL = 6
INSERT_SQL = ("INSERT INTO blobs (digest, size, encoding, body) VALUES (?, ?, 'zlib', ?) "
              "ON CONFLICT (digest) DO NOTHING")
EMPTY_DIGEST = sha256(b"").hexdigest()
"""The empty body needs no row: its digest always names b"" (a run does not store empty outputs)."""


def digest_of(data: bytes | str) -> tuple[str, bytes]:
    """(sha256 hex, raw bytes) of a body; text is stored as UTF-8."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return sha256(raw).hexdigest(), raw


def encode(data: bytes | str) -> tuple[str, int, bytes]:
    """(digest, raw size, compressed body): the parameters of `INSERT_SQL`."""
    digest, raw = digest_of(data)
    return digest, len(raw), zlib.compress(raw, _LEVEL)


def _decode(digest: str, encoding: str, body: bytes) -> bytes:
    if encoding != "zlib":
        raise LedgerError(f"blob {digest} has unknown encoding {encoding!r}; upgrade benchledger")
    return zlib.decompress(body)


def fetch(conn: LedgerConnection, digest: str) -> bytes:
    """The raw bytes of a stored blob, checked against its digest; LedgerError naming it otherwise."""
    row = conn.execute("SELECT encoding, body FROM blobs WHERE digest = ?", (digest,)).fetchone()
    if row is None:
        if digest == EMPTY_DIGEST:
            return b""
        raise LedgerError(f"no blob {digest} in this ledger")
    try:
        raw = _decode(digest, *row)
    except zlib.error as exc:
        raise LedgerError(f"blob {digest} cannot be read: {exc}") from None
    if sha256(raw).hexdigest() != digest:
        raise LedgerError(f"blob {digest} does not hash to its digest (its body was changed)")
    return raw


def check(conn: LedgerConnection) -> str | None:
    """Recompute every blob's digest; a description of the first mismatch, or None."""
    for digest, size, encoding, body in conn.execute(
            "SELECT digest, size, encoding, body FROM blobs ORDER BY digest"):
        try:
            raw = _decode(digest, encoding, body)
        except (zlib.error, LedgerError) as exc:
            return f"blob {digest} cannot be read: {exc}"
        if len(raw) != size or sha256(raw).hexdigest() != digest:
            return f"blob {digest} does not hash to its digest (its body was changed)"
    return None
