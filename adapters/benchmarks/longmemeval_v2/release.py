"""Reading a LongMemEval-V2 release unchanged into frozen models, with the official validation rules.

Layout: `questions.jsonl`, `trajectories.jsonl` (one object per line, blank lines skipped),
`haystacks/lme_v2_{tier}.json` ({question id: [trajectory id, ...]}), screenshots under the data
root. The rules are those of the official `validate_public_data` and `prepare_trajectory_insert`,
checked before anything is stored or sent, each violation one `BadInput` naming file, line and field:

- a question: `id` non-empty and unique; `domain` web or enterprise; `question_type` one of the
  seven; `question` a non-empty string; `answer` a string; `eval_function` a spec that parses and
  names one of the six functions (the official code finds a bad spec only at scoring, after every
  reader call: here it is refused first); `llm_abstention_checker` only for a `-abs` type; `image`
  null or a path (relative to the data root, or absolute) that exists inside the data root;
- a trajectory: `id` non-empty and unique; `domain`; `goal` a string; `outcome` a string or null;
  `start_url` non-empty; `states` a non-empty list of objects, each with a non-empty `url`, `action`
  and `thought` (or `thoughts`) a string or null, `accessibility_tree` (or `text`) a string, and a
  non-empty `screenshot`, which must resolve against the data root or its `screenshots/` folder once
  the screenshots are laid out there (the official check is optional: a release whose screenshot
  archives are not extracted yet has no `screenshots/` folder, and its states carry no image), and
  which may never name a place outside the data root, laid out or not;
  `step` kept when an int, else `state_index`, else the position;
- the haystack file: every question has an entry and it names no other question; each list holds
  known trajectory ids of the question's domain, none repeated.

Only the trajectories the selected haystacks name are kept (a real `trajectories.jsonl` is about
1.2 GiB; it is read line by line).

Every path resolves inside the data root, symbolic links followed (`release_paths`): an image, a
screenshot or a release file that lands outside is refused with one line naming the question or
trajectory, at load, before anything is sent (an image is read and sent to the reader as a data URL).
A hub snapshot, whose files are links into the hub cache's `blobs/`, is laid out first with
`benchledger fetch longmemeval-v2 --from SNAPSHOT`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from benchledger.adapters.benchmarks.json_source import line_of, read_json
from benchledger.adapters.benchmarks.longmemeval_v2.errors import OfficialError
from benchledger.adapters.benchmarks.longmemeval_v2.judging import LLM_CHECKERS
from benchledger.adapters.benchmarks.longmemeval_v2.spec import CATEGORY_MAP, EVAL_FUNCTIONS, parse_spec
from benchledger.errors import BadInput
from benchledger.adapters.benchmarks.release_paths import contained, contained_file, inside
from benchledger.json_input import load_lines

__all__ = ["QuestionRecord", "State", "Trajectory", "Release", "read_release", "haystack_path", "screenshot_path"]

DOMAINS = ("web", "enterprise")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class QuestionRecord(_Frozen):
    id: str
    domain: str
    question_type: str
    question: str
    answer: str
    eval_function: str
    image: str | None = None
    """The image's absolute path (resolved against the data root), or None."""
    environment: Any = None
    line: int
    raw: dict[str, Any]
    """The record exactly as released (the official `question_item`)."""


class State(_Frozen):
    step: int
    url: str
    action: str | None
    thought: str | None
    accessibility_tree: str
    screenshot: str
    """As released (relative to the data root)."""


class Trajectory(_Frozen):
    id: str
    domain: str
    goal: str
    outcome: str | None
    start_url: str
    states: tuple[State, ...]


@dataclass(frozen=True)
class Release:
    root: Path
    tier: str
    questions: tuple[QuestionRecord, ...]
    """Every question of the release, in file order."""
    haystack: dict[str, tuple[str, ...]]
    trajectories: dict[str, Trajectory]
    """The trajectories the haystacks of the selected domain name."""
    files: tuple[Path, ...]


def haystack_path(root: Path, tier: str) -> Path:
    return root / "haystacks" / f"lme_v2_{tier}.json"


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise BadInput("release file not found (a LongMemEval-V2 release folder holds questions.jsonl, "
                       "trajectories.jsonl and haystacks/)", file=str(path))
    for number, value in load_lines(path):
        if not isinstance(value, dict):
            raise BadInput("each line must be a JSON object", file=str(path), line=number)
        yield number, value


