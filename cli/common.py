"""What commands share: the application context, opening the ledger, option blocks, output.

Option blocks are defined once here and applied as decorators, so flag names match the library's
argument names and never drift between commands.

Every `--out` is an `OutputFile`: the path is checked as it is parsed, after the group chose the
ledger and before the command does any work, and refused when it would land on the ledger or on
any SQLite file (`benchledger.files.check_output`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import click

if TYPE_CHECKING:
    from benchledger.ledger.store import Ledger

__all__ = ["AppContext", "open_ledger", "pass_app", "json_option", "echo_json",
           "run_argument", "OutputFile"]


@dataclass
class AppContext:
    ledger_path: Path
    log_format: str = "console"
    verbosity: int = 0
    ledger_url: str | None = None
    """A `postgresql://` URL when the ledger is shared on a server (`ledger_path` is then unused)."""

    @classmethod
    def for_ledger(cls, target: str, **options: Any) -> AppContext:
        """The context for `--ledger PATH|URL`."""
        from benchledger.ledger.store import is_url

        if is_url(target):
            return cls(ledger_path=Path("benchledger.db"), ledger_url=target, **options)
        return cls(ledger_path=Path(target), **options)

    @property
    def ledger_target(self) -> Path | str:
        """What `Ledger.open` takes: the URL of a shared ledger, else the file's path."""
        return self.ledger_url or self.ledger_path

    @property
    def memory_store_dir(self) -> Path:
        """Evaluation memory stores live beside the ledger, one file per system (in the current
        folder, as `benchledger.memory`, for a ledger on a server: never named after its URL)."""
        if self.ledger_url is not None:
            return Path("benchledger.memory")
        return self.ledger_path.with_name(self.ledger_path.stem + ".memory")


pass_app = click.make_pass_decorator(AppContext)


class OutputFile(click.Path):
    """A file an output is written to, never the ledger nor any SQLite database (exit 2 at parse)."""

    def __init__(self, *, allow_analysis: bool = False) -> None:
        super().__init__(dir_okay=False, path_type=Path)
        self.allow_analysis = allow_analysis

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from benchledger.files import check_output

        path = Path(os.fsdecode(super().convert(value, param, ctx)))
        app = ctx.find_object(AppContext) if ctx is not None else None
        ledger = app.ledger_path if app is not None and app.ledger_url is None else None
        check_output(path, ledger=ledger, allow_analysis=self.allow_analysis)
        return path


def open_ledger(ctx_or_app: click.Context | AppContext, *, create: bool = True) -> Ledger:
    """Open the ledger the user selected (--ledger PATH|URL, $BENCHLEDGER_LEDGER, ./benchledger.db)."""
    from benchledger.ledger.store import Ledger

    app = ctx_or_app if isinstance(ctx_or_app, AppContext) else ctx_or_app.find_object(AppContext)
    assert app is not None, "a command runs under the benchledger group, which makes the AppContext"
    if app.ledger_url is not None:  # a ledger on a server is never created by opening it
        return Ledger.open(app.ledger_url, create=create)
    if not create and not app.ledger_path.exists():
        from benchledger.errors import NotALedger

        raise NotALedger(
            f"no ledger at {app.ledger_path}; run a benchmark first or pass --ledger PATH"
        )
    return Ledger.open(app.ledger_path, create=create)


def json_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(fn)


def run_argument(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.argument("run_ref", metavar="RUN")(fn)


def echo_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, sort_keys=False, default=str, ensure_ascii=False))


def is_loopback(host: str) -> bool:
    """Whether `host` names only this machine (127.0.0.0/8, ::1, localhost): what a server command may
    bind without saying it exposes anything."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops a serving command as Ctrl-C does (its `finally` runs), in the main thread; the
    previous handler is put back after. (uvicorn re-raises the SIGTERM it caught once it has stopped.)"""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
