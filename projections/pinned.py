"""A run as it stood at a published head: what it held then, what was appended after, what a score counts.

A head is the hash of a run's event (what `show` and `verify RUN` print). `pin` splits a run's
checked events at that event: the events up to it are the run as published, folded exactly as
then; the events after it are named by the segments they belong to (a resume, a scorer, an audit),
so a reader sees both the published score and what has joined the run since, and never gets the
one silently in place of the other. `counted_segments` names the segments whose answers and
verdicts a scorer's score counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchledger.errors import BadInput
from benchledger.projections.state import RunState, Segment, fold_run

__all__ = ["Pinned", "pin", "counted_segments", "segment_line", "pinned_notes"]


@dataclass(frozen=True)
class Pinned:
    """A run split at a head."""

    head: str
    """The pinned event's hash."""
    position: int
    """The pinned event's position in the run."""
    state: RunState
    """The run folded exactly up to and including the pinned event."""
    later: tuple[Any, ...]
    """The run's events appended after it, in order."""
    later_segments: tuple[Segment, ...]
    """Segments opened after it (a resume, a scorer, a continuation, an audit's opener is an event of `later`)."""


def pin(run_id: str, events: Sequence[Any], head: str) -> Pinned:
    """The run of `events` (checked, in position order) as it stood at the event whose hash is `head`."""
    at = next((index for index, stored in enumerate(events) if stored.hash == head), None)
    if at is None:
        raise BadInput(f"run {run_id} holds no event with hash {head}; a run's head is the hash `show` or "
                       f"`verify {run_id}` printed", field="expect-head")
    state = fold_run(run_id, events[:at + 1])
    full = fold_run(run_id, events)
    return Pinned(head=head, position=events[at].position, state=state, later=tuple(events[at + 1:]),
                  later_segments=tuple(full.segments[len(state.segments):]))


def counted_segments(state: RunState, scorer_id: str | None) -> list[Segment]:
    """The segments whose answers and verdicts (of `scorer_id`) the scorer's score counts, in order."""
    used: set[int] = set()
    for question in state.questions.values():
        if scorer_id is None or scorer_id not in question.judged:
            continue
        if question.answered_in is not None:
            used.add(question.answered_in)
        if (judged_in := question.judged_in.get(scorer_id)) is not None:
            used.add(judged_in)
    return [state.segments[index] for index in sorted(used)]


def segment_line(segment: Segment, writers: Sequence[Any] = ()) -> str:
    """One segment as a report names it, with where its model calls went and, on a shared ledger,
    the role the server recorded for the event that opened it (`writers`: `ledger.reader.runs.WriterSpan`s)."""
    if segment.offline:
        where = "no model endpoint" if segment.model_free else "offline models"
    elif segment.endpoint is None:
        where = "endpoint not recorded"
    else:
        where = f"endpoint {segment.endpoint.base_url or 'the SDK default'}"
    writer = next((span.writer for span in writers
                   if span.first_position <= segment.position <= span.last_position), None)
    return f"{segment.label} ({where}" + (f", opened by {writer})" if writer else ")")


def pinned_notes(pinned: Pinned | None, state: RunState, scorer_id: str | None,
                 writers: Sequence[Any] = ()) -> list[str]:
    """The lines a report pinned at a head prints under it (none when not pinned): the segments its
    score counts, and what was appended to the run after that head (never counted in this report)."""
    if pinned is None:
        return []
    counted = counted_segments(state, scorer_id)
    lines = [f"as of head {pinned.head} (position {pinned.position} of run {state.run_id})",
             f"the score of {scorer_id} counts segments: " + (", ".join(segment_line(s, writers) for s in counted) or "none")]
    if not pinned.later:
        lines.append("nothing was appended to the run after that head")
        return lines
    kinds: dict[str, int] = {}
    for stored in pinned.later:
        kinds[stored.type] = kinds.get(stored.type, 0) + 1
    opened = ", ".join(segment_line(s, writers) for s in pinned.later_segments) or "no new segment"
    lines.append(f"appended after that head, not in this report: {len(pinned.later)} event(s) ("
                 + ", ".join(f"{count} {name}" for name, count in kinds.items()) + f"); segments opened: {opened}")
    return lines
