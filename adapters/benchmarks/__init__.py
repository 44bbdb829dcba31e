"""Benchmark adapters: released corpora validated into `Dataset`s."""

from benchledger.adapters.benchmarks.base import Criterion, Dataset, Document, Prompts, Question

__all__ = ["Criterion", "Dataset", "Document", "Prompts", "Question"]
