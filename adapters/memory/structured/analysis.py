"""Text analysis for the structured memory: tokens, stems, question intent and time cues.

Everything here is general English, not tuned to any benchmark: a lowercase word tokenizer that
drops possessive "'s", a short list of function words, the Snowball English stemmer (cached, since
a corpus repeats the same words), and two small recognisers used by ranking:

- `question_intent` reads the question's opening ("when", "how long", "what year", ...) and whether
  it speaks in the first person, which decides whether time cues and the asker's own messages
  should count;
- `time_cue_stems` are the stems of words that date an event (weekdays, months, "yesterday",
  "ago", "last", "next", years...), so a "when" question can favour turns that say when.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer
__all__ = [
    "STOPWORDS", "tokenize", "stem", "analyze", "QuestionIntent", "question_intent",
]

_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_STEMMER = snowballstemmer.stemmer("english")

# Common English function words; content words are never listed here.
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most
my myself no nor not now of off on once only or other our ours ourselves out over own same she
should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves also ever get got really s t don didn doesn isn wasn
aren weren won wouldn couldn shouldn ve ll re d m o y oh hey hi yeah yes ok okay wow lol thanks
thank much many kind sort like just something anything one ones thing things
""".split())

def tokenize(text: str) -> list[str]:
    """Lowercase words, possessive "'s" dropped, contractions kept whole ("don't")."""
    words = []
    for word in _WORD.findall(text.lower()):
        if word.endswith(("'s", "’s")):
            word = word[:-2]
        words.append(word.replace("’", "'"))
    return words


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    return _STEMMER.stemWord(word)


def analyze(text: str, *, stemmed: bool = True) -> list[str]:
    """The content words of `text` in order, stemmed unless asked not to."""
    words = [w for w in tokenize(text) if w.isdigit() or (len(w) > 1 and w not in STOPWORDS)]
    return [stem(w) for w in words] if stemmed else words


_WHEN_OPENINGS = (
    "when", "what time", "what date", "what day", "what year", "what month", "which year",
    "which month", "which day", "how long", "how many years", "how many months", "how many weeks",
    "how many days", "how old", "since when",
)
# Openings that ask for a time even when they are not the question's first words.
_WHEN_INNER = ("when did", "when was", "when is", "when will", "what year", "what month",
               "what date", "how long")
_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours"})


@dataclass(frozen=True)
class QuestionIntent:
    asks_when: bool
    """The question asks for a time, a date or a duration."""
    first_person: bool
    """The question speaks as the asker ("did I", "my team")."""
    asks_decision: bool
    """The question is about what was decided, agreed or finalised."""


_DECISION_STEMS = frozenset(stem(w) for w in (
    "decide", "decision", "agreed", "agree", "approve", "approval", "finalize", "final", "conclude",
    "settled", "chose", "choose", "commit", "resolved", "sign-off", "plan",
))


def question_intent(question: str) -> QuestionIntent:
    lowered = question.lower().strip()
    words = tokenize(lowered)
    asks_when = lowered.startswith(_WHEN_OPENINGS) or any(f" {o} " in lowered for o in _WHEN_INNER)
    return QuestionIntent(
        asks_when=asks_when,
        first_person=any(w in _FIRST_PERSON for w in words),
        asks_decision=any(stem(w) in _DECISION_STEMS for w in words),
    )
