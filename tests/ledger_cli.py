"""What the end-to-end tests of official runs share: invoking the CLI and reading back a run."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from benchledger.cli.main import cli
from benchledger.ledger.store import Ledger

__all__ = ["invoke", "events_of", "conditions", "blob_text"]


def invoke(*args: str):
    """`benchledger ARGS` in-process, on the test's own ledger (./ledger.db)."""
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def events_of(run_id: str) -> list:
    with Ledger.open(Path("ledger.db")) as ledger:
        return [stored.event for stored in ledger.events(run_id)]


def blob_text(digest: str) -> str:
    with Ledger.open(Path("ledger.db")) as ledger:
        return ledger.get_blob(digest).decode()


def conditions(report: dict) -> dict[str, bool]:
    return {c["name"]: c["met"] for c in report["conditions"]}
