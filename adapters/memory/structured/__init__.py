"""The structure-aware memory system, registered as `structured` (see `system` for the design)."""

from benchledger.adapters.memory.structured.ranking import RankingOptions
from benchledger.adapters.memory.structured.system import StructuredMemory

__all__ = ["StructuredMemory", "RankingOptions"]
