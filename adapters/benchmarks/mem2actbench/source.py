"""Where Mem2ActBench comes from: github.com/Cantaloupe-M/Mem2ActBench at the commit independent loaders pin.

The release is the six files of its two split folders, listed in the pin table (`pins.json`) as
unpinned: no pin can be known here (this project has seen no file of the release, and GitHub
publishes no hash for a file). `benchledger fetch mem2actbench` takes the pinned commit's files as
they arrive and records their SHA-256 in the receipt (what a later fetch, or a third party holding a
copy, compares with); `official_release` stays unmet and says why.
"""

from __future__ import annotations

from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.pins import PinTable

__all__ = ["REPOSITORY", "COMMIT", "PINS", "SOURCE"]

REPOSITORY = "Cantaloupe-M/Mem2ActBench"
COMMIT = "b00726940b5abbe9bd324bdd7a2cb272f5c62a29"
PINS = PinTable.packaged(__package__, "pins.json", "Mem2ActBench")
SOURCE = ReleaseSource(PINS, run_path=".")
