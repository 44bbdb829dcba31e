"""Inspecting the ledger: `runs`, `show`, `events`, `failures`, `questions`, `question`.

Each command opens the ledger, resolves RUN (a full id, a unique prefix, or `latest`), makes one
library call and renders it.
"""

from __future__ import annotations

from pathlib import Path

import click
from benchledger.cli.common import AppContext, OutputFile, echo_json, json_option, open_ledger, pass_app, run_argument
from benchledger.cli.options import prices_option, scoring_rule_help
from benchledger.cli.render import show_report, show_retrieval
from benchledger.errors import BadInput
from benchledger.ledger.events import EVENT_TYPES, STAGES
from benchledger.ledger.events.keys import is_legacy_form
from benchledger.ledger.runs import WriterSpan
from benchledger.orchestration.prices import read_prices
from benchledger.orchestration.recorded import recorded_run
from benchledger.orchestration.reports import folds_of, retrieval_of
from benchledger.orchestration.run_list import RunRow, run_rows
from benchledger.projections.inspect import (
    VERDICT_FILTERS, failure_entries, group_failures, question_detail, question_rows,
)
from benchledger.projections.pinned import pinned_notes
from benchledger.projections.prices import run_costs
from benchledger.projections.tallies import SCORING_RULES
from benchledger.tables import Align, current_width, fit_columns, output_width, render_table, wrap_prose

__all__ = ["COMMANDS"]


_RUN_HEADERS = ("id", "started", "benchmark", "subset", "memory", "k", "models", "protocol", "status", "score",
                "failed")


def _models(row: RunRow) -> str:
    if row.mode == "retrieval":
        return "none (retrieval)"
    if row.agent_model == row.judge_model:
        return row.agent_model or "-"
    return f"{row.agent_model}, {row.judge_model}"


def _score(row: RunRow) -> str:
    if row.status == "unfinished" and row.mode != "retrieval":  # over planned: a partial run never looks better
        return "-" if row.strict_accuracy is None else f"{100 * row.strict_accuracy:.1f}% strict"
    if row.score is None:
        return "-"
    if row.metric == "accuracy":
        return f"{100 * row.score:.1f}%"
    if row.metric.startswith("recall@"):
        return f"{row.metric} {row.score:.3f}"
    return f"{row.metric} {100 * row.score:.1f}%"  # the benchmark's own number (LoCoMo token F1, Memora FAMA)


_RUNS_DROP_ORDER = ("protocol", "started", "models", "subset", "failed", "memory", "k")
"""The columns `runs` leaves out, first to last, until the table fits the terminal."""


def render_runs(rows: list[RunRow], *, width: int | None = None) -> str:
    """The runs as a table, one row each, newest first, fitted to `width` (None: every column)."""
    cells = [(r.run_id, r.started_at[:16].replace("T", " "), r.benchmark, r.subset, r.memory, r.k, _models(r),
              r.protocol, r.status, _score(r), r.failed) for r in rows]
    align: list[Align] = ["left", "left", "left", "left", "left", "right", "left", "left", "left", "right", "right"]
    return fit_columns(cells, _RUN_HEADERS, width=width, drop_order=_RUNS_DROP_ORDER, align=align)


@click.command("runs")
@json_option
@click.option("--wide", is_flag=True, help="Show every column, however wide the table.")
@pass_app
def runs(app: AppContext, as_json: bool, wide: bool) -> None:
    """List the runs on the ledger, newest first: configuration, status and score."""
    with open_ledger(app, create=False) as ledger:
        rows = run_rows(ledger.reader)
    if as_json:
        echo_json([r.model_dump() for r in rows])
        return
    click.echo(render_runs(rows, width=None if wide else output_width()) if rows else "no runs on this ledger")


def writers_line(spans: list[WriterSpan]) -> str:
    """`owner alice; written by alice (events 1-120), bob (121-130)`: who wrote a shared run."""
    def role(writer: str | None) -> str:
        return writer if writer is not None else "no recorded role (before p002)"

    parts = [f"{role(span.writer)} ({span.first_position}-{span.last_position})" for span in spans]
    return f"owner {role(spans[0].writer)}; written by " + ", ".join(parts) + " (event positions)"


@click.command("show")
@run_argument
@click.option("--scorer", "scorer_id", default=None,
              help="Scorer id to report [default: the headline scorer: the first that meets the benchmark's protocol, else the first].")
@click.option("--scoring-rule", type=click.Choice([str(rule) for rule in SCORING_RULES]), default=None,
              help=scoring_rule_help())
@click.option("--out", type=OutputFile(), default=None, help="Also write the report JSON here.")
@click.option("--expect-head", "expect_head", metavar="HASH", default=None,
              help="A head printed earlier (the run's last event then): report the run exactly as it stood "
                   "there, and name what was appended after it.")
@click.option("--brief", is_flag=True,
              help="Five lines: the headline with its interval, publishable or the conditions that failed, the "
                   "release, the models, the head.")
