"""Option blocks shared by every `run` subcommand (and resume/rejudge), defined once.

Flag names match `RunSettings` field names, so `settings_from_options` is a plain mapping.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import click
from benchledger.cli.common import AppContext
from benchledger.errors import BadInput
from benchledger.orchestration.settings import RunSettings
from benchledger.redaction import register_secret_env

__all__ = ["memory_options", "model_options", "run_options", "memory_from_options", "settings_from_options",
           "split_csv"]


def _stack(*decorators: Callable) -> Callable:
    def apply(fn: Callable) -> Callable:
        for decorator in reversed(decorators):
            fn = decorator(fn)
        return fn
    return apply


memory_options = _stack(
    click.option("--memory", default="sqlite", show_default=True,
                 help="Memory system under test (see `benchledger memories`)."),
    click.option("--memory-url", default=None,
                 help="For --memory http: the server's base URL (see `benchledger serve-memory`)."),
    click.option("--memory-token-env", default=None,
                 help="For --memory http: environment variable holding a bearer token (never recorded)."),
    click.option("--memory-store", type=click.Path(dir_okay=False, path_type=Path), default=None,
                 help="Evaluation store file for the memory system [default: beside the ledger]."),
)

model_options = _stack(
    click.option("--agent-model", default=None,
                 help="Answer model at --base-url; none means the offline extractive baseline."),
    click.option("--judge-model", default=None, help="Judge model [default: the agent model]."),
    click.option("--base-url", default=None, envvar="OPENAI_BASE_URL",
                 help="OpenAI-compatible endpoint (also $OPENAI_BASE_URL)."),
    click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
                 help="Environment variable holding the API key (its value is never recorded)."),
    click.option("--protocol", type=click.Choice(["reference", "typed"]), default="reference", show_default=True,
                 help="reference: the release's prompts and Final: lines; typed: JSON-schema answers."),
    click.option("--concurrency", type=click.IntRange(1, 256), default=4, show_default=True,
                 help="Model calls in flight at once."),
    click.option("--timeout", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
                 help="Seconds before a model call times out (then it is retried)."),
    click.option("--max-attempts", type=click.IntRange(1, 20), default=6, show_default=True,
                 help="Attempts per model call on 429, 5xx, timeouts and resets (with backoff)."),
    click.option("--backoff-base", type=click.FloatRange(min=0.01), default=0.5, show_default=True,
                 help="First retry wait in seconds; doubles each attempt (a Retry-After is always honoured)."),
)

run_options = _stack(
    click.option("--k", type=click.IntRange(min=1), default=10, show_default=True, help="Candidates recalled."),
    click.option("--token-budget", type=click.IntRange(min=1), default=None,
                 help="Estimated-token budget for the packed context."),
    click.option("--prepare/--no-prepare", default=True, show_default=True,
                 help="--no-prepare reuses a kept scope after the same completeness check."),
    click.option("--keep", is_flag=True, help="Keep the memory scope after the run (default: purge it)."),
    click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
                 help="Write the report JSON here."),
)


def split_csv(values: tuple[str, ...]) -> list[str]:
    """--kinds a,b --kinds c -> [a, b, c]."""
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def memory_from_options(app: AppContext, opts: dict[str, Any]) -> tuple[str, Path, dict[str, str]]:
    """(memory name, evaluation store path, memory options) from the `memory_options` block."""
    memory = opts["memory"]
    if memory != "http" and (opts.get("memory_url") or opts.get("memory_token_env")):
        raise BadInput("--memory-url and --memory-token-env apply only with --memory http", field="memory")
    store = opts.get("memory_store") or app.memory_store_dir / f"{memory}.sqlite"
    memory_options: dict[str, str] = {}
    if opts.get("memory_url"):
        memory_options["url"] = opts["memory_url"]
    if opts.get("memory_token_env"):
        register_secret_env(opts["memory_token_env"])
        memory_options["token_env"] = opts["memory_token_env"]
    return memory, store, memory_options


def settings_from_options(app: AppContext, opts: dict[str, Any]) -> RunSettings:
    memory, store, memory_options = memory_from_options(app, opts)
    return RunSettings(
        memory=memory, memory_store=store, memory_options=memory_options, k=opts["k"],
        token_budget=opts.get("token_budget"), protocol=opts["protocol"], agent_model=opts.get("agent_model"),
        judge_model=opts.get("judge_model"), base_url=opts.get("base_url"), api_key_env=opts["api_key_env"],
        concurrency=opts["concurrency"], prepare=opts["prepare"], keep=opts["keep"], timeout=opts["timeout"],
        max_attempts=opts["max_attempts"], backoff_base=opts["backoff_base"],
    )
