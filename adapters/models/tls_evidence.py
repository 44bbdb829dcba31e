"""What an HTTPS endpoint shows the runner's machine, judged the same way on every machine.

`tls_evidence` resolves the endpoint's host, connects to one of its addresses and records the
certificate chain the server presents, checked against the root store the package ships (certifi)
and nothing else: `SSL_CERT_FILE`, `SSL_CERT_DIR`, `REQUESTS_CA_BUNDLE` and the system's store are
never read, since the context loads certifi's file alone and never asks OpenSSL for its default
paths (where those variables take effect). A CA the runner made on the spot therefore cannot turn
a loopback server into a provider, however the environment is set.

Each reason an endpoint cannot count as a provider's API is one sentence in `problems`:

- the chain does not verify against the shipped store, or does not name the host;
- the host name resolved to an address that is not globally routable (loopback, private,
  link-local, shared, reserved, ...), as a hosts entry sending api.openai.com to 127.0.0.1 does;
- the environment names a proxy for the URL: the SDK's calls then go through it, over a
  connection the probe never saw (and one the SDK verified with the environment's CAs).

This is evidence the runner's machine recorded, never a check a third party can repeat offline;
the scorecard says so, and `benchledger verify RUN --spot-check N` is the check they can run.
"""

from __future__ import annotations

import hashlib
import ipaddress
import socket
import ssl
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from benchledger.ledger.events import ChainCertificate, TlsEvidence
from benchledger.redaction import strip_url_credentials

__all__ = ["tls_evidence", "address_problem", "environment_proxy", "root_store_name"]


def root_store_name() -> str:
    import certifi

    return f"certifi {certifi.__version__}"


def _shipped_store() -> Path:
    import certifi

    return Path(certifi.where())


def _name(parts: object) -> str:
    """A subject or issuer of `getpeercert()`-style info (relative distinguished names of pairs)."""
    if not isinstance(parts, tuple):
        return ""
    return ", ".join(f"{key}={value}" for rdn in parts for key, value in rdn)


def _chain(tls: ssl.SSLSocket, *, verified: bool) -> tuple[ChainCertificate, ...]:
    # Python 3.13 names these methods on SSLSocket; 3.11 and 3.12 have them on the socket's _sslobj.
    source: Any = tls if hasattr(tls, "get_verified_chain") else tls._sslobj  # type: ignore[attr-defined]
    certificates = source.get_verified_chain() if verified else source.get_unverified_chain()
    out = []
    for certificate in certificates or ():
        info = certificate.get_info()
        der = certificate.public_bytes(ssl._ssl.ENCODING_DER)  # type: ignore[attr-defined]
        out.append(ChainCertificate(sha256=hashlib.sha256(der).hexdigest(), subject=_name(info.get("subject")),
                                    issuer=_name(info.get("issuer"))))
    return tuple(out)


def address_problem(host: str, address: str) -> str | None:
    """Why `address` (what `host` resolved to) is no provider's: None for a globally routable one."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_global:
        return None
    kind = ("a loopback" if ip.is_loopback else "a link-local" if ip.is_link_local else
            "a private" if ip.is_private else "a non-public")
    return f"{host} resolved to {address}, {kind} address on the runner's machine"


def environment_proxy(base_url: str) -> str | None:
    """The proxy the environment names for `base_url` (`HTTPS_PROXY`, `ALL_PROXY`, unless `NO_PROXY`
    exempts the host), without credentials; None when the calls go straight to the host."""
    from benchledger.adapters.models.reply_limit import proxy_for  # the rule the chat client's transport follows

    proxy = proxy_for(base_url)
    return strip_url_credentials(proxy) if proxy else None


def _handshake(address: str, port: int, host: str, context: ssl.SSLContext, timeout: float,
               *, verified: bool) -> tuple[ChainCertificate, ...]:
    with socket.create_connection((address, port), timeout=timeout) as raw, \
            context.wrap_socket(raw, server_hostname=host) as tls:
        return _chain(tls, verified=verified)


def _unverifying_context() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # only to record what a server that failed the check presented
    return context


def tls_evidence(base_url: str, *, timeout: float, root_store: Path | None = None) -> TlsEvidence | None:
    """What `base_url`'s server presents, judged against `root_store` (the shipped certifi store
    unless a test names another); None for plain HTTP, or when the host cannot be reached at all."""
    parts = urlsplit(base_url)
    if parts.scheme != "https" or not parts.hostname:
        return None
    host, port = parts.hostname, parts.port or 443
    try:
        resolved = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return None
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in resolved))
    problems = [p for a in addresses if (p := address_problem(host, a))][:1]  # one says enough
    store = root_store or _shipped_store()
    store_name = root_store_name() if root_store is None else str(root_store)
    context = ssl.create_default_context(cafile=str(store))  # certifi alone: never the default paths
    trusted, reached = False, None
    chain: tuple[ChainCertificate, ...] = ()
    for address in addresses:
        try:
            chain, trusted, reached = _handshake(address, port, host, context, timeout, verified=True), True, address
            break
        except ssl.SSLCertVerificationError as err:
            reason = err.verify_message or str(err)
            try:
                chain = _handshake(address, port, host, _unverifying_context(), timeout, verified=False)
            except (OSError, ssl.SSLError):
                chain = ()
            reached = address
            issuer = chain[-1].issuer if chain else "unknown"
            problems.insert(0, f"its certificate chain does not verify against the shipped root store "
                               f"({store_name}): {reason} (issuer {issuer})")
            break
        except (OSError, ssl.SSLError):
            continue
    if reached is None:
        return None
    if proxy := environment_proxy(base_url):
        problems.append(f"the environment sends calls to {host} through the proxy {proxy}, over a connection "
                        "the probe did not see")
    return TlsEvidence(host=host, port=port, addresses=addresses, address=reached, chain=chain,
                       root_store=store_name, trusted=trusted, proxy=proxy, problems=tuple(problems))
