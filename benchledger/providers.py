"""The model providers' API hosts: the one place that names them.

A counted answer or verdict meets a benchmark's reference or official protocol only when it came
over HTTPS, with the server's certificate verified and recorded, from one of these hosts: the
providers the benchmarks' official protocols name (OpenAI for GroupMemBench's gpt-5, LoCoMo's and
LongMemEval's GPT models; OpenRouter for Memora's three judges). Anything else (a local proxy, a
private address, plain HTTP, another host) stays fully usable and makes the run diagnostic, since
what model answered there cannot be known. Adding a provider is one line here.
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["PROVIDER_API_HOSTS", "OPENAI_DEFAULT_BASE_URL", "OPENAI_API_KEY_ENV", "provider_of"]

PROVIDER_API_HOSTS: dict[str, str] = {
    "api.openai.com": "OpenAI",
    "openrouter.ai": "OpenRouter",
}
"""API host -> provider."""

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
"""Where the openai SDK sends calls when no base URL is given."""

OPENAI_API_KEY_ENV = "OPENAI_API_KEY"
"""The environment variable the openai SDK reads its key from: the default of every key variable
(a run's `api_key_env`, an in-process memory's `key_env`), and always treated as a secret."""


def provider_of(base_url: str | None) -> str | None:
    """The provider whose API `base_url` is (over HTTPS, on its default port), else None."""
    parts = urlsplit(base_url or OPENAI_DEFAULT_BASE_URL)
    if parts.scheme != "https" or parts.port not in (None, 443) or parts.username or parts.password:
        return None
    return PROVIDER_API_HOSTS.get((parts.hostname or "").lower())
