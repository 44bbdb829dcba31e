"""Which scorer produced each number: the ScorerStarted a judge or scoring method opens.

A scorer is recorded once per run (`ScorerStarted`) with what produced its verdicts: the judge
model (or, for a deterministic method, the method's own name), the protocol, the method the
benchmark names (LoCoMo's `locomo-f1`, Memora's `memora-majority`...), every voting judge and the
SHA-256 of every official template it fills. A run under a protocol with companion scorers (LoCoMo's
LLM judge beside its token F1) opens them together, before any question is judged, so they are
always the run's first scorers; rejudges add scorers after them.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchledger.adapters.models.base import JudgeModel, judge_asks_model
from benchledger.ledger.events import Endpoint, ScorerStarted
from benchledger.ledger.recorder import EventWriter
from benchledger.projections.state import RunState

__all__ = ["scorer_started", "start_scorers"]


def scorer_started(scorer_id: str, judge: JudgeModel, protocol: str, endpoint: Endpoint | None,
                   official_method: str | None) -> ScorerStarted:
    """The ScorerStarted event of `judge` judging under `protocol` at `endpoint`.

    A judge that asks no model (offline, or a rule such as LoCoMo's token F1, `asks_model = False`)
    records no endpoint, and says it asks none. The scorer is official when its method is the
    benchmark's `official_method` (what the benchmark declared when it scored).
    """
    hashes = dict(getattr(judge, "prompt_hashes", {}) or {})
    method = getattr(judge, "method", "") or ""
    asks_model = judge_asks_model(judge)
    return ScorerStarted(
        scorer_id=scorer_id, judge_model=judge.name, protocol=protocol,
        prompt_hash=hashes.get("judge_system", ""), offline=judge.offline, method=method,
        judge_models=tuple(getattr(judge, "judge_models", ()) or ()),
        prompt_hashes=hashes if method else {}, endpoint=endpoint if asks_model else None,
        model_free=not asks_model and not judge.offline, official=bool(method) and method == official_method)


def start_scorers(writer: EventWriter, run_id: str, state: RunState, judges: Sequence[JudgeModel],
                  protocol: str, endpoint: Endpoint | None, official_method: str | None) -> list[str]:
    """The ids of the run's own scorers, one per judge (its first scorers), opening those not yet
    recorded in one append; the templates they fill are kept as blobs with them."""
    recorded = list(state.scorers)
    ids: list[str] = []
    opened: list[ScorerStarted] = []
    blobs: list[bytes] = []
    for index, judge in enumerate(judges):
        if index < len(recorded):
            ids.append(recorded[index])
            continue
        scorer_id = f"s{len(recorded) + len(opened) + 1}"
        opened.append(scorer_started(scorer_id, judge, protocol, endpoint, official_method))
        blobs += [text.encode("utf-8") for text in (getattr(judge, "templates", {}) or {}).values()]
        ids.append(scorer_id)
    if opened:
        writer.append(run_id, opened, blobs=blobs)
    return ids
