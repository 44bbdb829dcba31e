"""Orchestration: the runs that call adapters and record each step on the ledger.

`run_dataset` (session) plans, prepares (ingest, build, verify), asks every question (recall as
the asking user, answer from that context only, judge against gold) and purges; `resume_run`
continues an interrupted run from its events ("planned minus recorded"); `rejudge_run` adds a
scorer; `purge_run` removes kept scopes; `run_retrieval` records a recall-only run. Every function
here appends to the ledger; none computes a score: scores are projections.
"""

from benchledger.orchestration.settings import RunSettings

__all__ = ["RunSettings"]
