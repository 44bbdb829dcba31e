"""The numbers, times and dates a text states, as comparable values.

The offline judge uses them so an answer whose figures differ from gold is never accepted on word
overlap ("10 PM to 7 AM" shares the words of "9 PM to 8 AM"). Each is read into a normalised atom:

- a clock time -> `time:HH:MM` ("9 PM", "9pm", "9:00 p.m.", "21:00", "noon", "midnight");
- a date -> `year:YYYY`, `month:M`, `day:D` ("2025-07-18", "July 18, 2025", "18th of July");
  a month name alone is a month, a weekday a `weekday:NAME`; "May" and short month names count only
  beside a number, where they cannot be the verb or another word;
- any other number -> `num:VALUE` ("1,200" = "1200", "3.50" = "3.5", "two" = "2", "twice" = "2";
  "one" is left out: it is far more often a pronoun than a count).

Times and dates are read first and their digits are not read again as plain numbers.
"""

from __future__ import annotations

import re

__all__ = ["quantities"]

_MONTHS = {name: number for number, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
     ("november", "nov"), ("december", "dec")], start=1) for name in names}
_ALWAYS_MONTH = {"january", "february", "march", "april", "june", "july", "august", "september", "october",
                 "november", "december"}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBER_WORDS = {word: value for value, word in enumerate(
    "zero _ two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split()) if word != "_"}
_NUMBER_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
                      "ninety": 90, "hundred": 100, "thousand": 1000, "twice": 2, "thrice": 3, "once": 1})

_MONTH_NAME = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_TIME_12 = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?")
_TIME_24 = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
_NOON = re.compile(r"\b(noon|midday|midnight)\b")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_MONTH_DAY = re.compile(rf"\b({_MONTH_NAME})\.?\s+{_DAY}\b(?:,?\s+(\d{{4}})\b)?")
_DAY_MONTH = re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH_NAME})\b\.?(?:,?\s+(\d{{4}})\b)?")
_MONTH_YEAR = re.compile(rf"\b({_MONTH_NAME})\.?,?\s+(\d{{4}})\b")
_MONTH_ALONE = re.compile(rf"\b({'|'.join(sorted(_ALWAYS_MONTH))})\b")
_WEEKDAY = re.compile(rf"\b({'|'.join(_WEEKDAYS)})s?\b")
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:st|nd|rd|th)?(?![\w])")
_WORD = re.compile(rf"\b({'|'.join(_NUMBER_WORDS)})\b")


def _blank(text: str, match: re.Match[str]) -> str:
    return text[:match.start()] + " " * (match.end() - match.start()) + text[match.end():]


def _clock(hour: int, minute: int, half: str | None) -> str | None:
    if half is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "p" else 0)
    return f"time:{hour:02d}:{minute:02d}" if hour < 24 and minute < 60 else None


def _number(whole: str, fraction: str | None) -> str:
    value = whole.replace(",", "") + (f".{fraction}" if fraction else "")
    text = value.rstrip("0").rstrip(".") if "." in value else value.lstrip("0") or "0"
    return f"num:{text}"


def quantities(text: str) -> set[str]:
    """The normalised numbers, times and dates a text states (see the module docstring)."""
    text = text.lower()
    atoms: set[str] = set()
    for pattern, read in (
        (_TIME_12, lambda m: [_clock(int(m[1]), int(m[2] or 0), m[3])]),
        (_TIME_24, lambda m: [_clock(int(m[1]), int(m[2]), None)]),
        (_NOON, lambda m: ["time:00:00" if m[1] == "midnight" else "time:12:00"]),
        (_ISO_DATE, lambda m: [f"year:{int(m[1])}", f"month:{int(m[2])}", f"day:{int(m[3])}"]),
        (_MONTH_DAY, lambda m: [f"month:{_MONTHS[m[1]]}", f"day:{int(m[2])}"] + ([f"year:{m[3]}"] if m[3] else [])),
        (_DAY_MONTH, lambda m: [f"day:{int(m[1])}", f"month:{_MONTHS[m[2]]}"] + ([f"year:{m[3]}"] if m[3] else [])),
        (_MONTH_YEAR, lambda m: [f"month:{_MONTHS[m[1]]}", f"year:{m[2]}"]),
        (_MONTH_ALONE, lambda m: [f"month:{_MONTHS[m[1]]}"]),
        (_WEEKDAY, lambda m: [f"weekday:{m[1]}"]),
    ):
        for match in list(pattern.finditer(text)):
            found = [atom for atom in read(match) if atom]
            if found:
                atoms.update(found)
                text = _blank(text, match)
    for match in _NUMBER.finditer(text):
        whole, fraction = match[1], match[2]
        atoms.add(f"year:{whole}" if fraction is None and re.fullmatch(r"(19|20)\d\d", whole) else
                  _number(whole, fraction))
    atoms.update(f"num:{_NUMBER_WORDS[m[1]]}" for m in _WORD.finditer(text))
    return atoms
