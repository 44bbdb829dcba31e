"""The official GroupMemBench agent and judge messages, and how they are sent.

Source: CoalMem @ ad676f47, `baselines/bm25/eval_benchmark.py` (`build_agent_user_prompt`,
`build_judge_user_prompt`, `call_chat`) and `baselines/common.py` (`read_text`, `call_chat`);
templates in `../shared/data/groupmembench/prompts/` (see its README):

- agent user message: "Asking user: <asker>\\n\\n" only when there is an asker (quirk 29: it is
  shown even though the run script's retrieval ignores the asker), then "Question:\\n<q>\\n\\n
  Retrieved passages:\\n<passages>\\n\\nAnswer the question using the retrieved passages.", the
  passages joined by a blank line, numbered "[1] " upwards;
- judge user message: "Question:\\n<q>\\n\\nGold Answer:\\n<gold>\\n\\nAgent Answer:\\n<final>\\n",
  where <final> is the split final of the agent's reply;
- system prompts are the release's files, stripped (`read_text`); `OFFICIAL_SHA256` pins the
  official files so a run can tell whether it was given them;
- calls: "developer" role for gpt-5*, "system" otherwise; temperature 0.2, dropped for gpt-5 and
  the o-series, which get `max_completion_tokens`; 512 tokens for the agent, 256 for the judge; an
  empty reply is asked again, 5 attempts in all, before the question is given up (quirk 32).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

__all__ = [
    "OFFICIAL_SHA256", "AGENT_MAX_TOKENS", "JUDGE_MAX_TOKENS", "TEMPERATURE", "EMPTY_REPLY_ATTEMPTS",
    "build_agent_user_prompt", "build_judge_user_prompt", "system_prompt", "is_official_prompt",
]

OFFICIAL_SHA256: dict[str, str] = {
    "agent_system.txt": "c2019778844ba90e854d80bf25a9a0a316c50538acb9c12ce6dd070b7013865d",
    "judge_system.txt": "abcd96fd2df5eff8d4d32d516da7d84847478a03928d39456f54770657966fc1",
}
"""SHA-256 of the official system prompt files as released (before `read_text` strips them)."""
AGENT_MAX_TOKENS = 512
JUDGE_MAX_TOKENS = 256
TEMPERATURE = 0.2
EMPTY_REPLY_ATTEMPTS = 5


def build_agent_user_prompt(question: str, asker: str | None, passages: Sequence[str]) -> str:
    """The agent's user message for a question, its asker and the formatted passages in rank order."""
    numbered = "\n\n".join(f"[{number}] {passage}" for number, passage in enumerate(passages, start=1))
    asker_line = f"Asking user: {asker}\n\n" if asker else ""
    return (f"{asker_line}Question:\n{question}\n\nRetrieved passages:\n{numbered}\n\n"
            "Answer the question using the retrieved passages.")


def build_judge_user_prompt(question: str, gold: str, agent_final: str) -> str:
    """The judge's user message: question, gold answer and the agent's split final."""
    return f"Question:\n{question}\n\nGold Answer:\n{gold}\n\nAgent Answer:\n{agent_final}\n"


def system_prompt(text: str) -> str:
    """A system prompt file's text as sent: stripped."""
    return text.strip()


def is_official_prompt(name: str, text: str) -> bool:
    """Whether `text` is the official file `name` ("agent_system.txt" or "judge_system.txt")."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest() == OFFICIAL_SHA256.get(name)
