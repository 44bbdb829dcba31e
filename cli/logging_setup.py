"""structlog configuration: a console renderer for people, JSON lines for machines.

Every log line passes through a redaction processor that replaces the value of any secret
environment variable (API keys, bearer tokens) with `***`, so a key can never reach a log even if
an exception message carried it.
"""

from __future__ import annotations

import logging
import os
import sys
import structlog
__all__ = ["configure_logging", "secret_values", "redact", "register_secret_env"]

_SECRET_ENVS: set[str] = {"OPENAI_API_KEY"}


def register_secret_env(name: str) -> None:
    """Treat the value of environment variable `name` as a secret from now on."""
    _SECRET_ENVS.add(name)


def secret_values() -> list[str]:
    values = [os.environ.get(name, "") for name in _SECRET_ENVS]
    return sorted({v for v in values if len(v) >= 4}, key=len, reverse=True)


def redact(text: str) -> str:
    """Replace every known secret value in `text` with ***."""
    for value in secret_values():
        text = text.replace(value, "***")
    return text


def _redact_processor(_logger, _name, event_dict):
    return {key: redact(val) if isinstance(val, str) else val for key, val in event_dict.items()}


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
