"""A judge recorded under a method its benchmark names, with a label saying what it is.

`MethodJudge(judge, method)` asks exactly what `judge` asks and returns its verdicts; only the
scorer it opens carries `method`, so a report can say, for instance, that LoCoMo's second scorer
is an LLM judge (the score memory-system papers report), not LoCoMo's official token F1.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.base import Prompts, Question
from benchledger.adapters.models.base import Answer, JudgeModel, Verdict

__all__ = ["MethodJudge"]


class MethodJudge:
    """`judge`'s calls and verdicts, recorded under `method`."""

    def __init__(self, judge: JudgeModel, method: str) -> None:
        self.inner, self.method = judge, method
        self.name, self.offline = judge.name, judge.offline

    @property
    def prompt_hashes(self) -> dict[str, str]:
        return dict(getattr(self.inner, "prompt_hashes", {}) or {})

    def judge(self, question: Question, answer: Answer, prompts: Prompts | None) -> Verdict:
        return self.inner.judge(question, answer, prompts)
