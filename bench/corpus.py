"""Synthetic GroupMemBench releases shared by the benchmarks of one `python -m benchledger.bench` process.

A release is written once per size with `benchledger synth groupmem`'s library call into a
temporary folder that lives as long as the process, and loaded once through the real adapter,
so every benchmark measures the same corpus and questions a user's run would read.
`with_questions` repeats a release's questions under new ids when a benchmark needs more of them
than a synthetic domain holds (at most 40 per kind).
"""

from __future__ import annotations

import atexit
import tempfile
from functools import lru_cache
from pathlib import Path

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.groupmem.loader import load_groupmem
from benchledger.adapters.benchmarks.groupmem.synth import synthesize_groupmem

__all__ = ["DOMAIN", "scratch_dir", "synth_release", "synth_dataset", "with_questions"]

DOMAIN = "Synth"


@lru_cache(maxsize=1)
def scratch_dir() -> Path:
    """A temporary folder removed when the process exits."""
    folder = tempfile.TemporaryDirectory(prefix="benchledger-bench-")
    atexit.register(folder.cleanup)
    return Path(folder.name)


@lru_cache(maxsize=None)
def synth_release(messages: int) -> Path:
    """The folder of a synthetic release with `messages` messages in one domain."""
    out = scratch_dir() / f"synth-{messages}"
    synthesize_groupmem(out, messages=messages, domains=(DOMAIN,))
    return out


@lru_cache(maxsize=None)
def synth_dataset(messages: int) -> Dataset:
    """That release loaded by the GroupMemBench adapter (every question, every message)."""
    return load_groupmem(synth_release(messages), DOMAIN)


def with_questions(dataset: Dataset, count: int) -> Dataset:
    """The dataset with exactly `count` questions: its own, then repeats under new ids.

    A repeat's text carries its round (" (repeat 2)") so its prompts differ and the response
    cache cannot answer it: every question costs its two model calls.
    """
    own = dataset.questions
    questions = list(own[:count])
    for i in range(len(own), count):
        original, round_ = own[i % len(own)], i // len(own) + 1
        questions.append(original.model_copy(update={
            "question_id": f"{original.question_id}~{round_}",
            "text": f"{original.text} (repeat {round_})",
        }))
    return dataset.model_copy(update={"questions": tuple(questions)})
