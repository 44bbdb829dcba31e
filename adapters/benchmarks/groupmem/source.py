"""Where GroupMemBench comes from: the question sets and prompts of the CoalMem repository at a commit
(each file pinned by SHA-256 in `pins.json`), and the message corpus of each domain from the Hugging
Face hub, whose SHA-256 no public source states (listed unpinned: a run of it is diagnostic).

The files land as `run groupmem CORPUS_DIR` reads them: `questions/<Domain>/<kind>.jsonl`,
`prompts/`, `data/final/<Domain>/synthetic_domain_channels_rolevariants_<Domain>.json`. The prompts
are plain files already: nothing is derived.
"""

from __future__ import annotations

from benchledger.adapters.sources.spec import ReleaseSource
from benchledger.pins import PinTable

__all__ = ["PINS", "SOURCE", "HUB_DATASET", "DOMAINS"]

HUB_DATASET = "kimperyang/GroupMemBench"
DOMAINS = ("Finance", "Healthcare", "Manufacturing", "Technology")
PINS = PinTable.packaged(__package__, "pins.json", "GroupMemBench")
SOURCE = ReleaseSource(PINS, run_path=".")
