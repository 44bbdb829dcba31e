"""What benchledger ships for people who test against it: the contracts its own systems pass.

`benchledger.testing.memory_contract.MemoryContract` is the one contract every memory system,
built-in or plug-in, must pass (pytest test cases: subclass it and provide a `memory_factory`
fixture); `benchledger.testing.live` runs it against a live HTTP server (`benchledger check-memory
URL`). It needs pytest (`pip install 'benchledger[testing]'`); nothing else in benchledger
imports this package (that command imports it only when it runs).
"""

from __future__ import annotations

__all__: list[str] = []
