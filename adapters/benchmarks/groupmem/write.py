"""Write a GroupMemBench-layout release: used by the synthetic generator, the mini example's
generator and tests that need a small release on disk.

Output is byte-stable: channels and question kinds are written in the order given, messages with
a fixed field order, two-space indented JSON (so a message's line in the file is meaningful in
error reports), UTF-8 without escaping, "\\n" line ends.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchledger.adapters.benchmarks.groupmem.files import check_domain

__all__ = ["MESSAGE_FIELDS", "write_release", "write_corpus", "write_questions", "write_prompts"]

MESSAGE_FIELDS = ("msg_node", "content", "author", "role", "timestamp", "reply_to", "phase_name",
                  "topic", "is_noise", "is_decision_point")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def write_corpus(root: Path, domain: str, channels: Mapping[str, Sequence[Mapping[str, Any]]]) -> Path:
    """channel -> messages, each written with the released field order first.

    Anything that is not a mapping is written as given, so tests can write broken releases.
    """
    check_domain(domain)
    ordered = {
        channel: [
            {**{k: m[k] for k in MESSAGE_FIELDS if k in m},
             **{k: v for k, v in m.items() if k not in MESSAGE_FIELDS}}
            if isinstance(m, Mapping) else m
            for m in messages
        ]
        for channel, messages in channels.items()
    }
    path = root / "data" / "final" / domain / f"synthetic_domain_channels_rolevariants_{domain}.json"
    _write(path, json.dumps(ordered, indent=2, ensure_ascii=False) + "\n")
    return path


def write_questions(root: Path, domain: str,
                    questions: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[Path]:
    """kind -> question dicts {id, question, answer, asking_user_id}, one JSON line each."""
    check_domain(domain)
    paths = []
    for kind, items in questions.items():
        path = root / "questions" / domain / f"{kind}.jsonl"
        _write(path, "".join(json.dumps(dict(item), ensure_ascii=False) + "\n" for item in items))
        paths.append(path)
    return paths


def write_prompts(root: Path, agent_system: str, judge_system: str) -> None:
    _write(root / "prompts" / "agent_system.txt", agent_system)
    _write(root / "prompts" / "judge_system.txt", judge_system)


def write_release(root: Path, domain: str, channels: Mapping[str, Sequence[Mapping[str, Any]]],
                  questions: Mapping[str, Sequence[Mapping[str, Any]]], *,
                  prompts: tuple[str, str] | None = None) -> Path:
    """Write corpus, questions and (optionally) prompts for one domain; returns `root`."""
    write_corpus(root, domain, channels)
    write_questions(root, domain, questions)
    if prompts is not None:
        write_prompts(root, *prompts)
    return root
