"""A benchmark run: the stages that call adapters and record each step as events.

`start_run` plans, prepares (ingest, build, verify), asks every question (recall as the asking
user, answer from that context only, judge against gold) and purges; `resume_run` continues an
interrupted run from its events ("planned minus recorded"). Every function here appends to the
ledger; none computes a score: scores are projections.
"""

from ledger.run.settings import RunSettings

__all__ = ["RunSettings"]
