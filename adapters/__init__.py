"""Adapters: what benchledger reads (benchmarks), what it tests (memory systems), what it asks (models).

Each subpackage exposes a small protocol and the implementations that ship in the box. Nothing
here writes to the ledger; the run in `ledger.run` calls adapters and records what they did.
"""
