"""Reload the dataset a run used from what RunStarted recorded (resume needs the same corpus).

One entry per benchmark maps the recorded config (corpus path, subset, kinds, limits) back to the
adapter call that produced it; resume then compares fingerprints and refuses a changed corpus.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.errors import BadInput

__all__ = ["reload_dataset", "LOADERS"]


def _groupmem(cfg) -> Dataset:
    from benchledger.adapters.benchmarks.groupmem.loader import load_groupmem

    return load_groupmem(Path(cfg.corpus_path), cfg.subset, kinds=list(cfg.kinds) or None,
                         message_limit=cfg.message_limit, question_limit=cfg.question_limit)


def _locomo(cfg) -> Dataset:
    from benchledger.adapters.benchmarks.locomo.loader import load_locomo

    conversations = cfg.extra.get("conversation_ids")
    return load_locomo(Path(cfg.corpus_path), categories=list(cfg.kinds) or None,
                       question_limit=cfg.question_limit,
                       conversation_ids=conversations.split(",") if conversations else None)


def _longmemeval(cfg) -> Dataset:
    from benchledger.adapters.benchmarks.longmemeval.loader import load_longmemeval

    return load_longmemeval(Path(cfg.corpus_path), question_limit=cfg.question_limit)


def _memora(cfg) -> Dataset:
    from benchledger.adapters.benchmarks.memora.loader import load_memora

    return load_memora(Path(cfg.corpus_path), split=cfg.subset)  # type: ignore[arg-type]


LOADERS: dict[str, Callable[..., Dataset]] = {
    "GroupMemBench": _groupmem, "LoCoMo": _locomo, "LongMemEval": _longmemeval, "Memora": _memora,
}


def reload_dataset(cfg) -> Dataset:
    """The dataset a run's RunConfig describes, read again from disk."""
    try:
        loader = LOADERS[cfg.benchmark]
    except KeyError:
        raise BadInput(f"no loader for benchmark {cfg.benchmark!r}; known: {', '.join(LOADERS)}",
                       field="benchmark") from None
    return loader(cfg)
