"""A model endpoint's reply is read in chunks up to a limit, and refused as soon as it passes it.

The `openai` SDK reads a reply whole (httpx2's `Response.read()`) before it looks at it, so an endpoint
that answers with 200 MB, or streams without end, would have it all buffered. The chat client hands the
SDK an httpx2 client (`bounded_http_client`) whose transport is `BoundedTransport`: it wraps httpx2's
own `HTTPTransport` and hands the SDK each reply's body as a stream that counts the bytes as they come
off the connection and raises `ReplyTooLarge` at the first chunk past `ModelCalls.max_reply_bytes`,
so no more than the limit (and one network chunk) is ever held. A reply whose `Content-Length` already
says it is too long is refused before any of its body is read.

The limit counts the bytes that are kept: the client asks for an uncompressed reply
(`Accept-Encoding: identity`) and refuses a compressed one, whose decoded size the limit could not
bound (a few MB of gzip can expand a thousandfold). `ReplyTooLarge` is a `ModelError` and not
transient: the call fails once as an operational failure (a `Failed` event, never a wrong answer)
and is not asked again, since the same endpoint would send the same reply.

A custom transport turns off httpx2's reading of proxy variables, so the proxy the environment names
for the endpoint (`HTTPS_PROXY`, `ALL_PROXY`, unless `NO_PROXY` exempts the host) is given to the
wrapped transport here: model calls go where they went before.
"""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx2

from benchledger.adapters.models.base import ModelError
from benchledger.redaction import strip_url_credentials

__all__ = ["ReplyTooLarge", "BoundedTransport", "bounded_http_client", "proxy_for"]

_UNCOMPRESSED = {"Accept-Encoding": "identity"}


class ReplyTooLarge(ModelError):
    """A reply longer than `max_reply_bytes`, or compressed so its size cannot be bounded; nothing past
    the limit was read."""


def proxy_for(base_url: str) -> str | None:
    """The proxy URL the environment names for `base_url` (with its credentials: the transport needs
    them), or None when calls go straight to the host."""
    parts = urlsplit(base_url)
    proxies = urllib.request.getproxies_environment()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    bypass = getattr(urllib.request, "proxy_bypass_environment")  # public since Python 2, untyped in typeshed
    if not proxy or bypass(parts.hostname or "", proxies):
        return None
    return proxy


class _BoundedStream(httpx2.SyncByteStream):
    """A reply body passed on chunk by chunk until it passes the limit."""

    def __init__(self, inner: httpx2.SyncByteStream, *, limit: int, where: str) -> None:
        self._inner, self._limit, self._where = inner, limit, where

    def __iter__(self) -> Iterator[bytes]:
        total = 0
        for chunk in self._inner:
            total += len(chunk)
            if total > self._limit:
                raise ReplyTooLarge(f"{self._where}: the reply passed the limit of {self._limit:,} bytes "
                                    "(max_reply_bytes); nothing past it was read")
            yield chunk

    def close(self) -> None:
        self._inner.close()


class BoundedTransport(httpx2.BaseTransport):
    """httpx2's transport, with every reply body bounded to `limit` bytes."""

    def __init__(self, limit: int, *, inner: httpx2.BaseTransport) -> None:
        self.limit, self._inner = limit, inner

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = self._inner.handle_request(request)
        where = f"{strip_url_credentials(str(request.url.copy_with(query=None)))}"
        encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
        declared = response.headers.get("Content-Length", "")
        refused = None
        if encoding != "identity":
            refused = (f"{where}: the reply is compressed ({encoding!r}) though the client asked for it "
                       "uncompressed, so its size cannot be bounded")
        elif declared.isdigit() and int(declared) > self.limit:
            refused = (f"{where}: the reply declares {int(declared):,} bytes, over the limit of {self.limit:,} "
                       "(max_reply_bytes); none of it was read")
        if refused is not None:
            response.close()
            raise ReplyTooLarge(refused)
        assert isinstance(response.stream, httpx2.SyncByteStream)  # a sync transport's reply
        return httpx2.Response(response.status_code, headers=response.headers,
                               stream=_BoundedStream(response.stream, limit=self.limit, where=where),
                               extensions=response.extensions, request=request)

    def close(self) -> None:
        self._inner.close()


def bounded_http_client(base_url: str, limit: int) -> httpx2.Client:
    """The httpx2 client the SDK is given: the SDK's own defaults (connection limits, redirects), the
    environment's proxy for `base_url`, and replies bounded to `limit` bytes."""
    import openai  # the chat client has imported it already

    inner = httpx2.HTTPTransport(limits=openai.DEFAULT_CONNECTION_LIMITS, proxy=proxy_for(base_url))
    return openai.DefaultHttpxClient(transport=BoundedTransport(limit, inner=inner), headers=_UNCOMPRESSED)
