"""The four deterministic scoring functions of LongMemEval-V2, with the official normalisation.

Each takes (prediction, gold, **spec options) exactly as a spec string names them, and keeps the
official behaviour where it surprises (docs/longmemeval-v2.md, "Quirks"):

- `normalize_phrase`: str() of a non-string, optional lower-case, ASCII `-`/`_` to spaces, `,`/`;` to
  spaces, optional deletion of every `[^\\w\\s]` character (Unicode-aware: an en dash or an NFD accent is
  deleted, not spaced), whitespace collapsed. No Unicode normalisation, no case folding.
- `split_phrases`: the **raw** gold is split on the separators before normalising (so `1,200` is two
  phrases); an empty separator list keeps the gold whole.
- `norm_phrase_set_match`: every distinct gold phrase matches `\\bphrase\\b` in the normalised
  prediction; `..._ordered` takes them in order, duplicates included, each after the previous match.
- `mc_choice_match`: the first `\\boxed{...}` content lower-cased (else the prediction), the words
  choice/option deleted, `strip_chars` deleted, stripped and upper-cased, equal to the gold stripped
  and upper-cased.
- `mc_choice_set_match`: every `[A-Z]+` run of the upper-cased text that is not a filler word becomes
  its letters; the two letter sets must be equal.

Unknown option keys reach `normalize_phrase` as keyword arguments and raise TypeError there, as the
official functions do; the two `mc_*` functions ignore them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = [
    "DEFAULT_SEPARATORS", "normalize_phrase", "split_phrases", "norm_phrase_set_match",
    "norm_phrase_set_match_ordered", "mc_choice_match", "mc_choice_set_match", "multi_select_letters",
]

DEFAULT_SEPARATORS = (",", ";")
_FILLER = frozenset({"AND", "ANSWER", "ANSWERS", "CHOICE", "CHOICES", "FINAL", "LETTER", "LETTERS",
                     "OPTION", "OPTIONS"})
_BOXED = re.compile(r"\\boxed\{([^}]*)\}")
_CHOICE_WORD = re.compile(r"\b(?:choice|option)\b", re.IGNORECASE)


def normalize_phrase(text: Any, *, lower: Any = True, normalize_hyphen: Any = True,
                     strip_punct: Any = True) -> str:
    """The official phrase normalisation (options are tested for truth, as spec values arrive)."""
    value = "" if text is None else text if isinstance(text, str) else str(text)
    if lower:
        value = value.lower()
    if normalize_hyphen:
        value = value.replace("-", " ").replace("_", " ")
    value = value.replace(",", " ").replace(";", " ")
    if strip_punct:
        value = re.sub(r"[^\w\s]", "", value)
    return re.sub(r"\s+", " ", value).strip()


def split_phrases(answer: Any, separators: Iterable[str] = DEFAULT_SEPARATORS, **options: Any) -> list[str]:
    """The gold's phrases: the raw gold split on the separators, each normalised, empties dropped."""
    seps = list(separators)  # None raises TypeError, as officially
    raw = "" if answer is None else answer if isinstance(answer, str) else str(answer)
    parts = re.split("|".join(re.escape(sep) for sep in seps), raw) if seps else [raw]
    return [phrase for part in parts if (phrase := normalize_phrase(part, **options))]


def _pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(r"\b" + re.escape(phrase) + r"\b")


def norm_phrase_set_match(prediction: Any, answer: Any, separators: Any = DEFAULT_SEPARATORS,
                          require_non_empty: Any = True, **options: Any) -> bool:
    """Every distinct gold phrase appears, word-bounded, in the normalised prediction."""
    predicted = normalize_phrase(prediction, **options)
    phrases = split_phrases(answer, separators, **options)
    if require_non_empty and (not predicted or not phrases):
        return False
    return all(_pattern(phrase).search(predicted) for phrase in dict.fromkeys(phrases))


def norm_phrase_set_match_ordered(prediction: Any, answer: Any, separators: Any = DEFAULT_SEPARATORS,
                                  require_non_empty: Any = True, **options: Any) -> bool:
    """Every gold phrase, in gold order, appears after the previous one's (earliest) match."""
    predicted = normalize_phrase(prediction, **options)
    phrases = split_phrases(answer, separators, **options)
    if require_non_empty and (not predicted or not phrases):
        return False
    position = 0
    for phrase in phrases:
        found = _pattern(phrase).search(predicted[position:])
        if found is None:
            return False
        position += found.end()
    return True


def mc_choice_match(prediction: Any, answer: Any, strip_chars: Any = ".", require_non_empty: Any = True,
                    **_ignored: Any) -> bool:
    """One letter, compared for equality after the official light cleaning of the prediction only."""
    text = prediction if isinstance(prediction, str) else str(prediction)
    boxed = _BOXED.search(text)
    if boxed is not None:
        text = boxed.group(1).lower()
    text = _CHOICE_WORD.sub("", text)
    for char in strip_chars:  # a number, bool or None here raises TypeError, as officially
        text = text.replace(char, "")
    predicted = text.strip().upper()
    gold = (answer if isinstance(answer, str) else str(answer)).strip().upper()
    if require_non_empty and (not predicted or not gold):
        return False
    return predicted == gold


def multi_select_letters(text: Any) -> list[str]:
    """The letters of every non-filler `[A-Z]+` run of the upper-cased text, in order."""
    value = text if isinstance(text, str) else str(text)
    return [letter for run in re.findall(r"[A-Z]+", value.upper()) if run not in _FILLER for letter in run]


def mc_choice_set_match(prediction: Any, answer: Any, require_non_empty: Any = True, **_ignored: Any) -> bool:
    """The same set of letters in prediction and gold."""
    predicted, gold = multi_select_letters(prediction), multi_select_letters(answer)
    if require_non_empty and (not predicted or not gold):
        return False
    return set(predicted) == set(gold)
