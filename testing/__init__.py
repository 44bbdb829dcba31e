"""What benchledger ships for people who test against it: the contracts its own systems pass.

`benchledger.testing.memory_contract.MemoryContract` is the one contract every memory system,
built-in or plug-in, must pass (pytest test cases: subclass it and provide a `memory_factory`
fixture). It needs pytest (`pip install 'benchledger[testing]'`); nothing else in benchledger
imports this package.
"""

from __future__ import annotations

__all__: list[str] = []
