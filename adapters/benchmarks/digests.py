"""The report digests of every registered benchmark and of the core report, as the golden file holds them.

A saved scorecard's version is derived from these (`projections.report_digest`), so no one bumps a
version by hand; `tests/adapters/benchmarks/report_digests.json` holds the current ones, and its test
names the benchmark (and the condition or section) whose wording changed, so a reviewer sees every
wording change. After such a change, regenerate the file:

    python -m benchledger.adapters.benchmarks.digests > tests/adapters/benchmarks/report_digests.json
"""

from __future__ import annotations

import json
from typing import Any

from benchledger.adapters.benchmarks.registry import available_benchmarks
from benchledger.projections.report_digest import core_digest, declarations

__all__ = ["GOLDEN", "current_digests", "wording_changes"]

GOLDEN = "tests/adapters/benchmarks/report_digests.json"
_REGENERATE = f"python -m benchledger.adapters.benchmarks.digests > {GOLDEN}"


def current_digests() -> dict[str, Any]:
    """{"core": digest, "benchmarks": {name: {"digest", "kind", "conditions", "sections"}}} for every loaded
    benchmark of the registry."""
    benchmarks: dict[str, Any] = {}
    for entry in available_benchmarks():
        if entry.loaded is None:
            continue
        benchmark = entry.loaded
        folds = benchmark.report_folds()
        benchmarks[benchmark.name] = {"digest": benchmark.report_digest(),
                                      **declarations(folds.conditions, folds.sections, folds.kind)}
    return {"core": core_digest(), "benchmarks": dict(sorted(benchmarks.items()))}


def wording_changes(golden: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """One line per benchmark (and for the core report) whose digest is not the golden one, naming the
    conditions and sections that changed; [] when every digest is as the golden file holds it."""
    lines = []
    if golden.get("core") != current["core"]:
        lines.append(f"the core report's wording changed: update {GOLDEN} ({_REGENERATE})")
    was, now = golden.get("benchmarks", {}), current["benchmarks"]
    for name in sorted(set(was) | set(now)):
        if name not in was:
            lines.append(f"{name} is registered but has no report digest: add it to {GOLDEN} ({_REGENERATE})")
        elif name not in now:
            lines.append(f"{name} has a report digest but is not registered: remove it from {GOLDEN}")
        elif was[name].get("digest") != now[name]["digest"]:
            parts = [f"kind {was[name].get('kind')} -> {now[name]['kind']}"] if was[name].get("kind") != now[name]["kind"] else []
            for group in ("conditions", "sections"):
                old, new = was[name].get(group, {}), now[name][group]
                parts += [part for part in sorted(set(old) | set(new)) if old.get(part) != new.get(part)]
            lines.append(f"{name}'s report wording changed ({', '.join(parts) or 'its digest'}): "
                         f"update {GOLDEN} ({_REGENERATE})")
    return lines


if __name__ == "__main__":
    print(json.dumps(current_digests(), indent=2))
