"""Memory systems under test: the protocol, the evaluation store guard, and the registry."""

from benchledger.adapters.memory.protocol import Candidate, MemorySystem, ScopeState, estimate_tokens

__all__ = ["Candidate", "MemorySystem", "ScopeState", "estimate_tokens"]
