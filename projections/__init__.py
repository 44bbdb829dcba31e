"""Projections: pure, versioned folds from a run's events to the values people read.

Nothing here reads a file, a clock or a memory system: every function takes the run's stored
events (anything with `.event`, `.hash`, `.seq`, `.position`) and returns a value, so any report can
be rebuilt from zero, to any point, by anyone holding the ledger.
"""

from benchledger.projections.report import PROJECTION_VERSIONS, Report, build_report
from benchledger.projections.state import QuestionState, RunState, fold_run

__all__ = ["PROJECTION_VERSIONS", "Report", "build_report", "QuestionState", "RunState", "fold_run"]
