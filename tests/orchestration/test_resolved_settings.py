"""A run resolves its settings once, and the typed result travels down as it is.

`resolved_settings` checks the settings against the benchmark and its release and returns
`ResolvedSettings`; the CLI does it before anything is written, and `run_dataset` then takes that
object as it is. Resolved or not, the same options record the same `RunStarted` bytes.
"""

from __future__ import annotations

import sqlite3

from benchledger.adapters.benchmarks.locomo.loader import load_locomo
from benchledger.adapters.benchmarks.registry import benchmark_named
from benchledger.ledger.store import Ledger
from benchledger.orchestration.session import ResolvedSettings, resolved_settings, run_dataset
from benchledger.settings import RunSettings


def _run_started_payload(path) -> str:
    with sqlite3.connect(path) as conn:
        (payload,) = conn.execute("SELECT payload FROM events WHERE type = 'RunStarted'").fetchone()
    return payload


def test_settings_resolved_once_travel_down_and_record_the_same_bytes(shared_data, tmp_path) -> None:
    source = shared_data / "locomo" / "locomo-dev.json"
    dataset = load_locomo(source, conversation_ids=["conv-26"], question_limit=1)
    benchmark = benchmark_named(dataset.benchmark)
    plain = RunSettings(protocol="official", k=5, memory_store=tmp_path / "m.sqlite")
    resolved = resolved_settings(benchmark, plain, source=source)
    assert isinstance(resolved, ResolvedSettings) and not isinstance(plain, ResolvedSettings)
    assert plain.prompts_dir is None and resolved.prompts_dir is not None  # the official templates' folder
    assert resolved_settings(benchmark, resolved, source=source) is resolved  # never resolved again
    assert type(resolved.with_changes(k=3)) is RunSettings  # a change must be resolved again
    payloads = []
    for name, settings in (("plain", plain), ("resolved", resolved)):
        with Ledger.open(tmp_path / f"{name}.db") as ledger:
            run_dataset(ledger, dataset, settings)
        payloads.append(_run_started_payload(tmp_path / f"{name}.db"))
    assert payloads[0] == payloads[1]
    assert '"k":5,' in payloads[0] and '"prompts_dir":null' not in payloads[0]
