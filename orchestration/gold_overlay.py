"""`rejudge RUN --gold-overlay FILE`: the run's recorded answers scored against corrected gold, beside the official.

The overlay is the LoCoMo audit's `errors.json` (read by `adapters.benchmarks.locomo.audit_files`;
named as the audit's when its SHA-256 is the pinned one, else labelled of unknown origin) or a
`benchledger-gold-overlay/1` file (`projections.gold_overlay`). The released gold on the ledger
is never touched: a `gold-overlay` audit segment (`AuditStarted`, naming the scorer, the file and
its SHA-256, the replaced and the left-out questions) records the scorer's verdict on each
replaced question's recorded answer against its replacement (`PlantJudged`), asked exactly as the
scorer asks (`orchestration.audit`). Questions left out need no call; the rest keep the scorer's
own verdicts. `projections.gold_overlay` folds the corrected score, the ceilings and the flags.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import structlog

from benchledger.adapters.benchmarks.json_source import line_of, read_json
from benchledger.adapters.benchmarks.locomo import audit_files
from benchledger.callbacks import Progress, Redact, no_progress, no_redaction
from benchledger.errors import BadInput, ConcurrencyConflict
from benchledger.ledger.events import AuditContinued, AuditStarted, PlantJudged
from benchledger.ledger.recorder import Recorder
from benchledger.orchestration.audit import AskItem, next_audit_id, open_audit, run_audit
from benchledger.orchestration.reports import with_headline
from benchledger.projections.gold_overlay import GOLD_OVERLAY_VERSION, GoldOverlay, parse_overlay
from benchledger.projections.state import RunState, fold_run
from benchledger.settings import Overrides

__all__ = ["read_gold_overlay", "rejudge_with_overlay"]

log = structlog.get_logger("benchledger.gold_overlay")


def read_gold_overlay(path: Path, state: RunState) -> tuple[GoldOverlay, bool, dict[str, int]]:
    """The overlay of `path` restricted to the run's questions, whether it is a pinned file, and what was
    skipped (entries for questions the run does not hold, or whose question text differs)."""
    value, text = read_json(path)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    skipped: dict[str, int] = {}

    def skip(reason: str) -> None:
        skipped[reason] = skipped.get(reason, 0) + 1

    if audit_files.is_error_records(value):
        records = audit_files.read_error_records(path)
        replacements: dict[str, str] = {}
        excluded: dict[str, list[str]] = {}
        for row in records.rows:
            question = state.questions.get(row.question_id)
            if question is None:
                skip("not a question of this run")
            elif question.planned.text.strip() != row.question.strip():
                skip("question text differs from the run's")
            elif row.form == "replacement":
                replacements[row.question_id] = row.gold
            else:
                excluded.setdefault(row.form, []).append(row.question_id)
        return GoldOverlay(sha, records.label, replacements, excluded), records.pinned, skipped
    overlay = parse_overlay(value, path=path, sha256=sha, line_of=lambda where: line_of(text, where))
    for qid in [*overlay.replacements, *(q for ids in overlay.excluded.values() for q in ids)]:
        if qid not in state.questions:
            skip("not a question of this run")
    kept = GoldOverlay(sha, overlay.label, {q: g for q, g in overlay.replacements.items() if q in state.questions},
                       {r: [q for q in ids if q in state.questions] for r, ids in overlay.excluded.items()})
    return kept, False, skipped


def _unfinished(state: RunState, scorer: str, sha256: str) -> AuditStarted | None:
    """The newest gold-overlay audit of this scorer and file that still lacks a verdict, if any."""
    judged = {(e.audit_id, e.question_id) for e in state.audit_events if isinstance(e, PlantJudged)}
    for event in reversed(state.audit_events):
        if isinstance(event, AuditStarted) and event.audit == "gold-overlay" and event.scorer_id == scorer \
                and event.source_sha256 == sha256:
            return event if any((event.audit_id, qid) not in judged for qid in event.replaced) else None
    return None


def rejudge_with_overlay(ledger: Recorder, run_id: str, overlay_path: Path, *, scorer_id: str | None = None,
                         overrides: Overrides = Overrides(), redact: Redact = no_redaction,
                         progress: Progress = no_progress) -> str:
    """Score the run's recorded answers against the overlay's corrected gold; returns the audit id.

    Run again with the same file and scorer after operational failures, it finishes that audit
    (an `AuditContinued`) and asks only the replaced questions that have no verdict yet."""
    with ledger.writer.run_writer(run_id):
        state = with_headline(fold_run(run_id, ledger.reader.events(run_id)))
        scorer, judge, dataset, fields = open_audit(ledger, state, audit="gold-overlay", scorer_id=scorer_id,
                                                    overrides=overrides)
        overlay, pinned, skipped = read_gold_overlay(overlay_path, state)
        if not overlay.replacements and not any(overlay.excluded.values()):
            raise BadInput(f"the overlay names none of run {run_id}'s questions", file=str(overlay_path))
        replaced = tuple(qid for qid in overlay.replacements if state.questions[qid].answered is not None)
        unfinished = _unfinished(state, scorer, overlay.sha256)
        if unfinished is not None:  # the same overlay on the same scorer, interrupted: ask only what it lacks
            audit_id = unfinished.audit_id
            attempt = 2 + sum(1 for e in state.audit_events if isinstance(e, AuditContinued) and e.audit_id == audit_id)
            ledger.writer.append(run_id, [AuditContinued(audit_id=audit_id, attempt=attempt,
                                                         endpoint=fields["endpoint"])])
        else:
            audit_id, attempt = next_audit_id(state), 1
            written = ledger.writer.append(run_id, [AuditStarted(
                audit_id=audit_id, source=str(overlay_path), source_sha256=overlay.sha256, source_label=overlay.label,
                source_pinned=pinned, plants_version=GOLD_OVERLAY_VERSION, planned=len(replaced), skipped=skipped,
                replaced=replaced, excluded={r: ids for r, ids in sorted(overlay.excluded.items()) if ids},
                **fields)])
            if not written:
                raise ConcurrencyConflict(f"audit {audit_id} of run {run_id} was started by another process; retry")
        state = fold_run(run_id, ledger.reader.events(run_id))
        items = []
        for qid in replaced:
            question = state.questions[qid]
            answered = question.answered
            assert answered is not None
            corrected = question.planned.model_copy(update={"gold": overlay.replacements[qid]})
            items.append(AskItem(f"gold_overlay:{qid}", corrected, "gold_overlay", answered.answer, "unknown",
                                 answered.abstained))
        assert state.started is not None
        run_audit(ledger.writer, state, audit_id, judge, items, prompts=dataset.prompts,
                  concurrency=overrides.applied_to(state.started.config.settings).concurrency, attempt=attempt,
                  redact=redact, progress=progress)
        log.info("gold overlay scored", run=run_id, audit=audit_id, scorer=scorer, replaced=len(replaced))
        return audit_id
