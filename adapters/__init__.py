"""Adapters: what benchledger reads (benchmarks), what it tests (memory systems), what it asks (models).

Each subpackage exposes a small protocol and the implementations that ship in the box. Nothing
here writes to the ledger; the runs in `benchledger.orchestration` call adapters and record what
they did.
"""
