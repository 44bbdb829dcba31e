"""What both third-party checks share: the check's id, who made it, and its one append to the run.

A check (`source_check`, `spot_check`) does its work first (downloads, model calls) with nothing
written, then appends one event under the run's writer lock, numbered there (`c1`, `c2`, ... across
both kinds), so two checkers never file under one id. The event is housekeeping to the seal
(`ledger.events.checks`): a finished run takes it, and it opens no segment. The run's saved views
are saved again after it, as a rejudge does, so `verify` finds them current.
"""

from __future__ import annotations

import getpass
from collections.abc import Callable

from benchledger.errors import ConcurrencyConflict
from benchledger.ledger.events.checks import SourceChecked, SpotChecked
from benchledger.ledger.recorder import Recorder
from benchledger.orchestration.rejudge import save_views
from benchledger.projections.state import fold_run

__all__ = ["checker_name", "append_check"]


def checker_name(given: str | None) -> str:
    """Who checks, as they name themselves (`--by`), else the local user name: a claim, recorded as one."""
    if given:
        return given.strip()
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return "unnamed"


def append_check(ledger: Recorder, run_id: str, make: Callable[[str], SourceChecked | SpotChecked]) -> str:
    """Append the check `make(check_id)` builds, under the next id of the run; returns the id."""
    with ledger.writer.run_writer(run_id):
        state = fold_run(run_id, ledger.reader.events(run_id))
        check_id = f"c{len(state.checks) + 1}"
        if not ledger.writer.append(run_id, [make(check_id)]):
            raise ConcurrencyConflict(f"check {check_id} of run {run_id} was recorded by another process; retry")
        save_views(ledger, run_id)
    return check_id
