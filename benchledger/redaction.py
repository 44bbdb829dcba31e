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
`held_secret(text)` names a registered secret value a text holds (for a store that refuses to
record one); it considers only values of at least 12 characters, so the placeholder keys local
endpoints take (`none`, `EMPTY`, `dummy`) are masked where printed but never stop a run whose
corpus happens to contain the word. `secret_scan()` is the same question asked of many texts at
once, as the store asks it of everything one append writes: one compiled pattern of every such
value (and of each value as JSON writes it inside a string, where a quote, a backslash, a control
or a non-ASCII character is escaped), searched once over each text, rebuilt only when the
registered values change. The registry is a process-wide frozenset, replaced whole on
registration, so readers on other threads never see it half changed.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from functools import lru_cache
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from benchledger.providers import OPENAI_API_KEY_ENV
from benchledger.text import MESSAGE_CAP, cap_message

__all__ = ["MASK", "register_secret_env", "register_secret", "secret_values", "redact", "safe_message",
           "strip_url_credentials", "held_secret", "secret_scan", "SecretScan"]

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
    """The name of a registered secret of 12 characters or more that `data` holds (its variable,
    or "a registered secret"), as written or as JSON escapes it; None when it holds none."""
    scan = secret_scan(extra)
    return None if scan is None else scan.find(data)


class SecretScan:
    """One compiled search for every refusable secret value; see the module docstring."""

    def __init__(self, named: tuple[tuple[str, str], ...]) -> None:
        self._names: dict[bytes, str] = {}
        for value, name in named:  # a variable's name first where a value is registered twice
            for form in _written_forms(value):
                self._names.setdefault(form, name)
        forms = sorted(self._names, key=len, reverse=True)  # the longest form wins at a position
        self._pattern = re.compile(b"|".join(re.escape(form) for form in forms))

    def find(self, data: str | bytes) -> str | None:
        """The name of a secret `data` holds, or None."""
        found = self._pattern.search(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
        return None if found is None else self._names[found.group()]

    def first(self, texts: Iterable[str | bytes]) -> str | None:
        """The name of a secret the first text holding one holds, or None."""
        return next((name for text in texts if (name := self.find(text)) is not None), None)


def _written_forms(value: str) -> set[bytes]:
    """The bytes a value appears as: as written, and inside a JSON string (escaped as pydantic and
    `json.dumps(ensure_ascii=False)` write it, and as `json.dumps` writes it by default)."""
    raw = value.encode("utf-8", "surrogatepass")
    return {raw, json.dumps(value, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass"),
            json.dumps(value)[1:-1].encode()}


def secret_scan(extra: Iterable[str] = ()) -> SecretScan | None:
    """The scan for the secrets registered now (and `extra`), None when none is long enough to
    refuse (nothing to look for)."""
    named = [(os.environ.get(name, ""), f"the value of ${name}") for name in sorted(_secret_envs)]
    named += [(value, "a registered secret") for value in (*sorted(_secrets), *extra)]
    refusable = tuple((value, name) for value, name in named if len(value) >= _MIN_REFUSED_LENGTH)
    return _compiled(refusable) if refusable else None


@lru_cache(maxsize=8)
def _compiled(named: tuple[tuple[str, str], ...]) -> SecretScan:
    return SecretScan(named)


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
