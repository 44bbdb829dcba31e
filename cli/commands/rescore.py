"""Re-scoring without the answer model: `rejudge` (a new judge) and `replay` (a new fold)."""

from __future__ import annotations

import click
from benchledger.cli.common import AppContext, checked_events, open_ledger, pass_app, run_argument
from benchledger.cli.logging_setup import redact, register_secret_env
from benchledger.cli.progress import make_progress
from benchledger.cli.render import report_for, show_report
from benchledger.errors import BadInput
from benchledger.orchestration.rejudge import rejudge_run
from benchledger.projections import build_report
from benchledger.projections.tallies import CURRENT_SCORING_RULE, SCORING_RULES

__all__ = ["COMMANDS"]


@click.command("rejudge")
@run_argument
@click.option("--judge-model", default=None, help="Judge model [default: the run's judge].")
@click.option("--protocol", type=click.Choice(["reference", "typed"]), default=None, help="Judge protocol [default: the run's].")
@click.option("--base-url", default=None, envvar="OPENAI_BASE_URL", help="OpenAI-compatible endpoint.")
@click.option("--api-key-env", default=None, help="Environment variable holding the API key.")
@click.option("--concurrency", type=click.IntRange(1, 256), default=None, help="Judge calls in flight.")
@click.option("--max-attempts", type=click.IntRange(1, 20), default=6, show_default=True, help="Attempts per judge call.")
@click.option("--continue", "continue_scorer", default=None, metavar="SCORER",
              help="Finish an interrupted rejudge: judge what this scorer has not judged yet, as it did.")
@click.option("--json", "as_json", is_flag=True, help="Print the new report as JSON.")
@pass_app
def rejudge(app: AppContext, run_ref: str, judge_model: str | None, protocol: str | None, base_url: str | None,
            api_key_env: str | None, concurrency: int | None, max_attempts: int, continue_scorer: str | None,
            as_json: bool) -> None:
    """Judge a run's recorded answers again under a new scorer id; the answer model is never called."""
    if api_key_env:
        register_secret_env(api_key_env)
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.resolve_run(run_ref)
        scorer = rejudge_run(ledger, run_id, judge_model=judge_model, protocol=protocol, base_url=base_url,
                             api_key_env=api_key_env, concurrency=concurrency, max_attempts=max_attempts,
                             continue_scorer=continue_scorer,
                             redact=redact, progress=make_progress(app.log_format))
        click.echo(f"run {run_id}: {'scorer' if continue_scorer else 'new scorer'} {scorer}", err=True)
        show_report(report_for(ledger, run_id, scorer_id=scorer), as_json=as_json)


@click.command("replay")
@run_argument
@click.option("--until", "until_seq", type=click.IntRange(min=1), default=None, help="Fold only events up to this seq.")
@click.option("--scoring-rule", type=int, default=CURRENT_SCORING_RULE, show_default=True,
              help="Scoring rule version: " + "; ".join(f"{k} = {v}" for k, v in SCORING_RULES.items()))
@click.option("--scorer", "scorer_id", default=None, help="Scorer id [default: the newest].")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_app
def replay(app: AppContext, run_ref: str, until_seq: int | None, scoring_rule: int, scorer_id: str | None,
           as_json: bool) -> None:
    """Re-fold every projection from zero (to any point) and print the report; no model is called."""
    if scoring_rule not in SCORING_RULES:
        raise BadInput(f"unknown scoring rule {scoring_rule}; known: {sorted(SCORING_RULES)}", field="scoring_rule")
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.resolve_run(run_ref)
        events = checked_events(ledger, run_id, until_seq=until_seq)
    if not events:
        raise BadInput(f"run {run_id} has no events up to seq {until_seq}", field="until")
    try:
        report = build_report(run_id, events, scorer_id=scorer_id, scoring_rule=scoring_rule)
    except KeyError:
        raise BadInput(f"no scorer {scorer_id!r} in run {run_id} up to that point", field="scorer") from None
    versions = ", ".join(f"{k}={v}" for k, v in report.projection_versions.items())
    click.echo(f"replayed {report.events} events of run {run_id} up to seq {report.last_seq}; "
               f"projection versions: {versions}", err=True)
    show_report(report, as_json=as_json)


COMMANDS = [rejudge, replay]
