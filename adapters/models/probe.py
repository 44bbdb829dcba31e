"""One cheap call before a run spends anything: is the endpoint there, and does it take the key?

`probe_endpoint` lists the endpoint's models (`GET /models`, no tokens spent) through the openai
SDK with no retries and a short timeout. An endpoint that cannot be reached, or that refuses the
key, stops the run with one line (exit 2) before a document is ingested or a model is asked; any
other reply (a 404 from a server without the route, say) lets the run go on, since the route is
optional for OpenAI-compatible servers.
"""

from __future__ import annotations

import os

from benchledger.adapters.models.openai_chat import DEFAULT_BASE_URL
from benchledger.errors import BadInput
from benchledger.redaction import safe_message, strip_url_credentials

__all__ = ["PROBE_TIMEOUT", "probe_endpoint"]

PROBE_TIMEOUT = 10.0


def probe_endpoint(base_url: str | None, api_key_env: str, *, timeout: float = PROBE_TIMEOUT) -> None:
    """BadInput (one line, exit 2) when the endpoint is unreachable or refuses the key."""
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
        return  # reachable and not refusing the key: a server may not offer GET /models
    finally:
        client.close()