def _string(value: Any, path: Path, line: int, field: str, *, empty: bool = False, null: bool = False) -> Any:
    if value is None and null:
        return None
    if not isinstance(value, str) or (not empty and not value.strip()):
        kind = "a string" if empty else "a non-empty string"
        raise BadInput(f"must be {kind}{' or null' if null else ''}, got {json.dumps(value)[:60]}",
                       file=str(path), line=line, field=field)
    return value


def _question(raw: dict[str, Any], root: Path, path: Path, line: int) -> QuestionRecord:
    qid = _string(raw.get("id"), path, line, "id")
    domain = raw.get("domain")
    if domain not in DOMAINS:
        raise BadInput(f"must be web or enterprise, got {json.dumps(domain)}", file=str(path), line=line,
                       field="domain")
    qtype = raw.get("question_type")
    if qtype not in CATEGORY_MAP:
        raise BadInput(f"must be one of {', '.join(CATEGORY_MAP)}, got {json.dumps(qtype)}", file=str(path),
                       line=line, field="question_type")
    text = _string(raw.get("question"), path, line, "question")
    answer = raw.get("answer")
    if not isinstance(answer, str):
        raise BadInput(f"must be a string (the official harness aborts on a {type(answer).__name__})",
                       file=str(path), line=line, field="answer")
    spec = _string(raw.get("eval_function"), path, line, "eval_function")
    try:
        name, _options = parse_spec(spec)
    except OfficialError as err:
        raise BadInput(f"{err.message} (the official harness would abort at scoring)", file=str(path),
                       line=line, field="eval_function") from None
    if name not in EVAL_FUNCTIONS and name not in LLM_CHECKERS:
        raise BadInput(f"{name!r} is not one of the six scoring functions", file=str(path), line=line,
                       field="eval_function")
    if name == "llm_abstention_checker" and "-abs" not in qtype:
        raise BadInput(f"llm_abstention_checker needs an -abs question type, not {qtype}", file=str(path),
                       line=line, field="eval_function")
    image = raw.get("image")
    resolved = None
    if image is not None:
        image = _string(image, path, line, "image")
        candidate = contained(root, image, what=f"question {qid}: its image", file=path, line=line, field="image")
        if not candidate.is_file():
            raise BadInput(f"image {image} does not exist", file=str(path), line=line, field="image")
        resolved = str(candidate)
    return QuestionRecord(id=qid, domain=domain, question_type=qtype, question=text, answer=answer,
                          eval_function=spec, image=resolved, environment=raw.get("environment"), line=line,
                          raw=raw)


def screenshot_path(root: Path, value: str) -> Path | None:
    """The file a state's screenshot names: under the data root or its `screenshots/` folder (as the
    official harness looks), never outside the root; None when neither holds it."""
    for name in (value, Path("screenshots") / value):
        found = inside(root, name)
        if found is not None and found.is_file():
            return found
    return None


def _state(raw: Any, index: int, root: Path, path: Path, line: int, tid: str) -> State:
    field = f"states[{index}]"
    if not isinstance(raw, dict):
        raise BadInput("each state must be an object", file=str(path), line=line, field=field)
    url = _string(raw.get("url"), path, line, f"{field}.url")
    action = _string(raw.get("action"), path, line, f"{field}.action", empty=True, null=True)
    thought_key = "thought" if "thought" in raw else "thoughts"
    thought = _string(raw.get(thought_key), path, line, f"{field}.{thought_key}", empty=True, null=True)
    tree_key = "accessibility_tree" if "accessibility_tree" in raw else "text"
    tree = _string(raw.get(tree_key), path, line, f"{field}.{tree_key}", empty=True)
    screenshot = _string(raw.get("screenshot"), path, line, f"{field}.screenshot")
    for name in (screenshot, Path("screenshots") / screenshot):  # both places the harness looks, laid out or not
        contained(root, name, what=f"trajectory {tid}, state {index}: its screenshot", file=path, line=line,
                  field=f"{field}.screenshot")
    if (root / "screenshots").is_dir() and screenshot_path(root, screenshot) is None:
        raise BadInput(f"screenshot {screenshot} does not exist under the data root", file=str(path), line=line,
                       field=f"{field}.screenshot")
    step = raw.get("step")
    if not isinstance(step, int) or isinstance(step, bool):
        fallback = raw.get("state_index")
        step = fallback if isinstance(fallback, int) and not isinstance(fallback, bool) else index
    return State(step=step, url=url, action=action, thought=thought, accessibility_tree=tree, screenshot=screenshot)


