"""Provenance for RunStarted: package version, git commit and dirty flag, Python, platform."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

from benchledger import __version__
from benchledger.ledger.events import Provenance

__all__ = ["collect_provenance"]

_REPO = Path(__file__).resolve().parents[1]


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(_REPO), *args], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def collect_provenance() -> Provenance:
    commit = _git("rev-parse", "HEAD")
    dirty = None
    if commit:
        status = _git("status", "--porcelain", "--untracked-files=no")
        dirty = bool(status) if status is not None else None
    return Provenance(
        package_version=__version__, git_commit=commit, git_dirty=dirty,
        python=sys.version.split()[0], platform=platform.platform(),
    )
