"""Where the calls that count went: the model endpoint and the memory system of a run segment.

A run has segments: its start, each resume, and each scorer (and each continuation of one). Every
segment that asks a model or a memory system records which, so that every counted answer and
verdict can be traced to a recorded endpoint; a segment recorded before endpoints were (`None`)
can never count towards a publishable score.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Endpoint", "ServerCertificate", "ChainCertificate", "TlsEvidence", "MemoryIdentity"]


class ServerCertificate(BaseModel):
    """The TLS certificate an HTTPS endpoint presented, verified against the trusted CAs at the probe."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    sha256: str
    """SHA-256 of the certificate's DER bytes."""
    subject: str
    """Its subject, as `CN=..., O=...`."""
    issuer: str = ""
    """Its issuer, the same way."""


class ChainCertificate(BaseModel):
    """One certificate of the chain an HTTPS endpoint presented."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    sha256: str
    """SHA-256 of the certificate's DER bytes."""
    subject: str
    """Its subject, as `commonName=..., organizationName=...`."""
    issuer: str
    """Its issuer, the same way."""


class TlsEvidence(BaseModel):
    """What the probe saw of an HTTPS endpoint from the runner's machine: evidence that machine
    recorded (attested), judged against the root store the package ships, never the environment's."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    host: str
    """The host name asked for (the one the certificate must name)."""
    port: int
    """The TCP port."""
    addresses: tuple[str, ...]
    """Every address the host name resolved to on the runner's machine."""
    address: str
    """The address the probe connected to."""
    chain: tuple[ChainCertificate, ...]
    """The certificates, the server's first: the verified chain up to its root in `root_store`, or,
    when it does not verify, the chain as the server sent it."""
    root_store: str
    """The root store the chain was checked against (`certifi <version>`)."""
    trusted: bool
    """The chain verified against `root_store` and its leaf names `host`."""
    proxy: str | None = None
    """A proxy the environment named for this URL (without credentials): the model calls went through
    it, not over the connection the probe made."""
    problems: tuple[str, ...] = ()
    """Why this endpoint cannot count as a provider's API, one sentence each (none: it can)."""


class Endpoint(BaseModel):
    """An OpenAI-compatible endpoint, recorded without credentials."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    base_url: str | None
    """The endpoint's base URL with any user:password removed (None: the openai SDK's default)."""
    api_key_env: str
    """The environment variable that held the API key (its name, never its value)."""
    certificate: ServerCertificate | None = None
    """The server certificate the probe verified over HTTPS (None: plain HTTP, not probed, or recorded
    before certificates were)."""
    tls: TlsEvidence | None = None
    """What the probe saw over HTTPS, checked against the shipped root store (None: plain HTTP, not
    probed, or recorded before the probe kept it)."""


class MemoryIdentity(BaseModel):
    """The memory system a segment recalled from, as it named itself."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    name: str
    """The memory system's name (`http:<name>` for a remote one)."""
    version: str
    """Its version, as it reported it."""
    url: str | None = None
    """A remote memory server's URL, without credentials (None in process)."""
