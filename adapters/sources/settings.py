"""Where fetched releases live and where they are fetched from: one typed settings object.

The base URLs are settings so that a test (or a mirror) serves the same paths from elsewhere: the
GitHub raw-file host (`BENCHLEDGER_GITHUB_RAW`) and the Hugging Face hub (`HF_ENDPOINT`, the variable
`huggingface_hub` itself honours). Fetched releases go under a per-user data folder (platformdirs'
`user_data_dir`, or `BENCHLEDGER_DATA_DIR`), one folder per benchmark command. A pin is never a
setting: what a file must hash to is declared in the benchmark's pin table only.

Every body is capped: at its pinned size, else at the size the source announced for it, else at
`max_download_bytes` (`BENCHLEDGER_FETCH_MAX_BYTES`, 16 GiB by default: LongMemEval's largest file,
2.7 GB, is pinned and capped at its own size anyway).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
from pydantic import BaseModel, ConfigDict, Field

from benchledger.errors import BadInput
from benchledger.pins import GITHUB_RAW, HUB

__all__ = ["FetchSettings", "DEFAULT_GITHUB_RAW", "DEFAULT_HUB", "DEFAULT_MAX_DOWNLOAD_BYTES", "data_dir",
           "release_dir"]

DEFAULT_GITHUB_RAW = GITHUB_RAW
DEFAULT_HUB = HUB
DEFAULT_MAX_DOWNLOAD_BYTES = 16 << 30


def data_dir() -> Path:
    """The per-user folder fetched releases live in."""
    override = os.environ.get("BENCHLEDGER_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir("benchledger", appauthor=False))


def release_dir(command: str) -> Path:
    """Where `benchledger fetch <command>` lays a release out by default, and where `run` looks for it."""
    return data_dir() / "releases" / command


class FetchSettings(BaseModel):
    """The sources' base URLs (never a pin, never a token)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    github_raw: str = DEFAULT_GITHUB_RAW
    """Base URL of raw GitHub files: `<base>/<owner>/<repo>/<commit>/<path>`."""
    hub: str = DEFAULT_HUB
    """Base URL of the Hugging Face hub: `<base>/datasets/<repo>/resolve/<revision>/<path>` and its API."""
    max_download_bytes: int = Field(DEFAULT_MAX_DOWNLOAD_BYTES, gt=0)
    """The most bytes a file whose size neither a pin nor its source states may have."""

    @classmethod
    def from_env(cls, *, github_raw: str | None = None, hub: str | None = None) -> FetchSettings:
        limit = os.environ.get("BENCHLEDGER_FETCH_MAX_BYTES")
        if limit is not None and not (limit.isdigit() and int(limit) > 0):
            raise BadInput(f"must be a positive number of bytes, got {limit!r}", field="BENCHLEDGER_FETCH_MAX_BYTES")
        return cls(github_raw=(github_raw or os.environ.get("BENCHLEDGER_GITHUB_RAW") or DEFAULT_GITHUB_RAW).rstrip("/"),
                   hub=(hub or os.environ.get("HF_ENDPOINT") or DEFAULT_HUB).rstrip("/"),
                   max_download_bytes=int(limit) if limit else DEFAULT_MAX_DOWNLOAD_BYTES)
