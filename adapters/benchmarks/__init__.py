"""Benchmark adapters: released corpora validated into `Dataset`s."""

from adapters.benchmarks.base import Criterion, Dataset, Document, Prompts, Question

__all__ = ["Criterion", "Dataset", "Document", "Prompts", "Question"]
