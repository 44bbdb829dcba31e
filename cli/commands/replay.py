"""`benchledger replay RUN`: re-fold every projection from zero, to any point, under any scoring rule.

A retrieval run is re-folded into its recall metrics (it has no answers, so no scorecard).
"""

from __future__ import annotations

import click

from benchledger.cli.common import AppContext, open_ledger, pass_app, run_argument
from benchledger.cli.options import scoring_rule_help
from benchledger.cli.render import show_report, show_retrieval
from benchledger.errors import BadInput
from benchledger.orchestration.recorded import recorded_run
from benchledger.orchestration.reports import retrieval_of
from benchledger.projections.tallies import CURRENT_SCORING_RULE, SCORING_RULES

__all__ = ["COMMANDS"]


@click.command("replay")
@run_argument
@click.option("--until", "until_seq", type=click.IntRange(min=1), default=None, help="Fold only events up to this seq.")
@click.option("--scoring-rule", type=int, default=CURRENT_SCORING_RULE, help=scoring_rule_help())
@click.option("--scorer", "scorer_id", default=None,
              help="Scorer id [default: the headline scorer: the first that meets the benchmark's protocol, else the first].")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_app
def replay(app: AppContext, run_ref: str, until_seq: int | None, scoring_rule: int, scorer_id: str | None,
           as_json: bool) -> None:
    """Re-fold every projection from zero (to any point) and print the report; no model is called."""
    if scoring_rule not in SCORING_RULES:
        raise BadInput(f"unknown scoring rule {scoring_rule}; known: {sorted(SCORING_RULES)}", field="scoring_rule")
    with open_ledger(app, create=False) as ledger:
        run = recorded_run(ledger.reader, run_ref, until_seq=until_seq)
    run_id, events, state = run.run_id, run.events, run.state
    if not events:
        raise BadInput(f"run {run_id} has no events up to seq {until_seq}", field="until")
    if state.mode == "retrieval":
        if scorer_id is not None:
            raise BadInput(f"run {run_id} is a retrieval run: it has no scorers; drop --scorer", field="scorer")
        click.echo(f"replayed {state.events} events of run {run_id} up to seq {state.last_seq}; retrieval "
                   f"metrics (no answers, so no scorecard)", err=True)
        show_retrieval(state, retrieval_of(events), as_json=as_json)
        return
    report = run.report(scorer_id=scorer_id, scoring_rule=scoring_rule)
    versions = ", ".join(f"{k}={v}" for k, v in report.projection_versions.items())
    click.echo(f"replayed {report.events} events of run {run_id} up to seq {report.last_seq}; "
               f"projection versions: {versions}", err=True)
    show_report(report, as_json=as_json)


COMMANDS = [replay]
