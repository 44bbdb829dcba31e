"""`benchledger diff RUN_A RUN_B`: paired accuracy of run b against run a, and what flipped.

Opens the ledger, folds both runs, makes one library call (`projections.diff.diff_runs`) and
renders the result. Runs over different corpora or questions are refused unless
`--allow-different`, and then the warning is the first thing printed.
"""

from __future__ import annotations

import click
from benchledger.cli.common import AppContext, checked_events, echo_json, json_option, open_ledger, pass_app
from benchledger.projections.diff import DiffSlice, RunDiff, diff_runs
from benchledger.projections.state import fold_run

__all__ = ["COMMANDS", "diff"]

_SHOWN_IDS = 20


@click.command("diff")
@click.argument("run_a", metavar="RUN_A")
@click.argument("run_b", metavar="RUN_B")
@click.option("--scorer-a", "scorer_a", default=None, help="Scorer id of RUN_A [default: its newest].")
@click.option("--scorer-b", "scorer_b", default=None, help="Scorer id of RUN_B [default: its newest].")
@click.option("--allow-different", is_flag=True,
              help="Compare runs over different corpora or planned questions (flagged in the output).")
@json_option
@pass_app
def diff(app: AppContext, run_a: str, run_b: str, scorer_a: str | None, scorer_b: str | None,
         allow_different: bool, as_json: bool) -> None:
    """Compare two runs question by question: accuracies, B - A with a bootstrap 95% CI, exact McNemar p, flips."""
    with open_ledger(app, create=False) as ledger:
        id_a, id_b = ledger.resolve_run(run_a), ledger.resolve_run(run_b)
        result = diff_runs(fold_run(id_a, checked_events(ledger, id_a)), fold_run(id_b, checked_events(ledger, id_b)),
                           scorer_a=scorer_a, scorer_b=scorer_b, allow_different=allow_different)
    if as_json:
        echo_json(result.model_dump(mode="json"))
        return
    click.echo(render_diff(result))


def _pct(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}%"


def _line(name: str, s: DiffSlice) -> str:
    ci = f"[{_pct(s.ci_low, True)}, {_pct(s.ci_high, True)}]" if s.ci_low is not None else ""
    p = f"{s.mcnemar_p:.4g}" if s.mcnemar_p is not None else "n/a"
    return (f"  {name:<18}{s.paired:>7}{_pct(s.accuracy_a):>9}{_pct(s.accuracy_b):>9}{_pct(s.difference, True):>9}"
            f"  {ci:<18}{p:>10}{len(s.correct_to_wrong):>8}{len(s.wrong_to_correct):>8}")


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:_SHOWN_IDS])
    return shown + (f", … ({len(ids) - _SHOWN_IDS} more; see --json)" if len(ids) > _SHOWN_IDS else "")


def render_diff(d: RunDiff) -> str:
    lines = []
    if d.different_corpora:
        lines.append(f"WARNING: DIFFERENT CORPORA (fingerprint {(d.fingerprint_a or 'none')[:16]} vs "
                     f"{(d.fingerprint_b or 'none')[:16]}): the runs did not see the same messages")
    if d.different_questions:
        lines.append(f"WARNING: DIFFERENT QUESTIONS ({len(d.only_in_a)} only in A, {len(d.only_in_b)} only in B, "
                     f"{len(d.changed_questions)} changed): only shared question ids are paired")
    lines.append(f"A {d.run_a} (scorer {d.scorer_a or 'none: never judged'})")
    lines.append(f"B {d.run_b} (scorer {d.scorer_b or 'none: never judged'})")
    lines.append("")
    header = (f"  {'kind':<18}{'paired':>7}{'acc A':>9}{'acc B':>9}{'B - A':>9}  {'95% CI (pts)':<18}"
              f"{'McNemar p':>10}{'A✓B✗':>8}{'A✗B✓':>8}")
    lines += [header, "  " + "-" * (len(header) - 2)]
    lines += [_line(kind, s) for kind, s in d.by_kind.items()]
    lines += ["  " + "-" * (len(header) - 2), _line("overall", d.overall), ""]
    lines.append(f"  correct -> wrong ({len(d.overall.correct_to_wrong)}): {_ids(d.overall.correct_to_wrong) or '-'}")
    lines.append(f"  wrong -> correct ({len(d.overall.wrong_to_correct)}): {_ids(d.overall.wrong_to_correct) or '-'}")
    if d.excluded:
        shown = [f"{e.question_id} (A {e.status_a}, B {e.status_b})" for e in d.excluded]
        lines.append(f"  excluded, never scored ({len(d.excluded)}): {_ids(shown)}")
    lines.append(f"  bootstrap: {d.bootstrap_resamples} paired resamples, seed {d.bootstrap_seed}; "
                 "unclear verdicts count as not correct")
    return "\n".join(lines)


COMMANDS = [diff]
