"""The structure-aware memory system, registered as `structured` (see `system` for the design)."""

from adapters.memory.structured.ranking import RankingOptions
from adapters.memory.structured.system import StructuredMemory

__all__ = ["StructuredMemory", "RankingOptions"]
