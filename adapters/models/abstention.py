"""When does an answer say "the information is not there"? One small phrase matcher, shared.

The reference protocol, the offline models and the loopback server all decide abstention here,
so a run's `abstained` flag means the same thing whichever model answered. The matcher is
deliberately narrow: it looks for phrases about missing *information* ("no information",
"the passages do not mention", "cannot be determined", "not specified in the conversation"),
not for any negation, so "the vendor is not available until Monday" is an answer, not an
abstention. `ABSTENTION_ANSWER` is the sentence GroupMemBench uses as gold for its abstention
questions; the offline answerer says exactly that.
"""

from __future__ import annotations

import re
__all__ = ["ABSTENTION_ANSWER", "ABSTENTION_PATTERNS", "is_abstention", "ABSTENTION_VOCABULARY"]

ABSTENTION_ANSWER = "There is no information available in the conversation to answer this question."

_SOURCE = r"(?:retrieved\s+)?(?:passages?|conversations?|context|messages?|documents?|records?)"

ABSTENTION_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"\bno\s+(?:relevant\s+|such\s+|specific\s+)?information\b",
        r"\b(?:not\s+enough|insufficient|not\s+sufficient)\s+information\b",
        r"\binformation\s+(?:is|was)\s+not\s+(?:available|provided|present|given)\b",
        rf"\b{_SOURCE}\s+(?:do|does|did)\s+not\s+"
        r"(?:mention|say|specify|state|provide|contain|include|indicate|identify|name)\b",
        rf"\bnot\s+(?:mentioned|specified|stated|provided|given|found|supported)\s+"
        rf"(?:in|by)\s+the\s+{_SOURCE}",
        r"\bcannot\s+(?:be\s+)?(?:determined?|answered|answer|found|find|identified|identify)\b",
        r"\bcan't\s+(?:determine|answer|tell|find)\b",
        r"\bunable\s+to\s+(?:determine|answer|find|identify)\b",
        r"\bnot\s+(?:possible|able)\s+to\s+(?:determine|answer|tell)\b",
        r"^\W*(?:unknown|not\s+available|n/?a|none)\W*$",
    )
)

# Words an abstention uses on its own account; the offline judge does not count them as
# invented content when it checks that an abstaining answer "invents nothing".
ABSTENTION_VOCABULARY = frozenset(
    """there is are no not any information available conversation conversations passages passage
    retrieved context messages message documents records answer answered question this these
    cannot can't cant unable determine determined find found mention mentioned mentions say says
    specify specified state stated provide provided contain contains include includes indicate
    indicated enough insufficient sufficient relevant specific such given supported identify
    identified name named do does did be been the a an to in of by from about regarding for
    it its unknown n a none that which what who when where whether""".split()
)


def is_abstention(text: str) -> bool:
    """True when the text says the needed information is not available."""
    stripped = text.strip()
    return any(pattern.search(stripped) for pattern in ABSTENTION_PATTERNS)
