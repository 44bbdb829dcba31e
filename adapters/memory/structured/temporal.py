"""Time in the structured memory: turns that date something, and dates a question names.

A "when" question is best answered by the turn that says when ("yesterday", "last Friday",
"next month", "in 2022"), so `has_time_cue` marks such turns at build time. A question that names
a date ("as mentioned on 3 June, 2023", "in July") is matched against the time of each turn
(LoCoMo gives its session's date-time, GroupMemBench each message's timestamp) by
`dates_named` and `date_closeness`: the more components agree, the closer.
"""

from __future__ import annotations

import re
from datetime import datetime

from benchledger.adapters.memory.structured.analysis import tokenize

__all__ = ["MONTHS", "has_time_cue", "dates_named", "date_closeness"]

NamedDate = tuple[int | None, int | None, int | None]
"""(year, month, day), None where the question does not say."""

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RELATIVE_TIME = ("yesterday", "today", "tonight", "tomorrow", "ago", "last", "next", "recently",
                  "weekend", "week", "month", "year", "morning", "evening", "night", "earlier",
                  "later", "since", "before", "after", "soon")
_YEAR_WORD = re.compile(r"^(19|20)\d\d$")
_TIME_CUE_WORDS = frozenset(MONTHS + _WEEKDAYS + _RELATIVE_TIME)


def has_time_cue(text: str) -> bool:
    """True when the text dates something: a weekday, month, year or relative time word."""
    return any(w in _TIME_CUE_WORDS or _YEAR_WORD.match(w) for w in tokenize(text))


_MONTH = "(" + "|".join(MONTHS) + ")"
_DATE_FORMS = (  # most specific first; each yields (day, month, year) groups by name
    re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH},? (?P<year>\d{{4}})\b"),
    re.compile(rf"\b{_MONTH} (?P<day>\d{{1,2}})(?:st|nd|rd|th)?,? (?P<year>\d{{4}})\b"),
    re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH}\b"),
    re.compile(rf"\b{_MONTH},? (?P<year>\d{{4}})\b"),
    re.compile(r"\b(?P<year>(?:19|20)\d\d)\b"),
    re.compile(r"\b(?P<month>" + "|".join(m for m in MONTHS if m != "may") + r")\b"),
)


def dates_named(query: str) -> list[NamedDate]:
    """(year, month, day) for each date the query names, None where it does not say."""
    text, found = query.lower(), []
    for form in _DATE_FORMS:
        for match in form.finditer(text):
            parts = match.groupdict()
            month_name = parts.get("month") or next(
                (g for g in match.groups() if g in MONTHS), None)
            found.append((int(parts["year"]) if parts.get("year") else None,
                          MONTHS.index(month_name) + 1 if month_name else None,
                          int(parts["day"]) if parts.get("day") else None))
            text = text[:match.start()] + " " * (match.end() - match.start()) + text[match.end():]
    return found


def date_closeness(when: datetime, dates: list[NamedDate]) -> int:
    """How many components of the best-matching named date `when` agrees with (0 if none)."""
    best = 0
    for year, month, day in dates:
        parts = [(year, when.year), (month, when.month), (day, when.day)]
        named = [(want, have) for want, have in parts if want is not None]
        if named and all(want == have for want, have in named):
            best = max(best, len(named))
    return best
