"""RunSettings: what a user chose for a run, validated once, recorded (without secrets) on RunStarted."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RunSettings"]


class RunSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    memory: str = "sqlite"
    """Memory system name from the registry."""
    memory_store: Path
    """The evaluation store file for the memory system."""
    memory_options: dict[str, str] = Field(default_factory=dict)
    k: int = Field(default=10, ge=1)
    token_budget: int | None = Field(default=None, ge=1)
    protocol: Literal["reference", "typed"] = "reference"
    agent_model: str | None = None
    judge_model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = Field(default=4, ge=1, le=256)
    prepare: bool = True
    keep: bool = False
    batch_size: int = Field(default=1000, ge=1)
    timeout: float = Field(default=60.0, gt=0)
    max_attempts: int = Field(default=6, ge=1)
    backoff_base: float = Field(default=0.5, gt=0)
    """First retry wait in seconds (doubling, with jitter; never shorter than a Retry-After)."""
