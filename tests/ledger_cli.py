"""What CLI tests share: invoking the CLI in-process and reading back a run from ./ledger.db."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from benchledger.cli.main import cli
from benchledger.ledger.store import Ledger

__all__ = ["invoke", "invoke_expecting", "events_of", "conditions", "blob_text"]


def invoke(*args: str, env: dict[str, str] | None = None):
    """`benchledger ARGS` in-process, on the test's own ledger (./ledger.db), exceptions not caught."""
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, env=env)


def invoke_expecting(*args: str, expect: int = 0, env: dict[str, str] | None = None):
    """`invoke`, asserting the exit code (`expect` 3 for a run, resume or rejudge that ends with
    questions unjudged); the output is the assertion's message."""
    result = invoke(*args, env=env)
    assert result.exit_code == expect, result.output
    return result


def events_of(run_id: str) -> list:
    with Ledger.open(Path("ledger.db")) as ledger:
        return [stored.event for stored in ledger.events(run_id)]


def blob_text(digest: str) -> str:
    with Ledger.open(Path("ledger.db")) as ledger:
        return ledger.get_blob(digest).decode()


def conditions(report: dict) -> dict[str, bool]:
    return {c["name"]: c["met"] for c in report["conditions"]}