@prices_option
@json_option
@pass_app
def show(app: AppContext, run_ref: str, scorer_id: str | None, scoring_rule: str | None, out: Path | None,
         expect_head: str | None, brief: bool, prices: Path | None, as_json: bool) -> None:
    """Print a run's report (scorecard, or JSON with --json); with --prices, its model calls in dollars."""
    table = read_prices(prices) if prices is not None else None
    with open_ledger(app, create=False) as ledger:
        run = recorded_run(ledger.reader, run_ref, expect_head=expect_head)
        run_id, state, pinned = run.run_id, run.state, run.pinned
        if state.mode == "retrieval":
            show_retrieval(state, retrieval_of(run.events), as_json=as_json, out=out,
                           costs=run_costs(state, table) if table is not None else None)
            return
        rule = {"scoring_rule": int(scoring_rule)} if scoring_rule is not None else {}
        report = run.report(scorer_id=scorer_id, **rule)
        writers = ledger.reader.run_writers(run_id)
    show_report(report, out=out, as_json=as_json, brief=brief and not as_json,
                costs=run_costs(state, table, report.scorer_id) if table is not None else None)
    if brief and not as_json:
        return
    if writers and not as_json:
        click.echo(writers_line(writers))
    for line in pinned_notes(pinned, state, report.scorer_id, writers):
        click.echo(line, err=True)
    for scorer, missing in state.partial_scorers.items():
        if scorer != report.scorer_id:
            click.echo(f"note: scorer {scorer} is partial ({missing} answer(s) not judged), so this report uses "
                       f"{report.scorer_id}; finish it with `benchledger rejudge {run_id} --continue {scorer}`",
                       err=True)


@click.command("events")
@run_argument
@click.option("--type", "types", multiple=True, help="Only events of this type (repeatable).")
@json_option
@pass_app
def events(app: AppContext, run_ref: str, types: tuple[str, ...], as_json: bool) -> None:
    """List a run's events in order."""
    unknown = sorted(set(types) - set(EVENT_TYPES))
    if unknown:
        raise BadInput(f"unknown event type {', '.join(unknown)}; known: {', '.join(EVENT_TYPES)}", field="type")
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.reader.resolve_run(run_ref)
        rows = ledger.reader.events(run_id, types=types or None)
    if as_json:
        echo_json([{**r.model_dump(exclude={"event"}), "key_form": _key_form(r.type, r.schema_version),
                    "payload": r.event.model_dump(mode="json")} for r in rows])
        return
    if not rows:
        click.echo(f"no {' or '.join(types)} events in run {run_id}" if types else f"run {run_id} has no events")
        return
    cells = [(r.seq, r.position, r.recorded_at,
              r.type if _key_form(r.type, r.schema_version) == "current" else f"{r.type} (legacy key form)")
             for r in rows]
    headers = ("seq", "position", "recorded at", "type", "payload")
    align: list[Align] = ["right", "right", "left", "left", "left"]
    # the payload is a preview (`--json` has it whole): cut to what the other columns leave of the width
    width = current_width()
    longest = [max((str(c[i]) for c in cells), key=len) for i in range(len(headers) - 1)]  # lays out as all rows do
    before_payload = len(render_table([(*longest, "")], headers).splitlines()[0]) - len("payload")
    room = 110 if width is None else max(12, width - before_payload)
    previews = [_summary(r.event.model_dump_json(exclude={"type"}), min(room, 110)) for r in rows]
    click.echo(render_table([(*c, p) for c, p in zip(cells, previews)], headers, align=align))


def _key_form(type_: str, schema_version: int) -> str:
    """"legacy" for a row keyed as before its type's key rule changed (`ledger.events.keys`), else "current"."""
    return "legacy" if is_legacy_form(type_, schema_version) else "current"


def _summary(text: str, width: int = 110) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


@click.command("failures")
@run_argument
@click.option("--stage", type=click.Choice(STAGES), default=None, help="Only failures of this stage.")
@click.option("--group-by", type=click.Choice(["error"]), default=None, help="Group failures by error class.")
@json_option
@pass_app
def failures(app: AppContext, run_ref: str, stage: str | None, group_by: str | None, as_json: bool) -> None:
    """List a run's operational failures: stage, question, error, and whether a retry resolved it."""
    with open_ledger(app, create=False) as ledger:
        entries = failure_entries(recorded_run(ledger.reader, run_ref).state, stage=stage)
    if as_json:
        echo_json([e.model_dump() for e in entries] if not group_by else
                  [{"error_class": err, "count": n, "questions": q} for err, n, q in group_failures(entries)])
        return
    if not entries:
        click.echo("no failures")
        return
    if group_by:
        grouped = [(error, count, ", ".join(questions[:10]) + (" …" if len(questions) > 10 else ""))
                   for error, count, questions in group_failures(entries)]
        click.echo(render_table(grouped, ("error", "count", "questions"), align=["left", "right", "left"]))
        return
    cells = [("resolved" if e.resolved else "OPEN", f"{e.stage} {e.scorer_id}" if e.scorer_id else e.stage,
              e.question_id, e.attempt, e.error_class,
              _summary(e.message, 90)) for e in entries]
    click.echo(render_table(cells, ("state", "stage", "question", "attempt", "error", "message"),
                            align=["left", "left", "left", "right", "left", "left"]))


