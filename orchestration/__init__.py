"""Orchestration: the runs that call adapters and record each step on the ledger.

`run_dataset` (session) plans, prepares (ingest, build, verify), asks every question (recall as
the asking user, answer from that context only, judge against gold) and purges; `resume_run`
continues an interrupted run from its events ("planned minus recorded"); `rejudge_run` adds a
scorer; `purge_run` removes kept scopes. A retrieval run is the same pipeline in retrieval mode
(recall only). Every function here appends to the ledger; none computes a score: scores are
projections, and `reports` folds them under each run's benchmark's conditions.
"""
