"""Inspecting the ledger: `runs`, `show`, `events`, `failures`, `question`.

Each command opens the ledger, resolves RUN (a full id, a unique prefix, or `latest`), makes one
library call and renders it.
"""

from __future__ import annotations

from pathlib import Path

import click
from benchledger.cli.common import AppContext, echo_json, json_option, open_ledger, pass_app, run_argument
from benchledger.cli.commands.retrieval import render_metrics
from benchledger.cli.render import show_report, write_json_atomic
from benchledger.errors import BadInput
from benchledger.ledger.events import EVENT_TYPES
from benchledger.projections.inspect import failure_entries, group_failures, question_detail
from benchledger.orchestration.reports import report_of, retrieval_of
from benchledger.projections.state import fold_run

__all__ = ["COMMANDS"]


@click.command("runs")
@json_option
@pass_app
def runs(app: AppContext, as_json: bool) -> None:
    """List the runs on the ledger, newest first."""
    with open_ledger(app, create=False) as ledger:
        rows = ledger.runs()
    if as_json:
        echo_json([r.model_dump() for r in rows])
        return
    if not rows:
        click.echo("no runs on this ledger")
    for r in rows:
        click.echo(f"{r.run_id}  {r.started_at}  {r.benchmark}/{r.subset}  {r.mode:<9}  memory={r.memory}  "
                   f"events={r.events}  {r.finished or 'unfinished'}")


@click.command("show")
@run_argument
@click.option("--scorer", "scorer_id", default=None,
              help="Scorer id to report [default: the newest of the benchmark's official scorer, else the newest].")
@click.option("--scoring-rule", type=int, default=None, help="Scoring rule version [default: current].")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Also write the report JSON here.")
@json_option
@pass_app
def show(app: AppContext, run_ref: str, scorer_id: str | None, scoring_rule: int | None, out: Path | None,
         as_json: bool) -> None:
    """Print a run's report (scorecard, or JSON with --json)."""
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.resolve_run(run_ref)
        events = ledger.events(run_id)
        state = fold_run(run_id, events)
        if state.mode == "retrieval":
            _show_retrieval(state, retrieval_of(events), as_json=as_json, out=out)
            return
        try:
            rule = {"scoring_rule": scoring_rule} if scoring_rule is not None else {}
            report = report_of(state, scorer_id=scorer_id, **rule)  # the fold already made
        except KeyError:
            raise BadInput(f"run {run_id} has no scorer {scorer_id!r}; see `benchledger events {run_id} --type ScorerStarted`",
                           field="scorer") from None
        except ValueError as err:
            raise BadInput(str(err), field="scoring_rule") from None
    show_report(report, out=out, as_json=as_json)


def _show_retrieval(state, metrics: dict, *, as_json: bool, out: Path | None) -> None:
    cfg = state.started.config
    value = {"run_id": state.run_id, "mode": "retrieval", "benchmark": cfg.benchmark, "subset": cfg.subset,
             "memory": cfg.memory, "memory_version": cfg.memory_version, **metrics, "ledger_head": state.head}
    if out is not None:
        write_json_atomic(out, value)
    if as_json:
        echo_json(value)
        return
    click.echo(f"RETRIEVAL  {cfg.benchmark} / {cfg.subset}  run {state.run_id}")
    click.echo(f"  memory {cfg.memory} {cfg.memory_version}  k={metrics['k']}  "
               f"{state.finished.status if state.finished else 'unfinished'}")
    click.echo(render_metrics(metrics, metrics["k"]))
    click.echo(f"  ledger head {state.head}")


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
        run_id = ledger.resolve_run(run_ref)
        rows = ledger.events(run_id, types=types or None)
    if as_json:
        echo_json([{**r.model_dump(exclude={"event"}), "payload": r.event.model_dump(mode="json")} for r in rows])
        return
    if not rows:
        click.echo(f"no {' or '.join(types)} events in run {run_id}" if types else f"run {run_id} has no events")
    for r in rows:
        summary = r.event.model_dump_json(exclude={"type"})
        summary = summary if len(summary) <= 140 else summary[:139] + "…"
        click.echo(f"{r.seq:>8} {r.position:>6}  {r.recorded_at}  {r.type:<20} {summary}")


@click.command("failures")
@run_argument
@click.option("--stage", default=None, help="Only failures of this stage (recall, answer, judge, ...).")
@click.option("--group-by", type=click.Choice(["error"]), default=None, help="Group failures by error class.")
@json_option
@pass_app
def failures(app: AppContext, run_ref: str, stage: str | None, group_by: str | None, as_json: bool) -> None:
    """List a run's operational failures: stage, question, error, and whether a retry resolved it."""
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.resolve_run(run_ref)
        entries = failure_entries(fold_run(run_id, ledger.events(run_id)), stage=stage)
    if as_json:
        echo_json([e.model_dump() for e in entries] if not group_by else
                  [{"error_class": err, "count": n, "questions": q} for err, n, q in group_failures(entries)])
        return
    if not entries:
        click.echo("no failures")
        return
    if group_by:
        for error, count, questions in group_failures(entries):
            click.echo(f"{count:>5}  {error}: {', '.join(questions[:10])}{' …' if len(questions) > 10 else ''}")
        return
    for e in entries:
        state = "resolved" if e.resolved else "OPEN"
        click.echo(f"{state:<8} {e.stage:<7} {e.question_id or '-':<24} attempt {e.attempt}  {e.error_class}: {e.message}")


@click.command("question")
@run_argument
@click.argument("question_id")
@json_option
@pass_app
def question(app: AppContext, run_ref: str, question_id: str, as_json: bool) -> None:
    """Show one question: recalled context with scores, answer, verdicts and reasons, tokens, timings."""
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.resolve_run(run_ref)
        state = fold_run(run_id, ledger.events(run_id))
        if question_id not in state.questions:
            raise BadInput(f"run {run_id} has no question {question_id!r}; see `benchledger show {run_id}`",
                           field="question_id")
        detail = question_detail(state, question_id)
        context = ledger.get_blob(detail.recalled.context_hash).decode() if detail.recalled else None
    if as_json:
        echo_json({**detail.model_dump(mode="json"), "context": context})
        return
    click.echo(f"{detail.question_id} [{detail.kind}] asked by {detail.asking_user or '-'}: {detail.status}")
    click.echo(f"  Q: {detail.text}")
    click.echo(f"  gold: {detail.gold}")
    if detail.recalled:
        r = detail.recalled
        click.echo(f"  recalled k={r.k} in {r.latency_ms:.1f} ms, ~{r.context_tokens} tokens:")
        for item in r.items:
            click.echo(f"    {item.rank:>2}. {item.doc_id:<14} score {item.score:8.3f}  {item.author or ''} {item.channel or ''}")
    if detail.answered:
        a = detail.answered
        cache = " (cache hit)" if a.cache_hit else ""
        click.echo(f"  answer ({a.model}, {a.usage.prompt_tokens}+{a.usage.completion_tokens} tokens, "
                   f"{a.latency_ms:.0f} ms{cache}): {a.answer}" + ("  [abstained]" if a.abstained else ""))
    for scorer, j in detail.judged.items():
        click.echo(f"  verdict [{scorer} {j.model}]: {j.verdict.upper()}  {j.reason}")
    for f in detail.failures:
        click.echo(f"  failure {f.stage} attempt {f.attempt} ({'resolved' if f.resolved else 'open'}): {f.error_class}: {f.message}")
    if context:
        click.echo("  context:")
        click.echo("\n".join("    " + line for line in context.splitlines()))


COMMANDS = [runs, show, events, failures, question]
