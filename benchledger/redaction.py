"""One redaction for every message that may be recorded, logged or printed.

`redact(text, secrets=())` masks, in this order:

- the values of the registered secret environment variables (`register_secret_env`; the API key
  variable is registered from the start) and any `secrets` the caller holds;
- the value of anything that looks like an `Authorization` header (`Authorization: Basic ...`,
  `'authorization': '...'`);
- a bearer token (`Bearer <token>`; a plain lowercase word after it, as in "wrong bearer token",
  is prose and stays);
- `sk-...` API keys;
- credentials in URLs (`http://user:pw@host/v1` -> `http://***@host/v1`).

Redact before truncating: a secret cut in half is no longer recognisable, so `safe_message` does
both in the right order and is what a message bound for a ledger event should go through.
`strip_url_credentials(url)` removes the credentials from a URL that is to be recorded as an
endpoint. The registry is a process-wide frozenset, replaced whole on registration, so readers on
other threads never see it half changed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from benchledger.text import MESSAGE_CAP, cap_message

__all__ = ["MASK", "register_secret_env", "secret_values", "redact", "safe_message", "strip_url_credentials"]

MASK = "***"
_MIN_SECRET_LENGTH = 4  # shorter values would mask ordinary words

_secret_envs: frozenset[str] = frozenset({"OPENAI_API_KEY"})

_VALUE = r"[^\s'\"`,;)}\]<>]+"
_AUTH_HEADER = re.compile(
    r"(?i)((?:proxy-)?authorization['\"]?\s*[:=]\s*['\"]?)((?:basic|bearer|digest|token)\s+)?" + _VALUE)
_BEARER = re.compile(r"(?i)(bearer\s+)(" + _VALUE + ")")
_PROSE_WORD = re.compile(r"[a-z]{1,19}[.,:!?]?")
_SK_KEY = re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}")
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/?#\s]*@")


def register_secret_env(name: str) -> None:
    """Treat the value of environment variable `name` as a secret from now on (in this process)."""
    global _secret_envs
    _secret_envs = _secret_envs | {name}


def secret_values(extra: Iterable[str] = ()) -> list[str]:
    """The registered variables' current values and `extra`, longest first, too-short ones left out."""
    values = {os.environ.get(name, "") for name in _secret_envs} | set(extra)
    return sorted((v for v in values if len(v) >= _MIN_SECRET_LENGTH), key=len, reverse=True)


def _mask_bearer(match: re.Match[str]) -> str:
    token = match.group(2)
    return match.group(0) if _PROSE_WORD.fullmatch(token) else match.group(1) + MASK


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every secret value, credential and key-like string masked (see the module doc)."""
    for value in secret_values(secrets):
        text = text.replace(value, MASK)
    text = _AUTH_HEADER.sub(lambda m: f"{m.group(1)}{m.group(2) or ''}{MASK}", text)
    text = _BEARER.sub(_mask_bearer, text)
    text = _SK_KEY.sub(f"sk-{MASK}", text)
    return _URL_CREDENTIALS.sub(rf"\1{MASK}@", text)


def safe_message(text: str, secrets: Iterable[str] = (), cap: int = MESSAGE_CAP) -> str:
    """`text` redacted, then capped: the one safe order for a message that will be kept."""
    return cap_message(redact(text, secrets), cap)


def strip_url_credentials(url: str) -> str:
    """`url` without its user and password (`http://user:pw@host/v1` -> `http://host/v1`)."""
    return _URL_CREDENTIALS.sub(r"\1", url, count=1)