def _trajectory(raw: dict[str, Any], root: Path, path: Path, line: int) -> Trajectory:
    tid = _string(raw.get("id"), path, line, "id")
    states = raw.get("states")
    if "content" in raw and "states" not in raw:
        raise BadInput("the older {content, metadata} trajectory format is not read; convert it to "
                       "{goal, start_url, states}", file=str(path), line=line, field="states")
    if not isinstance(states, list) or not states:
        raise BadInput("must be a non-empty list of states", file=str(path), line=line, field="states")
    return Trajectory(
        id=tid, domain=str(raw.get("domain")), goal=_string(raw.get("goal"), path, line, "goal", empty=True),
        outcome=_string(raw.get("outcome"), path, line, "outcome", empty=True, null=True),
        start_url=_string(raw.get("start_url"), path, line, "start_url"),
        states=tuple(_state(state, i, root, path, line, tid) for i, state in enumerate(states)))


def _haystack(path: Path, questions: dict[str, QuestionRecord]) -> tuple[dict[str, tuple[str, ...]], str]:
    if not path.is_file():
        raise BadInput("haystack file not found", file=str(path))
    value, text = read_json(path)
    if not isinstance(value, dict):
        raise BadInput("must be a JSON object {question id: [trajectory id, ...]}", file=str(path), line=1)
    for qid, ids in value.items():
        where = line_of(text, (qid,))
        if qid not in questions:
            raise BadInput(f"names question {qid!r}, which questions.jsonl does not hold", file=str(path),
                           line=where, field=qid)
        if not isinstance(ids, list) or not all(isinstance(i, str) and i for i in ids):
            raise BadInput("must be a list of non-empty trajectory ids", file=str(path), line=where, field=qid)
        if len(set(ids)) != len(ids):
            repeated = next(i for i in ids if ids.count(i) > 1)
            raise BadInput(f"repeats trajectory {repeated}", file=str(path), line=where, field=qid)
    if missing := [qid for qid in questions if qid not in value]:
        raise BadInput(f"question {missing[0]} has no haystack entry ({len(missing)} missing)", file=str(path),
                       line=1, field=missing[0])
    return {qid: tuple(ids) for qid, ids in value.items()}, text


def read_release(root: Path, *, tier: str, domain: str) -> Release:
    """Read and validate a release folder; keep the trajectories the domain's haystacks name."""
    root = Path(root)
    if not root.is_dir():
        raise BadInput("not a folder (pass the LongMemEval-V2 data root)", file=str(root))
    questions_path, trajectories_path = root / "questions.jsonl", root / "trajectories.jsonl"
    for fixed in (questions_path, trajectories_path, haystack_path(root, tier)):
        contained_file(root, fixed)  # a release file that is a link out of the release is not read
    questions: dict[str, QuestionRecord] = {}
    for line, raw in _lines(questions_path):
        record = _question(raw, root, questions_path, line)
        if record.id in questions:
            raise BadInput(f"question id {record.id!r} repeats (first on line {questions[record.id].line})",
                           file=str(questions_path), line=line, field="id")
        questions[record.id] = record
    hay_path = haystack_path(root, tier)
    haystack, hay_text = _haystack(hay_path, questions)
    wanted = {tid for qid, ids in haystack.items() if questions[qid].domain == domain for tid in ids}
    trajectories: dict[str, Trajectory] = {}
    seen: dict[str, tuple[int, str]] = {}
    for line, raw in _lines(trajectories_path):
        tid = _string(raw.get("id"), trajectories_path, line, "id")
        if tid in seen:
            raise BadInput(f"trajectory id {tid!r} repeats (first on line {seen[tid][0]})",
                           file=str(trajectories_path), line=line, field="id")
        seen[tid] = (line, str(raw.get("domain")))
        if tid in wanted:
            trajectories[tid] = _trajectory(raw, root, trajectories_path, line)
    for qid, ids in haystack.items():
        for tid in ids:
            if tid not in seen:
                raise BadInput(f"names trajectory {tid}, which trajectories.jsonl does not hold", file=str(hay_path),
                               line=line_of(hay_text, (qid,)), field=qid)
            if seen[tid][1] != questions[qid].domain:
                raise BadInput(f"names {seen[tid][1]} trajectory {tid} for a {questions[qid].domain} question",
                               file=str(hay_path), line=line_of(hay_text, (qid,)), field=qid)
    return Release(root=root, tier=tier, questions=tuple(questions.values()), haystack=haystack,
                   trajectories=trajectories, files=(questions_path, trajectories_path, hay_path))
