"""Where LongMemEval-V2 comes from: the gated Hugging Face dataset `xiaowu0162/longmemeval-v2` (the user's
own HF_TOKEN). No public source states the SHA-256 of its files, so its pin table (`pins.json`) lists
them unpinned: a run of it says `no pin for questions.jsonl` and is diagnostic, however it was fetched.

The official prompt texts are not derived at fetch time: the official code's files
(xiaowu0162/LongMemEval-V2 @ be15ea6e) have no SHA-256 this project has seen, and `fetch` reads
templates only out of pinned code. They are read from `--prompts-dir`
(`../shared/data/longmemeval-v2/prompts`), pinned by SHA-256 like every official template. The
screenshot archives (`trajectory_screenshots/*.tar.gz`) are not fetched: the official
`data/prepare_data.py` extracts them into `screenshots/`, whose layout inside the archives is not
known here; without them a run sends no images.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.longmemeval_v2.prompts import TEMPLATE_SHA256
from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.pins import PinTable

__all__ = ["PINS", "SOURCE", "HUB_DATASET", "RELEASE_FILES"]

HUB_DATASET = "xiaowu0162/longmemeval-v2"
RELEASE_FILES = ("questions.jsonl", "trajectories.jsonl", "haystacks/lme_v2_small.json",
                 "haystacks/lme_v2_medium.json")

PINS = PinTable.packaged(__package__, "pins.json", "LongMemEval-V2")
SOURCE = ReleaseSource(PINS, run_path=".", template_pins=TEMPLATE_SHA256, gated=frozenset({HUB_DATASET}))
