"""One cheap call before a run spends anything: is the endpoint there, does it take the key, and
which certificate does it present?

`probe_endpoint` lists the endpoint's models (`GET /models`, no tokens spent) through the openai
SDK with no retries and a short timeout. An endpoint that cannot be reached, or that refuses the
key, stops the run with one line (exit 2) before a document is ingested or a model is asked; any
other reply (a 404 from a server without the route, say) lets the run go on, since the route is
optional for OpenAI-compatible servers.

Over HTTPS the probe then opens one TLS connection of its own (`adapters.models.tls_evidence`):
the addresses the host resolved to, the chain the server presented, and whether that chain ends
in the root store the package ships (certifi; never `SSL_CERT_FILE` or any other variable). Each
segment's `Endpoint` carries it (`probed_tls`, and the leaf as `probed_certificate` when it
verified), whether it verified or not, with the reasons it cannot count as a provider's API:
`provider_endpoint` reads them, labelled as evidence the runner's machine recorded.
"""

from __future__ import annotations

import os

from benchledger.adapters.models.openai_chat import DEFAULT_BASE_URL
from benchledger.errors import BadInput
from benchledger.adapters.models.tls_evidence import tls_evidence
from benchledger.ledger.events import ServerCertificate, TlsEvidence
from benchledger.redaction import safe_message, strip_url_credentials

__all__ = ["PROBE_TIMEOUT", "probe_endpoint", "server_certificate", "probed_certificate", "probed_tls"]

PROBE_TIMEOUT = 10.0
_PROBED: dict[str, TlsEvidence] = {}
"""Base URL -> what its probe saw over HTTPS in this process (what segments record)."""


def _key(base_url: str | None) -> str:
    return strip_url_credentials(base_url or DEFAULT_BASE_URL).rstrip("/")


def server_certificate(base_url: str, *, timeout: float = PROBE_TIMEOUT) -> ServerCertificate | None:
    """The leaf certificate of an HTTPS endpoint whose chain verified against the shipped root store
    and names its host; None for plain HTTP, or when it does not verify or cannot be reached."""
    evidence = tls_evidence(base_url, timeout=timeout)
    return _leaf(evidence)


def _leaf(evidence: TlsEvidence | None) -> ServerCertificate | None:
    if evidence is None or not evidence.trusted or not evidence.chain:
        return None
    leaf = evidence.chain[0]
    return ServerCertificate(sha256=leaf.sha256, subject=leaf.subject, issuer=leaf.issuer)


def probed_certificate(base_url: str | None) -> ServerCertificate | None:
    """The leaf certificate the probe of `base_url` verified in this process, if it did."""
    return _leaf(_PROBED.get(_key(base_url)))


def probed_tls(base_url: str | None) -> TlsEvidence | None:
    """What the probe of `base_url` saw over HTTPS in this process, verified or not."""
    return _PROBED.get(_key(base_url))


def probe_endpoint(base_url: str | None, api_key_env: str, *,
                   timeout: float = PROBE_TIMEOUT) -> ServerCertificate | None:
    """BadInput (one line, exit 2) when the endpoint is unreachable or refuses the key; else the
    leaf certificate it presented over HTTPS when its chain verified against the shipped root store
    (None over plain HTTP or when it does not verify; `probed_tls` keeps what it saw either way)."""
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
    evidence = tls_evidence(base_url or DEFAULT_BASE_URL, timeout=timeout)
    if evidence is None:
        _PROBED.pop(_key(base_url), None)
    else:
        _PROBED[_key(base_url)] = evidence
    return _leaf(evidence)
