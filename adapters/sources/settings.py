"""Where fetched releases live and where they are fetched from: one typed settings object.

The base URLs are settings so that a test (or a mirror) serves the same paths from elsewhere: the
GitHub raw-file host (`BENCHLEDGER_GITHUB_RAW`) and the Hugging Face hub (`HF_ENDPOINT`, the variable
`huggingface_hub` itself honours). Fetched releases go under a per-user data folder (platformdirs'
`user_data_dir`, or `BENCHLEDGER_DATA_DIR`), one folder per benchmark command. A pin is never a
setting: what a file must hash to is declared in the benchmark's folder only.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
from pydantic import BaseModel, ConfigDict

__all__ = ["FetchSettings", "DEFAULT_GITHUB_RAW", "DEFAULT_HUB", "data_dir", "release_dir"]

DEFAULT_GITHUB_RAW = "https://raw.githubusercontent.com"
DEFAULT_HUB = "https://huggingface.co"


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

    @classmethod
    def from_env(cls, *, github_raw: str | None = None, hub: str | None = None) -> FetchSettings:
        return cls(github_raw=(github_raw or os.environ.get("BENCHLEDGER_GITHUB_RAW") or DEFAULT_GITHUB_RAW).rstrip("/"),
                   hub=(hub or os.environ.get("HF_ENDPOINT") or DEFAULT_HUB).rstrip("/"))
