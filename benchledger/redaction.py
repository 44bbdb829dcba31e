"""One redaction for every message that may be recorded, logged or printed.

`redact(text, secrets=())` masks, in this order:

- the values of the registered secret environment variables (`register_secret_env`; the API key
  variable is registered from the start) and any `secrets` the caller holds;
- the value of anything that looks like an `Authorization` header (`Authorization: Basic ...`,
  `'authorization': '...'`);
- a bearer token (`Bearer <token>`; a plain lowercase word after it, as in "wrong bearer token",
  is prose and stays);
- `sk-...` API keys;
- credentials in URLs (`http://user:pw@host/v1` -> `http://***@host/v1`), and the values of
  credential-named query parameters (`?api-key=...`, `key`, `token`, `access_token`, `password`,
  `secret`, `sig`, ... -> `?api-key=***`).

Redact before truncating: a secret cut in half is no longer recognisable, so `safe_message` does
both in the right order and is what a message bound for a ledger event should go through.
`strip_url_credentials(url)` removes the credentials from a URL that is to be recorded as an
endpoint: its user and password, and every credential-named query parameter (the rest of the
query stays, so two endpoints that differ only by a deployment parameter stay apart).
`held_secret(text)` names the first registered secret value a text holds (for a store that
refuses to record one); it considers only values of at least 12 characters, so the placeholder
keys local endpoints take (`none`, `EMPTY`, `dummy`) are masked where printed but never stop a
run whose corpus happens to contain the word. The registry is a process-wide frozenset, replaced whole on registration, so readers on
other threads never see it half changed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from benchledger.providers import OPENAI_API_KEY_ENV
from benchledger.text import MESSAGE_CAP, cap_message

__all__ = ["MASK", "register_secret_env", "register_secret", "secret_values", "redact", "safe_message",
           "strip_url_credentials", "held_secret"]

MASK = "***"
_MIN_SECRET_LENGTH = 4  # shorter values would mask ordinary words
_MIN_REFUSED_LENGTH = 12  # a real key or token is longer; a placeholder key is an ordinary word

_secret_envs: frozenset[str] = frozenset({OPENAI_API_KEY_ENV})

_VALUE = r"[^\s'\"`,;)}\]<>]+"
_AUTH_HEADER = re.compile(
    r"(?i)((?:proxy-)?authorization['\"]?\s*[:=]\s*['\"]?)((?:basic|bearer|digest|token)\s+)?" + _VALUE)
_BEARER = re.compile(r"(?i)(bearer\s+)(" + _VALUE + ")")
_PROSE_WORD = re.compile(r"[a-z]{1,19}[.,:!?]?")
_SK_KEY = re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}")
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/?#\s]*@")
_CREDENTIAL_PARAMS = ("api-key", "api_key", "apikey", "key", "token", "access_token", "access-token",
                      "auth", "auth_token", "password", "passwd", "pwd", "secret", "client_secret",
                      "sig", "signature", "x-api-key", "code", "session", "credential", "credentials")
_QUERY_CREDENTIAL = re.compile(
    r"(?i)([?&;](?:" + "|".join(re.escape(name) for name in _CREDENTIAL_PARAMS) + r")=)[^&;#\s'\"<>]+")

_secrets: frozenset[str] = frozenset()


def register_secret_env(name: str) -> None:
    """Treat the value of environment variable `name` as a secret from now on (in this process)."""
    global _secret_envs
    _secret_envs = _secret_envs | {name}


def register_secret(value: str) -> None:
    """Treat `value` itself as a secret from now on (a token read from somewhere else than a variable)."""
    global _secrets
    _secrets = _secrets | {value}


def secret_values(extra: Iterable[str] = ()) -> list[str]:
    """The registered variables' current values, the registered values and `extra`, longest first,
    too-short ones left out."""
    values = {os.environ.get(name, "") for name in _secret_envs} | _secrets | set(extra)
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
    text = _QUERY_CREDENTIAL.sub(rf"\1{MASK}", text)
    return _URL_CREDENTIALS.sub(rf"\1{MASK}@", text)


def held_secret(data: str | bytes, extra: Iterable[str] = ()) -> str | None:
    """The name of the first registered secret of 12 characters or more that `data` holds (its
    variable, or "a registered secret")."""
    for name in sorted(_secret_envs):
        value = os.environ.get(name, "")
        if len(value) >= _MIN_REFUSED_LENGTH and _holds(data, value):
            return f"the value of ${name}"
    if any(_holds(data, value) for value in (*_secrets, *extra) if len(value) >= _MIN_REFUSED_LENGTH):
        return "a registered secret"
    return None


def _holds(data: str | bytes, value: str) -> bool:
    return (value.encode() in data) if isinstance(data, bytes) else (value in data)


def safe_message(text: str, secrets: Iterable[str] = (), cap: int = MESSAGE_CAP) -> str:
    """`text` redacted, then capped: the one safe order for a message that will be kept."""
    return cap_message(redact(text, secrets), cap)


def strip_url_credentials(url: str) -> str:
    """`url` without its user and password (`http://user:pw@host/v1` -> `http://host/v1`) and
    without its credential-named query parameters (`...?api-key=K&v=2` -> `...?v=2`)."""
    url = _URL_CREDENTIALS.sub(r"\1", url, count=1)
    parts = urlsplit(url)
    if not parts.query:
        return url
    names = {name.lower() for name in _CREDENTIAL_PARAMS}
    kept = [field for field in parts.query.split("&")
            if unquote_plus(field.split("=", 1)[0]).lower() not in names]  # the rest stays as written
    return urlunsplit(parts._replace(query="&".join(kept)))
