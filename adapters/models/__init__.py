"""Models that answer and judge: the OpenAI-compatible client and deterministic offline ones."""

from adapters.models.base import Answer, AnswerModel, JudgeModel, ModelError, Usage, Verdict

__all__ = ["Answer", "AnswerModel", "JudgeModel", "ModelError", "Usage", "Verdict"]
