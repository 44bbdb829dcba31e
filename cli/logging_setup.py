"""structlog configuration: a console renderer for people, JSON lines for machines.

Every log line passes through a processor that applies the one redaction
(`benchledger.redaction.redact`: registered secret variables, Authorization values, bearer
tokens, `sk-` keys, URL credentials) to every text in the event, nested ones included, so a key
can never reach a log even if an exception message carried it.
"""

from __future__ import annotations

import logging
import sys

import structlog

from benchledger.redaction import redact

__all__ = ["configure_logging"]


def _redacted(value):
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _redacted(item) for key, item in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_redacted(item) for item in value)
    return value


def _redact_processor(_logger, _name, event_dict):
    return _redacted(event_dict)


def configure_logging(log_format: str = "console", verbosity: int = 0) -> None:
    # Machines reading JSON get progress and stage events by default; people get warnings only.
    base = logging.INFO if log_format == "json" else logging.WARNING
    level = max(logging.DEBUG, base - 10 * min(verbosity, 2))
    renderer = (
        structlog.processors.JSONRenderer()
        if log_format == "json"
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            _redact_processor,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
