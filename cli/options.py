"""Option blocks shared by every `run` and `retrieval` subcommand (and resume/rejudge), defined once.

Flag names match `RunSettings` field names and every default is read from `RunSettings`
(`benchledger.settings`), so the CLI, resume and library callers share one set of defaults. A
benchmark's selection options are built from its declared selection model: each field becomes an
option named after it (its kinds option after the benchmark's `kind_label`), typed and documented
by the field.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import click
from pydantic.fields import FieldInfo

from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.cli.common import AppContext, OutputFile
from benchledger.errors import BadInput
from benchledger.providers import OPENAI_API_KEY_ENV
from benchledger.settings import Mode, Pacing, RunSettings, Selection, setting_default
from benchledger.redaction import register_secret_env

__all__ = [
    "memory_options", "model_options", "run_options", "k_option", "keep_option", "token_budget_option",
    "setting_range", "prices_option",
    "selection_options",
    "selection_from_options", "memory_from_options", "settings_from_options", "split_csv", "scoring_rule_help",
]

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def _stack(*decorators: Decorator) -> Decorator:
    def apply(fn: Callable[..., Any]) -> Callable[..., Any]:
        for decorator in reversed(decorators):
            fn = decorator(fn)
        return fn
    return apply


def _help(name: str) -> str:
    return RunSettings.model_fields[name].description or ""


def setting_range(name: str) -> click.IntRange:
    """The click type of an integer setting, its limits read from the setting (`ge`, `le`)."""
    metadata = RunSettings.model_fields[name].metadata
    return click.IntRange(next((m.ge for m in metadata if hasattr(m, "ge")), None),
                          next((m.le for m in metadata if hasattr(m, "le")), None))


memory_options = _stack(
    click.option("--memory", default=setting_default("memory"), show_default=True, help=_help("memory")),
    click.option("--memory-url", default=None,
                 help="For --memory http: the server's base URL (see `benchledger serve-memory`)."),
    click.option("--memory-token-env", default=None,
                 help="For --memory http: environment variable holding a bearer token (never recorded)."),
    click.option("--memory-store", type=click.Path(dir_okay=False, path_type=Path), default=None,
                 help="Evaluation store file for the memory system [default: beside the ledger]."),
    click.option("--memory-option", "memory_option", multiple=True, metavar="KEY=VALUE",
                 help="An option of the memory system (repeatable; recorded on the run), e.g. infer=true "
                      "or granularity=session for --memory mem0."),
    click.option("--memory-base-url", default=None,
                 help="For an in-process memory that calls a model (mem0): its OpenAI-compatible endpoint "
                      "[default: benchledger's offline loopback endpoint]."),
    click.option("--memory-key-env", default=None,
                 help="Environment variable holding the key for --memory-base-url (never recorded) "
                      f"[default: {OPENAI_API_KEY_ENV}]."),
)

_RESERVED_MEMORY_OPTIONS = {"url", "token_env", "base_url", "key_env", "labels"}

def _protocol_help(benchmark: Benchmark) -> str:
    meaning = {"reference": "the release's own prompts, passage format and Final: lines",
               "typed": "benchledger's JSON-schema answers and verdicts (always diagnostic)",
               "official": "the benchmark's own evaluation protocol",
               "paper": "the procedure as the benchmark's paper describes it (its authors publish no scorer)"}
    listed = "; ".join(f"{name}: {meaning[name]}" for name in benchmark.protocols)
    return f"{listed} [default: {benchmark.default_protocol}]."


concurrency_option = click.option("--concurrency", type=setting_range("concurrency"),
                                  default=setting_default("concurrency"), show_default=True, help=_help("concurrency"))


def model_options(benchmark: Benchmark) -> Decorator:
    """The model options of `run BENCHMARK`: only those this benchmark reads, its own protocols."""
    offered = benchmark.model_options_offered
    return _stack(
        click.option("--agent-model", default=None, help=_help("agent_model")),
        click.option("--judge-model", default=None, help=_help("judge_model")),
        *([click.option("--judge-models", default=None, help=_help("judge_models") + " Comma-separated.")]
          if "judge_models" in offered else []),
        *([click.option("--prompts-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                        help=_help("prompts_dir"))] if "prompts_dir" in offered else []),
        click.option("--base-url", default=None, envvar="OPENAI_BASE_URL",
                     help="OpenAI-compatible endpoint (also $OPENAI_BASE_URL)."),
        click.option("--api-key-env", default=setting_default("api_key_env"), show_default=True,
                     help=_help("api_key_env")),
        click.option("--cache-from", metavar="RUN", default=None, help=_help("cache_from")),
        click.option("--protocol", type=click.Choice(list(benchmark.protocols)), default=None,
                     help=_protocol_help(benchmark)),
        concurrency_option,
        click.option("--pacing", type=click.Choice(typing.get_args(Pacing)), default=setting_default("pacing"),
                     show_default=True, help=_help("pacing")),
        click.option("--timeout", type=click.FloatRange(min=0.1), default=setting_default("timeout"),
                     show_default=True, help=_help("timeout")),
        click.option("--max-attempts", type=setting_range("max_attempts"), default=setting_default("max_attempts"),
                     show_default=True, help=_help("max_attempts")),
        click.option("--backoff-base", type=click.FloatRange(min=0.01), default=setting_default("backoff_base"),
                     show_default=True, help=_help("backoff_base")),
        click.option("--max-retry-after", type=click.FloatRange(min=0.1),
                     default=setting_default("max_retry_after"), show_default=True, help=_help("max_retry_after")),
        click.option("--max-reply-bytes", type=setting_range("max_reply_bytes"),
                     default=setting_default("max_reply_bytes"), show_default=True, help=_help("max_reply_bytes")),
    )


k_option = click.option("--k", type=setting_range("k"), default=setting_default("k"), show_default=True,
                        help=_help("k"))
keep_option = click.option("--keep", is_flag=True, help=_help("keep"))
token_budget_option = click.option("--token-budget", type=setting_range("token_budget"), default=None,
                                   help=_help("token_budget"))

prices_option = click.option(
    "--prices", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
    help='JSON price table {"MODEL": {"input": USD per 1M tokens, "output": ...}}: dollars per stage and model '
         'from the recorded tokens (and the --dry-run forecast); read now, never recorded in the run.')

run_options = _stack(
    k_option,
    token_budget_option,
    click.option("--prepare/--no-prepare", default=setting_default("prepare"), show_default=True,
                 help=_help("prepare")),
    keep_option,
    click.option("--out", type=OutputFile(), default=None,
                 help="Write the report JSON here."),
    click.option("--dry-run", is_flag=True,
                 help="Print the calls and estimated tokens of each stage (and dollars with --prices), "
                      "then stop: nothing is asked, nothing is written."),
    prices_option,
)


def scoring_rule_help() -> str:
    """One wording of --scoring-rule for every command that offers it."""
    from benchledger.projections.tallies import CURRENT_SCORING_RULE, SCORING_RULES

    return (f"Scoring rule version [default: {CURRENT_SCORING_RULE}, the current one]: "
            + "; ".join(f"{k} = {v}" for k, v in SCORING_RULES.items()))


def split_csv(values: tuple[str, ...]) -> list[str]:
    """--kinds a,b --kinds c -> [a, b, c]."""
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


# -- a benchmark's selection as options ---------------------------------------------------------


def _option_name(benchmark: Benchmark, field: str, info: FieldInfo) -> str:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    if isinstance(extra.get("option"), str):
        return str(extra["option"])
    return benchmark.kind_label if field == "kinds" else field.replace("_", "-")


def _is_list(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (tuple, list)


def _option_for(benchmark: Benchmark, field: str, info: FieldInfo) -> Decorator | None:
    annotation = info.annotation
    if annotation is type(None):  # a shared field this benchmark does not offer
        return None
    name = _option_name(benchmark, field, info)
    help_text = info.description or ""
    if field == "kinds":
        listed = ", ".join(benchmark.kinds) if benchmark.kinds else "see the release"
        help_text = f"{benchmark.kind_label.capitalize()} to ask (comma-separated or repeated): {listed} [default: all]."
    elif field == "question_limit":
        help_text = f"Ask only {benchmark.question_limit_means} (diagnostic)."
    if _is_list(annotation):
        return click.option(f"--{name}", field, multiple=True, help=help_text)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    base = args[0] if isinstance(annotation, types.UnionType) and len(args) == 1 else annotation
    required = info.is_required()
    if typing.get_origin(base) is Literal:
        return click.option(f"--{name}", field, type=click.Choice([str(a) for a in typing.get_args(base)]),
                            required=required, help=help_text)
    if base is int:
        minimum = next((getattr(m, "ge") for m in info.metadata if hasattr(m, "ge")), None)
        return click.option(f"--{name}", field, type=click.IntRange(min=minimum), default=None,
                            required=required, help=help_text)
    return click.option(f"--{name}", field, type=str, required=required, default=None, help=help_text)


def selection_options(benchmark: Benchmark) -> Decorator:
    """The click options of a benchmark's selection fields."""
    fields = benchmark.selection_model.model_fields
    own_first = sorted(fields, key=lambda name: name in Selection.model_fields)  # the benchmark's own first
    options = [option for field in own_first if (option := _option_for(benchmark, field, fields[field])) is not None]
    return _stack(*options)


