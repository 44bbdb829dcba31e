"""Upcasters: pure functions that lift an old stored payload one schema version, on read.

Rows are never rewritten (their hashes cover their bytes); the mapper passes an old row's payload
through `UPCASTERS[(type, version)]` one version at a time before validating it. An upcaster is
frozen history: it says what a payload of that version meant, with the defaults that version's
code used, and never changes once released.

A version that changed only the row's key rule, not its payload (issue 32 item 5: keys name their
subjects), lifts the payload unchanged (`_same_payload`) and is listed in `SAME_PAYLOAD`, so the
mapper reads such rows as fast as current ones; the key they were written under is the legacy rule
their declaration keeps (`ledger.events.keys.stored_key_rule`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchledger.values import is_offline_model

__all__ = ["Upcaster", "UPCASTERS", "SAME_PAYLOAD"]

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

# What schema-1 runs used when `extra` did not record a setting (benchledger before 0.2).
_V1_DEFAULTS: dict[str, Any] = {"api_key_env": "OPENAI_API_KEY", "timeout": 60.0, "max_attempts": 6,
                                "backoff_base": 0.5, "batch_size": 1000}
# Schema-1 runs knew four benchmarks; these are the selection fields and evidence levels they implied.
_V1_SUBSET_FIELD = {"GroupMemBench": "domain", "Memora": "split"}
_V1_EVIDENCE_LEVEL = {"LoCoMo": "document", "LongMemEval": "session", "Memora": "session"}


def _model_or_none(name: str, mode: str) -> str | None:
    """A schema-1 recorded model name as a setting: offline models and "none" were not asked for."""
    return None if mode == "retrieval" or is_offline_model(name) or name == "none" else name


def _run_started_1_to_2(payload: dict[str, Any]) -> dict[str, Any]:
    """RunStarted 1 -> 2: settings and selection become typed models; `extra` (strings) goes."""
    old = dict(payload["config"])
    extra: dict[str, str] = old.get("extra") or {}
    mode = extra.get("mode", "qa")
    settings = {
        "mode": mode,
        "memory": "http" if old["memory"].startswith("http:") else old["memory"],
        "memory_store": extra.get("memory_store"),
        "memory_options": old.get("memory_options") or {},
        "k": old["k"],
        "token_budget": old.get("token_budget"),
        "protocol": old["protocol"],
        "agent_model": _model_or_none(old["agent_model"], mode),
        "judge_model": _model_or_none(old["judge_model"], mode),
        "base_url": old.get("base_url"),
        "concurrency": old.get("concurrency", 1),
        "prepare": True,
        "keep": old.get("keep", False),
        "api_key_env": extra.get("api_key_env", _V1_DEFAULTS["api_key_env"]),
        "timeout": float(extra.get("timeout", _V1_DEFAULTS["timeout"])),
        "max_attempts": int(extra.get("max_attempts", _V1_DEFAULTS["max_attempts"])),
        "backoff_base": float(extra.get("backoff_base", _V1_DEFAULTS["backoff_base"])),
        "batch_size": int(extra.get("batch_size", _V1_DEFAULTS["batch_size"])),
    }
    selection: dict[str, Any] = {"kinds": list(old.get("kinds") or ()),
                                 "question_limit": old.get("question_limit"),
                                 "message_limit": old.get("message_limit")}
    if field := _V1_SUBSET_FIELD.get(old["benchmark"]):
        selection[field] = old["subset"]
    if conversations := extra.get("conversation_ids"):
        selection["conversation_ids"] = conversations.split(",")
    config = {
        "benchmark": old["benchmark"], "subset": old["subset"], "corpus_path": old["corpus_path"],
        "selection": selection, "settings": settings,
        "memory": old["memory"], "memory_version": old["memory_version"],
        "memory_model": old.get("memory_model"),
        "agent_model": old["agent_model"], "judge_model": old["judge_model"],
        "offline_models": old["offline_models"],
        "prompt_hashes": old.get("prompt_hashes") or {},
        "reference_prompt_hashes": old.get("reference_prompt_hashes") or {},
        "evidence_level": extra.get("evidence_level") or _V1_EVIDENCE_LEVEL.get(old["benchmark"]),
    }
    return {**payload, "config": config}


def _same_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """A version that changed the key rule only: the payload reads as it was written."""
    return payload


SAME_PAYLOAD: frozenset[tuple[str, int]] = frozenset(
    (name, 1) for name in ("Failed", "Judged", "ScorerStarted", "ScorerContinued", "AuditStarted", "AuditContinued",
                           "PlantJudged", "PlantFailed"))
"""(event type, version) whose payload the next version reads unchanged (only the key rule changed)."""

UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("RunStarted", 1): _run_started_1_to_2,
    **{version: _same_payload for version in sorted(SAME_PAYLOAD)},
}
"""(event type, schema version it reads) -> function returning the payload one version later."""
