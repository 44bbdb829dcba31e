"""What CLI tests share: invoking the CLI in-process and reading back a run from ./ledger.db."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from benchledger.cli.main import cli
from benchledger.ledger.store import Ledger

__all__ = ["invoke", "invoke_expecting", "events_of", "conditions", "blob_text"]


def invoke(*args: str, env: dict[str, str] | None = None, ledger: Path | str | None = None,
           catch_exceptions: bool = False):
    """`benchledger ARGS` in-process, on the test's own ledger (./ledger.db) unless `ledger` names
    another (`--ledger LEDGER ARGS`: a file or a PostgreSQL URL). Exceptions are not caught, so a
    traceback fails the test, unless `catch_exceptions` lets it check `result.exception` itself.

    Output is read as a script reads it, whole lines (`COLUMNS=0`), unless `env` sets COLUMNS: a pipe
    otherwise gets 100 columns (`benchledger.tables.output_width`), which the width tests check."""
    argv = ["--ledger", str(ledger), *args] if ledger else list(args)
    env = {"COLUMNS": "0", **(env or {})}
    return CliRunner().invoke(cli, argv, catch_exceptions=catch_exceptions, env=env)


def invoke_expecting(*args: str, expect: int = 0, env: dict[str, str] | None = None,
                     ledger: Path | str | None = None):
    """`invoke`, asserting the exit code (`expect` 3 for a run, resume or rejudge that ends with
    questions unjudged); the output is the assertion's message."""
    result = invoke(*args, env=env, ledger=ledger)
    assert result.exit_code == expect, result.output
    return result


def events_of(run_id: str) -> list:
    with Ledger.open(Path("ledger.db")) as ledger:
        return [stored.event for stored in ledger.reader.events(run_id)]


def blob_text(digest: str) -> str:
    with Ledger.open(Path("ledger.db")) as ledger:
        return ledger.reader.get_blob(digest).decode()


def conditions(report: dict) -> dict[str, bool]:
    return {c["name"]: c["met"] for c in report["conditions"]}
