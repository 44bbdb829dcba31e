"""What a run id may be, checked where ids enter the store and where they leave it.

benchledger names every run it starts with a ULID (`clock.new_run_id`): 26 characters of
Crockford's base32, the first at most 7. A run copied between ledgers (`push`, `pull`) must be
one: a copy is how another person's run arrives, and an id that is not a ULID was not started by
benchledger. Every append, and a PostgreSQL ledger's insert trigger, at least refuses an id that
is not a plain token (`TOKEN`: letters, digits, `.`, `_`, `:`, `-`, at most 64), which keeps
terminal escapes, spaces and quotes out of every id stored from now on; an id read from a ledger
that is not a token (written by hand, or by an older benchledger) is shown escaped
(`shown`), never raw.

Resolving what a user typed (`runs.resolve_run`) never silently picks one of several runs: an
exact match wins over being a prefix of others only when it is a full ULID.
"""

from __future__ import annotations

import re

from benchledger.errors import BadInput

__all__ = ["ULID", "TOKEN", "TOKEN_PATTERN", "is_ulid", "is_token", "check_token", "check_ulid", "shown"]

ULID = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")
TOKEN_PATTERN = "[A-Za-z0-9._:-]{1,64}"
TOKEN = re.compile(TOKEN_PATTERN)


def is_ulid(run_id: str) -> bool:
    return ULID.fullmatch(run_id) is not None


def is_token(run_id: str) -> bool:
    return TOKEN.fullmatch(run_id) is not None


def shown(run_id: str) -> str:
    """The id as it may be printed: itself when it is a token, else its escaped repr."""
    return run_id if is_token(run_id) else ascii(run_id)


def check_token(run_id: object) -> str:
    """The id, if a store may record it; BadInput naming it (escaped) otherwise."""
    if not isinstance(run_id, str) or not is_token(run_id):
        raise BadInput(f"run id {ascii(run_id)} is refused: a run id is letters, digits and . _ : - "
                       "(at most 64; benchledger's own are ULIDs)", field="run_id")
    return run_id


def check_ulid(run_id: str, action: str) -> str:
    """The id, if it is a ULID; BadInput saying it is not benchledger's (for `action`) otherwise."""
    if not is_ulid(run_id):
        raise BadInput(f"run id {shown(run_id)} is not a ULID (26 characters of Crockford's base32, as "
                       f"benchledger names every run it starts): it is not {action}", field="run_id")
    return run_id
