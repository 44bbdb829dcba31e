"""Telling a ledger on a server (a `postgresql://` URL) from a file, and showing either safely.

A URL may hold a password (`postgresql://user:pw@host/db`, or `?password=...`); wherever a
ledger is named (messages, logs, reports, a copy's result), `display_target` shows it without
its user, password or `password=` parameter (`benchledger.redaction.strip_url_credentials`).
"""

from __future__ import annotations

import os
import re

from benchledger.redaction import strip_url_credentials

__all__ = ["is_url", "display_url", "display_target"]

_SCHEMES = ("postgresql://", "postgres://")
_PASSWORD_PARAM = re.compile(r"(?i)([?&]password=)[^&#]*")


def is_url(target: str | os.PathLike[str]) -> bool:
    """Whether `target` names a ledger on a database server (a `postgresql://` URL), not a file."""
    return isinstance(target, str) and target.startswith(_SCHEMES)


def display_url(url: str) -> str:
    """The URL without its user, password, or a `password=` parameter: what messages show."""
    return _PASSWORD_PARAM.sub(r"\1***", strip_url_credentials(url))


def display_target(target: str | os.PathLike[str]) -> str:
    """A ledger's path as it is, or its URL without credentials."""
    return display_url(str(target)) if is_url(target) else str(target)
