"""Purge a run's memory scopes after the fact (a run made with `--keep`), recorded on its ledger.

The scopes, the memory system and its store come from the run's own events; purging goes through
the same leases as a run's end, so a scope another live run still holds is left for it.
"""

from __future__ import annotations

from benchledger.adapters.memory.registry import open_memory
from benchledger.callbacks import Redact, no_redaction
from benchledger.errors import BadInput
from benchledger.ledger.events import Failed, ScopePurged
from benchledger.ledger.recorder import Recorder
from benchledger.redaction import safe_message
from benchledger.orchestration.leases import ScopeLeases
from benchledger.orchestration.resume import recorded_settings
from benchledger.projections.state import fold_run

__all__ = ["purge_run"]


def _purge_run(ledger: Recorder, run_id: str, *, redact: Redact = no_redaction) -> list[ScopePurged]:
    """Purge every scope of the run not purged yet; returns the ScopePurged events recorded."""
    state = fold_run(run_id, ledger.reader.events(run_id))
    if state.started is None or state.corpus is None:
        raise BadInput(f"run {run_id} never fingerprinted a corpus; it has no scope to purge", field="run")
    todo = {key: scope for key, scope in state.corpus.scopes.items() if key not in state.purged}
    if not todo:
        return []
    settings = recorded_settings(state)
    if settings.memory_store is None:
        raise BadInput(f"run {run_id} did not record its memory store, so its scopes cannot be found",
                       field="run")
    memory = open_memory(settings.memory, settings.memory_store, **settings.memory_options)
    leases = ScopeLeases(settings.memory_store)
    recorded: list[ScopePurged] = []
    try:
        for key, scope in todo.items():
            others = leases.release(scope, run_id)
            if others:
                event = ScopePurged(scope_key=key, scope=scope, documents_removed=0, kept_for_runs=tuple(others),
                                    preparation=state.preparation)
            else:
                try:
                    event = ScopePurged(scope_key=key, scope=scope, documents_removed=memory.purge(scope),
                                        preparation=state.preparation)
                except Exception as err:  # recorded like a run's own purge failure, then raised
                    ledger.writer.append(run_id, [Failed(stage="purge", scope_key=key, error_class=type(err).__name__,
                                                         message=safe_message(redact(str(err))),
                                                         attempt=len(state.resumes) + 1)])
                    raise
            ledger.writer.append(run_id, [event])
            recorded.append(event)
    finally:
        leases.close()
        memory.close()
    return recorded


def purge_run(ledger: Recorder, run_id: str, *, redact: Redact = no_redaction) -> list[ScopePurged]:
    """Purge every scope of the run not purged yet, holding the run's writer lock."""
    with ledger.writer.run_writer(run_id):
        return _purge_run(ledger, run_id, redact=redact)