def selection_from_options(benchmark: Benchmark, opts: dict[str, Any], source: Path | None = None) -> Selection:
    """The benchmark's typed selection from the option values (taken out of `opts`).

    A required option left out is named as the option, with the values the release at `source`
    offers for it where the benchmark can list them (`--domain is required: one of Finance, ...`)."""
    values: dict[str, Any] = {}
    for field, info in benchmark.selection_model.model_fields.items():
        if field not in opts:
            continue
        value = opts.pop(field)
        if _is_list(info.annotation):
            value = tuple(split_csv(value))
        if value is not None and value != ():
            values[field] = value
    for field, info in benchmark.selection_model.model_fields.items():
        if info.is_required() and field not in values:
            choices = benchmark.selection_choices(field, source) if source is not None else ()
            listed = f": one of {', '.join(choices)} in {source}" if choices else ""
            raise BadInput(f"--{_option_name(benchmark, field, info)} is required{listed}")
    return benchmark.selection_of(values)


# -- settings -----------------------------------------------------------------------------------


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
    for given in opts.get("memory_option") or ():
        key, sep, value = given.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key.isidentifier() or not value:
            raise BadInput(f"--memory-option takes KEY=VALUE, got {given!r}", field="memory-option")
        if key in _RESERVED_MEMORY_OPTIONS:
            raise BadInput(f"--memory-option {key} is set by its own flag, not by --memory-option",
                           field="memory-option")
        memory_options[key] = value
    if opts.get("memory_base_url"):
        memory_options["base_url"] = opts["memory_base_url"]
    if opts.get("memory_key_env"):
        register_secret_env(opts["memory_key_env"])
        memory_options["key_env"] = opts["memory_key_env"]
    return memory, store, memory_options


def settings_from_options(app: AppContext, opts: dict[str, Any], *, mode: Mode = "qa") -> RunSettings:
    """RunSettings from the option blocks; options a command does not offer keep their defaults."""
    memory, store, memory_options = memory_from_options(app, opts)
    given = {name: opts[name] for name in RunSettings.model_fields if name in opts and opts[name] is not None}
    if isinstance(given.get("judge_models"), str):
        given["judge_models"] = tuple(split_csv((given["judge_models"],)))
    given.update(mode=mode, memory=memory, memory_store=store, memory_options=memory_options)
    return RunSettings.model_validate(given)
