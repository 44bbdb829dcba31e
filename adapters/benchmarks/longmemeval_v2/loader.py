"""A LongMemEval-V2 release as a `Dataset`: one Document per trajectory state, scopes as the harness builds memory.

One Document is **one state of one trajectory**: what the agent saw at one step (URL, accessibility
tree), what it thought, and what it did. A state is the unit the agent observed and the unit a
question's evidence lives in (a button on a page, the page after an action); a whole trajectory
(up to ~230k tokens in the real haystacks) is far larger than anything a memory system recalls as
one item. So that a recalled state stands alone, its text opens with its trajectory's header:

    [trajectory <id> | goal: <goal> | outcome: <outcome> | start: <start_url>]
    state <step> at <url>
    thought: <thought>
    action: <action>
    <accessibility tree>

(`thought:` and `action:` lines are left out when null). `doc_id` is `<trajectory id>:<state
position>`, `channel` the trajectory id, `position` the order in the haystack; `extra` keeps every
structured field verbatim: goal, outcome, start_url, step, url, action, thought and the screenshot
path (relative to the data root), so nothing of the trajectory's structure is lost.

Scopes follow the official harness: when every selected question has the same ordered haystack
list, one shared scope (`shared`) is built once; otherwise each question gets its own scope (its
id) holding its own list in its own order. Every scope is named by the dataset's fingerprint.

Questions keep the official item (`extra["question_item"]`, as the judge reads it), the spec
(`extra["eval_function"]`), the question's image (absolute path, `extra["question_image"]`) and the
domain. `abstention` is the official rule: the spec names `llm_abstention_checker`. The release
labels no evidence; a synthetic release's `SYNTHETIC_evidence_map.json` (not an official file)
names one trajectory per question, which becomes the question's evidence at trajectory level
(a recalled state counts for its trajectory).
"""

from __future__ import annotations

import json
from pathlib import Path

from benchledger.adapters.benchmarks.base import Dataset, Document, Question, ReleaseFacts
from benchledger.adapters.benchmarks.json_source import read_json
from benchledger.adapters.benchmarks.longmemeval_v2.release import Release, Trajectory, read_release
from benchledger.adapters.benchmarks.longmemeval_v2.selection import LongMemEvalV2Selection
from benchledger.adapters.benchmarks.longmemeval_v2.spec import CATEGORY_MAP, eval_name
from benchledger.errors import BadInput

__all__ = ["ADAPTER_VERSION", "SHARED_SCOPE", "EVIDENCE_MAP", "state_text", "trajectory_documents",
           "load_longmemeval_v2"]

ADAPTER_VERSION = "longmemeval-v2/1"
SHARED_SCOPE = "shared"
EVIDENCE_MAP = "SYNTHETIC_evidence_map.json"


def state_text(trajectory: Trajectory, index: int) -> str:
    state = trajectory.states[index]
    lines = [f"[trajectory {trajectory.id} | goal: {trajectory.goal} | outcome: {trajectory.outcome} | "
             f"start: {trajectory.start_url}]", f"state {state.step} at {state.url}"]
    if state.thought is not None:
        lines.append(f"thought: {state.thought}")
    if state.action is not None:
        lines.append(f"action: {state.action}")
    lines.append(state.accessibility_tree)
    return "\n".join(lines)


def trajectory_documents(trajectory: Trajectory, start: int = 0) -> list[Document]:
    """The trajectory's states as Documents, positioned from `start`."""
    docs = []
    for index, state in enumerate(trajectory.states):
        extra = {"goal": trajectory.goal, "outcome": "" if trajectory.outcome is None else trajectory.outcome,
                 "start_url": trajectory.start_url, "step": str(state.step), "url": state.url,
                 "action": state.action or "", "thought": state.thought or "", "screenshot": state.screenshot}
        docs.append(Document(doc_id=f"{trajectory.id}:{index}", text=state_text(trajectory, index),
                             channel=trajectory.id, position=start + index, extra=extra))
    return docs


def _scope(cache: dict[str, list[Document]], release: Release, ids: tuple[str, ...]) -> tuple[Document, ...]:
    """A scope's documents in haystack order. Each trajectory's documents are made once: a medium-tier
    scope per question repeats the whole pool, and only the positions differ (texts are shared)."""
    docs: list[Document] = []
    for tid in ids:
        if tid not in cache:
            cache[tid] = trajectory_documents(release.trajectories[tid])
        offset = len(docs)
        docs.extend(doc if doc.position == offset + i else doc.model_copy(update={"position": offset + i})
                    for i, doc in enumerate(cache[tid]))
    return tuple(docs)


def _evidence_map(root: Path) -> dict[str, str]:
    path = root / EVIDENCE_MAP
    if not path.is_file():
        return {}
    try:
        value = read_json(path)[0]["evidence_trajectory_by_question_id"]
    except (KeyError, TypeError):
        raise BadInput("not an evidence map {evidence_trajectory_by_question_id: {...}}", file=str(path)) from None
    return {str(k): str(v) for k, v in value.items()}


def load_longmemeval_v2(root: Path, selection: LongMemEvalV2Selection) -> Dataset:
    """Read a release folder and select one domain and tier (and optionally types and a limit)."""
    root = Path(root)
    release = read_release(root, tier=selection.tier, domain=selection.domain)
    wanted = set(selection.kinds) if selection.kinds else None
    if wanted and (unknown := sorted(wanted - set(CATEGORY_MAP))):
        raise BadInput(f"no question type {', '.join(unknown)} (types: {', '.join(CATEGORY_MAP)})", field="kinds")
    of_domain = [q for q in release.questions if q.domain == selection.domain]
    if not of_domain:
        raise BadInput(f"the release holds no {selection.domain} question", file=str(root / "questions.jsonl"),
                       field="domain")
    chosen = [q for q in of_domain if wanted is None or q.question_type in wanted]
    if selection.question_limit is not None:
        chosen = chosen[:selection.question_limit]
    lists = {q.id: release.haystack[q.id] for q in chosen}
    shared = len({ids for ids in lists.values()}) == 1
    cache: dict[str, list[Document]] = {}
    scopes = {SHARED_SCOPE: _scope(cache, release, next(iter(lists.values())))} if shared and lists else \
        {qid: _scope(cache, release, ids) for qid, ids in lists.items()}
    evidence = _evidence_map(root)
    questions = tuple(Question(
        question_id=q.id, kind=q.question_type, text=q.question, gold=q.answer,
        abstention=eval_name(q.eval_function) == "llm_abstention_checker",
        scope_key=SHARED_SCOPE if shared else q.id,
        evidence=(evidence[q.id],) if q.id in evidence and evidence[q.id] in lists[q.id] else (),
        extra={"eval_function": q.eval_function, "domain": q.domain, "question_image": q.image or "",
               "question_item": json.dumps(q.raw, ensure_ascii=False, sort_keys=True)},
    ) for q in chosen)
    domain_lists = [release.haystack[q.id] for q in of_domain]
    built = domain_lists[:1] if len(set(domain_lists)) == 1 else domain_lists  # as the harness would build them
    available = sum(len(release.trajectories[t].states) for ids in built for t in ids)
    return Dataset(
        benchmark="LongMemEval-V2", subset=f"{selection.domain}-{selection.tier}", adapter_version=ADAPTER_VERSION,
        source=str(root), scopes=scopes, questions=questions, selection=selection,
        release=ReleaseFacts(
            documents_available=available,
            questions_available=sum(1 for q in of_domain if wanted is None or q.question_type in wanted),
            kinds_available=tuple(dict.fromkeys(q.question_type for q in of_domain)),
            evidence_level="session" if evidence else None),
    )
