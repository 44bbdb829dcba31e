"""The loopback server's readers for the benchmarks' official prompts.

The official protocols send the benchmarks' own prompts (LoCoMo's QA prompt, LongMemEval's reader
and judge prompts, Memora's answer and judge prompts). The loopback server recognises each by the
slot labels the official templates put around what they fill (it holds none of their text),
reads the question, the context and what is judged back out, and answers with the offline
models' logic in the shape the official code reads:

- LoCoMo QA (ends "Short answer:"): a short extractive answer from the recalled turns; for a
  category-5 forced choice, "(a)" or "(b)": the "not mentioned" option when the turns hold no answer;
- LongMemEval reader ("Current Date:" under the history): an extractive answer; judge ("Model
  Response:"): "yes" or "no", by the lexical verdict (an "Explanation:" slot marks abstention);
- Memora answer ("# Current Question"): an extractive answer from the history; judge ("AI RESPONSE
  TO EVALUATE:"): a JSON object {answer, confidence, explanation} by the lexical criterion rule;
- LongMemEval-V2 reader ("### Question to answer:" after the memory context's text parts): the
  extractive answer in `\\boxed{}` (UNKNOWN when nothing overlaps); its two checkers ("Model extracted
  final answer:"): `{"label": 0|1, "reason"}` by the lexical verdict.

`official_reply(prompt)` returns (role, reply text) or None when the prompt is none of these.
"""

from __future__ import annotations

import json
import re

from benchledger.adapters.models.abstention import is_abstention
from benchledger.adapters.models.offline import extractive_answer, lexical_criterion, lexical_verdict

__all__ = ["official_role", "official_reply"]

_LOCOMO_QUESTION = re.compile(r"Question: (.*) Short answer:\s*\Z", re.DOTALL)
_LOCOMO_TURN = re.compile(r'^.*? said, "(.*)"$')
_LOCOMO_CHOICE = re.compile(r"^(.*) Select the correct answer: \(a\) (.*) \(b\) (.*)\. ?$", re.DOTALL)
_LME_READER = re.compile(r"Current Date: .*?\nQuestion: (.*?)\nAnswer", re.DOTALL)
_LME_CONTENT = re.compile(r'"content": ("(?:[^"\\]|\\.)*")')
_LME_JUDGE = re.compile(r"Question: (.*?)\n\n(Correct Answer|Rubric|Explanation): (.*?)\n\nModel Response: (.*?)"
                        r"\n\n(?:Is|Does) ", re.DOTALL)
_MEMORA_QUESTION = re.compile(r"# Current Question\nUser: (.*?)\n\n", re.DOTALL)
_MEMORA_LINE = re.compile(r"^(?:User|Assistant): (.*)$", re.MULTILINE)
_V2_READER = re.compile(r"### Memory context:\n(.*)\n\n### Question to answer:\n(.*)\Z", re.DOTALL)
_V2_STATE = re.compile(r"(?=\[trajectory )")
_V2_JUDGE = re.compile(r"Question:\n(.*?)\n\nReference answer \([^)]*\):\n(.*?)\n\nModel full response:\n(.*?)"
                       r"\n\nModel extracted final answer:\n(.*?)\n\nScoring rubric:", re.DOTALL)
_MEMORA_JUDGE = re.compile(r"AI RESPONSE TO EVALUATE:\n(.*?)\n\nEVALUATION QUESTION:\n(.*?)\n", re.DOTALL)


def official_role(prompt: str) -> str | None:
    """agent or judge for an official prompt, None for any other."""
    if "Model Response:" in prompt or "AI RESPONSE TO EVALUATE:" in prompt:
        return "judge"
    if "Model extracted final answer:" in prompt:
        return "judge"
    if _LOCOMO_QUESTION.search(prompt) or "# Current Question" in prompt or _LME_READER.search(prompt) \
            or _V2_READER.search(prompt):
        return "agent"
    return None


def _locomo(prompt: str, match: re.Match[str]) -> str:
    context = prompt[: match.start()]
    turns = [m.group(1) for line in context.splitlines() if (m := _LOCOMO_TURN.match(line))]
    question = match.group(1)
    choice = _LOCOMO_CHOICE.match(question)
    if choice is None:
        return extractive_answer(question, turns)
    asked, option_a, _option_b = choice.groups()
    answered = not is_abstention(extractive_answer(asked, turns))
    return "(b)" if is_abstention(option_a) == answered else "(a)"


def _longmemeval_reader(prompt: str, match: re.Match[str]) -> str:
    passages = [json.loads(text) for text in _LME_CONTENT.findall(prompt[: match.start()])]
    return extractive_answer(match.group(1), passages)


def _longmemeval_judge(match: re.Match[str]) -> str:
    question, label, gold, response = match.groups()
    verdict, _ = lexical_verdict(question=question, gold=gold, answer=response,
                                 abstention=label == "Explanation" or is_abstention(gold))
    return "yes" if verdict == "correct" else "no"


def _memora_judge(match: re.Match[str]) -> str:
    response, criterion = match.group(1), match.group(2)
    said, reason = lexical_criterion(criterion.strip(), response.strip())
    return json.dumps({"answer": said, "confidence": 0.9, "explanation": reason})


def _v2_reader(match: re.Match[str]) -> str:
    answer = extractive_answer(match.group(2), [p for p in _V2_STATE.split(match.group(1)) if p.strip()])
    return f"From the trajectories I remember:\n\n\\boxed{{{'UNKNOWN' if is_abstention(answer) else answer}}}"


def _v2_judge(match: re.Match[str]) -> str:
    question, gold, _full, final = match.groups()
    verdict, reason = lexical_verdict(question=question, gold=gold, answer=final, abstention="premise" in gold.lower())
    return json.dumps({"label": int(verdict == "correct"), "reason": reason})


def official_reply(prompt: str) -> tuple[str, str] | None:
    """(role, reply text) for an official prompt, or None."""
    if match := _V2_JUDGE.search(prompt):
        return "judge", _v2_judge(match)
    if match := _V2_READER.search(prompt):
        return "agent", _v2_reader(match)
    if match := _MEMORA_JUDGE.search(prompt):
        return "judge", _memora_judge(match)
    if match := _LME_JUDGE.search(prompt):
        return "judge", _longmemeval_judge(match)
    if match := _LOCOMO_QUESTION.search(prompt):
        return "agent", _locomo(prompt, match)
    if match := _MEMORA_QUESTION.search(prompt):
        history = prompt[: match.start()]
        return "agent", extractive_answer(match.group(1), _MEMORA_LINE.findall(history))
    if match := _LME_READER.search(prompt):
        return "agent", _longmemeval_reader(prompt, match)
    return None
