"""`benchledger agreement RUN`: how far two scorers (judges) of one run agree, and where they differ.

Opens the ledger, folds the run, makes one library call (`projections.agreement.judge_agreement`)
and renders it.
"""

from __future__ import annotations

import click
from benchledger.cli.common import AppContext, echo_json, json_option, open_ledger, pass_app, run_argument
from benchledger.orchestration.recorded import recorded_run
from benchledger.projections.agreement import Agreement, AgreementSlice, judge_agreement
from benchledger.tables import SEPARATOR, render_table

__all__ = ["COMMANDS", "agreement"]


@click.command("agreement")
@run_argument
@click.option("--scorers", nargs=2, default=None, metavar="A B",
              help="The two scorer ids to compare [default: the run's two newest].")
@json_option
@pass_app
def agreement(app: AppContext, run_ref: str, scorers: tuple[str, str] | None, as_json: bool) -> None:
    """Judge agreement of two scorers on one run: agreement rate, Cohen's kappa, the disagreements."""
    with open_ledger(app, create=False) as ledger:
        result = judge_agreement(recorded_run(ledger.reader, run_ref).state, scorers or None)
    if as_json:
        echo_json(result.model_dump(mode="json"))
        return
    click.echo(render_agreement(result))


def _row(name: str, s: AgreementSlice) -> list[object]:
    rate = "n/a" if s.agreement_rate is None else f"{100 * s.agreement_rate:.1f}%"
    kappa = "n/a" if s.kappa is None else f"{s.kappa:.3f}"
    return [name, s.both_judged, s.agreed, rate, kappa]


def render_agreement(a: Agreement) -> str:
    lines = [f"run {a.run_id}", f"  A {a.scorer_a} ({a.judge_model_a})", f"  B {a.scorer_b} ({a.judge_model_b})", ""]
    rows = [_row(kind, s) for kind, s in a.by_kind.items()] + [SEPARATOR, _row("overall", a.overall)]
    lines += [render_table(rows, ("kind", "both", "agreed", "rate", "kappa"), indent="  "), ""]
    if a.judged_by_one:
        lines.append(f"  judged by only one scorer, left out ({len(a.judged_by_one)}): {', '.join(a.judged_by_one)}")
    if not a.disagreements:
        lines.append("  disagreements: none")
        return "\n".join(lines)
    lines.append(f"  disagreements ({len(a.disagreements)}):")
    cells = [(d.question_id, d.kind, f"{d.verdict_a}: {d.reason_a}", f"{d.verdict_b}: {d.reason_b}")
             for d in a.disagreements]
    lines.append(render_table(cells, ("question", "kind", "A", "B"), align=["left"] * 4, indent="    "))
    return "\n".join(lines)


COMMANDS = [agreement]
