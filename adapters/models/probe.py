"""One cheap call before a run spends anything: is the endpoint there, does it take the key, and
which certificate does it present?

`probe_endpoint` lists the endpoint's models (`GET /models`, no tokens spent) through the openai
SDK with no retries and a short timeout. An endpoint that cannot be reached, or that refuses the
key, stops the run with one line (exit 2) before a document is ingested or a model is asked; any
other reply (a 404 from a server without the route, say) lets the run go on, since the route is
optional for OpenAI-compatible servers.

Over HTTPS the probe then opens one TLS connection of its own with certificate checking on (the
trusted CAs the openai SDK's client uses: `SSL_CERT_FILE`, else certifi's bundle; host name
checked) and records the server certificate's SHA-256, subject and issuer. Each segment's
`Endpoint` carries it (`probed_certificate`), so a reader can see which server answered; a
certificate that does not verify is not recorded, and the run is then never publishable.
"""

from __future__ import annotations

import hashlib
import os
import socket
import ssl
from urllib.parse import urlsplit

from benchledger.adapters.models.openai_chat import DEFAULT_BASE_URL
from benchledger.errors import BadInput
from benchledger.ledger.events import ServerCertificate
from benchledger.redaction import safe_message, strip_url_credentials

__all__ = ["PROBE_TIMEOUT", "probe_endpoint", "server_certificate", "probed_certificate"]

PROBE_TIMEOUT = 10.0
_PROBED: dict[str, ServerCertificate] = {}
"""Base URL -> the certificate its probe verified in this process (what segments record)."""


def _key(base_url: str | None) -> str:
    return strip_url_credentials(base_url or DEFAULT_BASE_URL).rstrip("/")


def _name(parts: object) -> str:
    """`subject` or `issuer` of `getpeercert()` (relative distinguished names of (key, value) pairs)."""
    if not isinstance(parts, tuple):
        return ""
    return ", ".join(f"{key}={value}" for rdn in parts for key, value in rdn)


def server_certificate(base_url: str, *, timeout: float = PROBE_TIMEOUT) -> ServerCertificate | None:
    """The certificate an HTTPS endpoint presents, verified (chain and host name); None for plain
    HTTP, or when it does not verify or cannot be reached."""
    parts = urlsplit(base_url)
    if parts.scheme != "https" or not parts.hostname:
        return None
    import certifi

    context = ssl.create_default_context(cafile=os.environ.get("SSL_CERT_FILE") or certifi.where())
    try:
        with socket.create_connection((parts.hostname, parts.port or 443), timeout=timeout) as raw, \
                context.wrap_socket(raw, server_hostname=parts.hostname) as tls:
            der = tls.getpeercert(binary_form=True)
            info = tls.getpeercert()
    except (OSError, ssl.SSLError):
        return None
    if not der or not info:
        return None
    return ServerCertificate(sha256=hashlib.sha256(der).hexdigest(), subject=_name(info.get("subject")),
                             issuer=_name(info.get("issuer")))


def probed_certificate(base_url: str | None) -> ServerCertificate | None:
    """The certificate the probe of `base_url` verified in this process, if it did."""
    return _PROBED.get(_key(base_url))


def probe_endpoint(base_url: str | None, api_key_env: str, *,
                   timeout: float = PROBE_TIMEOUT) -> ServerCertificate | None:
    """BadInput (one line, exit 2) when the endpoint is unreachable or refuses the key; else the
    server certificate it presented over HTTPS (None over plain HTTP or when it does not verify)."""
    import openai  # imported on first use, like the chat client

    api_key = os.environ.get(api_key_env, "")
    if not api_key:
        raise BadInput(f"set the environment variable {api_key_env} to the endpoint's API key "
                       "(or name another variable)", field="api_key_env")
    shown = strip_url_credentials(base_url) if base_url else "the OpenAI API"
    client = openai.OpenAI(api_key=api_key, base_url=base_url or DEFAULT_BASE_URL, timeout=timeout, max_retries=0)
    try:
        client.models.list()
    except openai.AuthenticationError:
        raise BadInput(f"{shown} refused the key in ${api_key_env} (401); check the key or --api-key-env",
                       field="base_url") from None
    except (openai.APIConnectionError, openai.APITimeoutError) as err:
        cause = safe_message(str(err.__cause__ or err), (api_key,))
        raise BadInput(f"{shown} cannot be reached ({cause}); check --base-url and that the server is up",
                       field="base_url") from None
    except openai.APIStatusError:
        pass  # reachable and not refusing the key: a server may not offer GET /models
    finally:
        client.close()
    certificate = server_certificate(base_url or DEFAULT_BASE_URL, timeout=timeout)
    if certificate is None:
        _PROBED.pop(_key(base_url), None)
    else:
        _PROBED[_key(base_url)] = certificate
    return certificate