@click.command("questions")
@run_argument
@click.option("--kind", "kinds", multiple=True, help="Only questions of this kind (repeatable).")
@click.option("--verdict", type=click.Choice(VERDICT_FILTERS), default=None,
              help="Only questions with this verdict or status under the scorer.")
@click.option("--scorer", "scorer_id", default=None, help="Scorer id [default: the headline scorer].")
@json_option
@pass_app
def questions(app: AppContext, run_ref: str, kinds: tuple[str, ...], verdict: str | None, scorer_id: str | None,
              as_json: bool) -> None:
    """List a run's question ids with kind and verdict (status, or recall for a retrieval run)."""
    with open_ledger(app, create=False) as ledger:
        state = recorded_run(ledger.reader, run_ref).state
    run_id = state.run_id
    rows = question_rows(state, kinds=kinds, verdict=verdict, scorer_id=scorer_id)
    if as_json:
        echo_json([row.model_dump() for row in rows])
        return
    if not rows:
        click.echo(f"no question of run {run_id} matches")
        return
    if state.mode == "retrieval":
        assert state.started is not None  # a retrieval run is one by its RunStarted
        cells = [(r.question_id, r.kind, r.status, None if r.recall is None else f"{r.recall:.3f}", _summary(r.text, 70))
                 for r in rows]
        click.echo(render_table(cells, ("question", "kind", "status", f"recall@{state.started.config.settings.k}",
                                        "text"), align=["left", "left", "left", "right", "left"]))
    else:
        cells = [(r.question_id, r.kind, r.status, r.verdict, _summary(r.text, 70)) for r in rows]
        click.echo(render_table(cells, ("question", "kind", "status", "verdict", "text"), align=["left"] * 5))
    click.echo(wrap_prose(f"{len(rows)} question(s); one in full: `benchledger question {run_id} "
                          f"{rows[0].question_id}`", current_width()))


@click.command("question")
@run_argument
@click.argument("question_id")
@json_option
@pass_app
def question(app: AppContext, run_ref: str, question_id: str, as_json: bool) -> None:
    """Show one question: recalled context with scores, answer, verdicts and reasons, tokens, timings."""
    with open_ledger(app, create=False) as ledger:
        state = recorded_run(ledger.reader, run_ref).state
        run_id = state.run_id
        if question_id not in state.questions:
            raise BadInput(f"run {run_id} has no question {question_id!r}; list them with "
                           f"`benchledger questions {run_id}`", field="question_id")
        detail = question_detail(state, question_id)
        context = ledger.reader.get_blob(detail.recalled.context_hash).decode() if detail.recalled else None
        notes_of = folds_of(state).question_notes
        notes = notes_of(state, question_id, state.default_scorer) if notes_of is not None else []
    if as_json:
        echo_json({**detail.model_dump(mode="json"), "context": context, **({"notes": notes} if notes else {})})
        return
    out: list[str] = []
    out.append(f"{detail.question_id} [{detail.kind}] asked by {detail.asking_user or '-'}: {detail.status}")
    out.append(f"  Q: {detail.text}")
    out.append(f"  gold: {detail.gold}")
    if detail.recalled:
        r = detail.recalled
        out.append(f"  recalled k={r.k} in {r.latency_ms:.1f} ms, ~{r.context_tokens} tokens:")
        if r.truncated_candidates:
            budget = f"budget={r.token_budget}" if r.token_budget is not None else "no budget"
            out.append(f"    held to k={r.k}, {budget} (estimated tokens of the candidates' text):")
            out.append(f"    benchledger cut {r.truncated_candidates} more candidates the memory returned "
                       f"(~{r.truncated_tokens:,} tokens)")
        cells = [(item.rank, item.doc_id, f"{item.score:.3f}", item.author, item.channel) for item in r.items]
        out.append(render_table(cells, ("rank", "document", "score", "author", "channel"),
                                align=["right", "left", "right", "left", "left"], indent="    "))
    if detail.answered:
        a = detail.answered
        cache = " (cache hit)" if a.cache_hit else ""
        out.append(f"  answer ({a.model}, {a.usage.prompt_tokens}+{a.usage.completion_tokens} tokens, "
                   f"{a.latency_ms:.0f} ms{cache}): {a.answer}" + ("  [abstained]" if a.abstained else ""))
    for scorer, j in detail.judged.items():
        out.append(f"  verdict [{scorer} {j.model}]: {j.verdict.upper()}  {j.reason}")
    for note in notes:
        out.append(f"  {note}")
    for f in detail.failures:
        stage = f"{f.stage} {f.scorer_id}" if f.scorer_id else f.stage
        out.append(f"  failure {stage} attempt {f.attempt} ({'resolved' if f.resolved else 'open'}): {f.error_class}: {f.message}")
    if context:
        out.append("  context:")
        out.append("\n".join("    " + line for line in context.splitlines()))
    click.echo(wrap_prose("\n".join(out), current_width()))


COMMANDS = [runs, show, events, failures, questions, question]
