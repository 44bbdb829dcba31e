"""How an in-process memory system groups a scope's documents into the units it extracts from.

`granularity` is a memory option of mem0 and Graphiti: 'message' (one document a unit), 'session'
(a channel's consecutive documents) or N (at most N consecutive documents of a channel). The
build batches are cut back to whole groups so a unit never spans two batches. This module needs
no optional extra: each system's adapter imports it, and `benchledger[graphiti]` works without mem0.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from benchledger.adapters.benchmarks.base import Document
from benchledger.errors import BadInput

__all__ = ["parse_granularity", "whole_groups", "build_batches", "groups_of"]


def parse_granularity(value: str) -> int | str:
    """'message', 'session' or a positive integer N (messages per extraction call)."""
    if value in ("message", "session"):
        return value
    if value.isdigit() and int(value) >= 1:
        return int(value)
    raise BadInput(f"granularity must be 'message', 'session' or a positive integer, got {value!r}",
                   field="granularity")


def whole_groups(documents: list[Document], granularity: int | str) -> int:
    """How many leading documents end on a group's edge: a full batch leaves its last channel run
    (session or N-message groups) for the next batch, which may continue it (0: one run fills it)."""
    if granularity == "message" or not documents:
        return len(documents)
    last = documents[-1].channel
    keep = len(documents)
    while keep and documents[keep - 1].channel == last:
        keep -= 1
    return keep


def build_batches(documents: Sequence[Document], batch_size: int, granularity: int | str) -> list[list[Document]]:
    """The batches `StoredMemory.build` makes of a scope's pending documents: `batch_size` at a time,
    a full one cut back to its last whole group (`whole_groups`)."""
    batches, start = [], 0
    while start < len(documents):
        batch = list(documents[start:start + batch_size])
        if len(batch) == batch_size:
            batch = batch[:whole_groups(batch, granularity) or len(batch)]
        batches.append(batch)
        start += len(batch)
    return batches


def groups_of(batch: list[Document], granularity: int | str) -> list[list[Document]]:
    """The batch's extraction units, in order."""
    if granularity == "message":
        return [[doc] for doc in batch]
    groups: list[list[Document]] = []
    for _, run in groupby(batch, key=lambda doc: doc.channel):
        run_docs = list(run)
        size = len(run_docs) if granularity == "session" else int(granularity)
        groups += [run_docs[i:i + size] for i in range(0, len(run_docs), size)]
    return groups
