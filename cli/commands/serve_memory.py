"""`benchledger serve-memory`: serve an installed memory system over the memory HTTP protocol.

Loopback by default. The first line on stdout names the system and the URL (with `--port 0`, the
port the OS picked), so a script can start the server and read where it listens. Runs until
Ctrl-C or SIGTERM, then closes the memory system's store. The limits (body size, connections,
read and request timeouts) are `MemoryServer`'s, see `adapters.memory.http_server`.
"""

from __future__ import annotations

import os
from pathlib import Path

import click
from benchledger.adapters.memory.http_server import (
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONNECTIONS, DEFAULT_READ_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, MemoryServer,
)
from benchledger.adapters.memory.registry import open_memory
from benchledger.cli.common import AppContext, is_loopback, pass_app, sigterm_as_interrupt
from benchledger.errors import BadInput
from benchledger.redaction import register_secret_env

__all__ = ["COMMANDS", "serve_memory"]


@click.command("serve-memory")
@click.option("--memory", required=True, help="Memory system to serve (see `benchledger memories`).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port to bind; 0 picks a free one (printed on start).")
@click.option("--store", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Evaluation store file for the served system [default: beside the ledger].")
@click.option("--token-env", default=None,
              help="Environment variable holding a bearer token every request must carry.")
@click.option("--max-body-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_BODY_BYTES, show_default=True,
              help="Largest request body accepted; a larger one is refused (413) unread.")
@click.option("--max-connections", type=click.IntRange(min=1), default=DEFAULT_MAX_CONNECTIONS, show_default=True,
              help="Connections served at once; one more is answered 503 with Retry-After at once.")
@click.option("--read-timeout", type=click.FloatRange(min=0.01), default=DEFAULT_READ_TIMEOUT, show_default=True,
              help="Seconds one read (or an idle keep-alive connection) may wait before the connection is closed.")
@click.option("--request-timeout", type=click.FloatRange(min=0.01), default=DEFAULT_REQUEST_TIMEOUT,
              show_default=True, help="Seconds a whole request may take to arrive, from its first byte.")
@pass_app
def serve_memory(app: AppContext, memory: str, host: str, port: int, store: Path | None,
                 token_env: str | None, max_body_bytes: int, max_connections: int, read_timeout: float,
                 request_timeout: float) -> None:
    """Serve an installed memory system over HTTP for `run --memory http --memory-url URL`."""
    token = None
    if token_env is not None:
        register_secret_env(token_env)
        token = os.environ.get(token_env)
        if not token:
            raise BadInput(f"the environment variable {token_env} is empty; set it to the token",
                           field="token-env")
    store = store or app.memory_store_dir / f"{memory}.sqlite"
    system = open_memory(memory, store)
    try:
        server = MemoryServer(system, host=host, port=port, token=token, max_body_bytes=max_body_bytes,
                              max_connections=max_connections, read_timeout=read_timeout,
                              request_timeout=request_timeout)
    except OSError as err:
        system.close()
        raise BadInput(f"cannot listen on {host}:{port}: {err.strerror or err}", field="port") from err
    if not is_loopback(host) and token is None:
        click.echo(f"warning: serving on {host} with no token; anyone who can reach it can read and "
                   "purge this store (pass --token-env VAR)", err=True)
    click.echo(f"serving memory '{system.name}' {system.version} (store {store}) at {server.url}")
    try:
        with sigterm_as_interrupt():
            server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        click.echo("memory server stopped", err=True)


COMMANDS = [serve_memory]
