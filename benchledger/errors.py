"""Typed errors, translated to one CLI line in one place (`benchledger.cli.main`).

Every error carries the exit code the CLI should use and a message that says what to do next.
Code never branches on an error's text.
"""

from __future__ import annotations

__all__ = [
    "BenchledgerError", "BadInput", "LedgerError", "NotALedger", "RunNotFound", "AmbiguousRun",
    "ConcurrencyConflict", "RunAborted", "RunIncomplete", "RunBusy", "RunSealed", "CheckFailed", "CorpusChanged",
    "NotAnEvaluationStore", "LedgerCorrupt", "LedgerWriteFailed", "VerificationFailed", "UnknownScorer",
    "UnknownScoringRule",
]


class BenchledgerError(Exception):
    exit_code = 1


class BadInput(BenchledgerError):
    """Bad usage or bad input: one line naming file, line and field."""

    exit_code = 2

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.file, self.line, self.field, self.detail = file, line, field, message
        where = ""
        if file:
            where = f"{file}:{line}" if line is not None else f"{file}"
        parts = [p for p in (where, f"field '{field}'" if field else "", message) if p]
        super().__init__(": ".join(parts))


class UnknownScorer(BadInput):
    """A report was asked under a scorer the run (as far as it was folded) does not hold."""

    def __init__(self, run_id: str, scorer_id: str, *, known: tuple[str, ...]) -> None:
        super().__init__(f"run {run_id} has no scorer {scorer_id!r} (its scorers: {', '.join(known) or 'none'}); "
                         f"see `benchledger events {run_id} --type ScorerStarted`", field="scorer")
        self.run_id, self.scorer_id = run_id, scorer_id


class UnknownScoringRule(BadInput):
    """A report was asked under a scoring rule this version does not define."""

    def __init__(self, rule: int, *, known: tuple[int, ...]) -> None:
        super().__init__(f"unknown scoring rule {rule}; known: {list(known)}", field="scoring_rule")
        self.rule = rule


class LedgerError(BenchledgerError):
    exit_code = 1


class NotALedger(LedgerError):
    exit_code = 2


class RunNotFound(LedgerError):
    exit_code = 2


class AmbiguousRun(LedgerError):
    exit_code = 2


class LedgerCorrupt(LedgerError):
    """SQLite cannot read the ledger file (a damaged page, a truncated file)."""


class LedgerWriteFailed(LedgerError):
    """The ledger file could not be written (disk full, read-only file or mount, I/O error)."""


class ConcurrencyConflict(LedgerError):
    """Another writer took the same position; the append should be retried."""


class RunAborted(BenchledgerError):
    """The run stopped before scoring (e.g. the memory did not hold the corpus)."""

    def __init__(self, message: str, *, run_id: str | None = None) -> None:
        super().__init__(message)
        self.run_id = run_id


class RunIncomplete(BenchledgerError):
    """The run finished, but not every planned question was judged (operational failures): resume it."""

    exit_code = 3


class RunSealed(LedgerError):
    """An append to a finished run that joins no segment opened by its own event; nothing written."""


class RunBusy(BenchledgerError):
    """Another process is writing this run right now."""


class CheckFailed(BenchledgerError):
    """verify or check found a problem."""


class VerificationFailed(CheckFailed):
    """A read that checks found the ledger changed; `first_bad_seq` and `problem` say where and how."""

    def __init__(self, message: str, *, first_bad_seq: int | None = None, problem: str = "") -> None:
        super().__init__(message)
        self.first_bad_seq, self.problem = first_bad_seq, problem


class CorpusChanged(BenchledgerError):
    """resume found a different corpus fingerprint on disk."""

    exit_code = 2


class NotAnEvaluationStore(BenchledgerError):
    """purge or reset asked of a store not marked for evaluation."""

    exit_code = 2
