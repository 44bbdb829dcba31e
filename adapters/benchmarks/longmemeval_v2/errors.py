"""Where the official code raises: `OfficialError` names the exception type the official code raised.

The official harness lets any exception in scoring (or an empty reader reply) end the whole run. Here
the same rule raises `OfficialError` (the conformance checks compare its `official_type`), and a live
run turns it into `OfficialRunAbort`, an operational failure of that one question: the run goes on,
and the message says how the official harness would have ended.
"""

from __future__ import annotations

from benchledger.adapters.models.base import ModelParseError

__all__ = ["OfficialError", "OfficialRunAbort", "aborts"]


class OfficialError(Exception):
    """What the official code raises at this point: its exception type and message."""

    def __init__(self, official_type: str, message: str, eval_return: object = None) -> None:
        super().__init__(message)
        self.official_type = official_type
        self.message = message
        self.eval_return = eval_return
        """What the eval function returned when the raise came after it (a non-binary score)."""


class OfficialRunAbort(ModelParseError):
    """One question's Failed: the official harness would have aborted the whole run here."""


def aborts(err: OfficialError, stage: str) -> OfficialRunAbort:
    """The Failed-stage error for an official raise: what was raised, and what the harness does then."""
    return OfficialRunAbort(f"the official harness would abort the whole run at {stage} "
                            f"({err.official_type}: {err.message}); benchledger records this question as "
                            f"Failed and goes on")
