"""`benchledger diff RUN_A RUN_B`: what differs between two runs, first in how they were configured,
then question by question.

Opens the ledger, folds both runs, makes one library call (`projections.diff.diff_runs` for two
question-answering runs, `projections.retrieval_diff.diff_retrieval` for two retrieval runs) and
renders the result: the configuration differences first, then (for runs over different corpora or
questions, refused unless `--allow-different`) the warning, then the paired table.
"""

from __future__ import annotations

import click
from benchledger.cli.common import AppContext, echo_json, json_option, open_ledger, pass_app
from benchledger.errors import BadInput
from benchledger.orchestration.recorded import recorded_run
from benchledger.projections.config_diff import ConfigDifference
from benchledger.projections.diff import DiffSlice, RunDiff, diff_runs
from benchledger.projections.retrieval_diff import RetrievalDiff, RetrievalDiffSlice, diff_retrieval
from benchledger.tables import SEPARATOR, current_width, render_table, wrap_prose

__all__ = ["COMMANDS", "diff", "render_diff", "render_retrieval_diff"]

_SHOWN_IDS = 20
_SHOWN_VALUE = 60


@click.command("diff")
@click.argument("run_a", metavar="RUN_A")
@click.argument("run_b", metavar="RUN_B")
@click.option("--scorer-a", "scorer_a", default=None, help="Scorer id of RUN_A [default: its headline scorer].")
@click.option("--scorer-b", "scorer_b", default=None, help="Scorer id of RUN_B [default: its headline scorer].")
@click.option("--allow-different", is_flag=True,
              help="Compare runs over different corpora or planned questions (flagged in the output).")
@json_option
@pass_app
def diff(app: AppContext, run_a: str, run_b: str, scorer_a: str | None, scorer_b: str | None,
         allow_different: bool, as_json: bool) -> None:
    """Compare two runs: configuration differences, then per question (accuracy, or recall for retrieval
    runs) with B - A, a paired bootstrap 95% CI, and what flipped."""
    with open_ledger(app, create=False) as ledger:
        state_a, state_b = recorded_run(ledger.reader, run_a).state, recorded_run(ledger.reader, run_b).state
    id_a, id_b = state_a.run_id, state_b.run_id
    if state_a.mode != state_b.mode:
        raise BadInput(f"run {id_a} is a {state_a.mode} run and run {id_b} a {state_b.mode} run; diff compares "
                       "two runs of the same mode", field="run")
    result: RunDiff | RetrievalDiff
    if state_a.mode == "retrieval":
        if scorer_a or scorer_b:
            raise BadInput("retrieval runs have no scorers; drop --scorer-a/--scorer-b", field="scorer")
        result = diff_retrieval(state_a, state_b, allow_different=allow_different)
    else:
        result = diff_runs(state_a, state_b, scorer_a=scorer_a, scorer_b=scorer_b, allow_different=allow_different)
    if as_json:
        echo_json(result.model_dump(mode="json"))
        return
    text = render_retrieval_diff(result) if isinstance(result, RetrievalDiff) else render_diff(result)
    click.echo(wrap_prose(text, current_width()))


def _pct(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}%"


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:_SHOWN_IDS])
    return shown + (f", … ({len(ids) - _SHOWN_IDS} more; see --json)" if len(ids) > _SHOWN_IDS else "")


def _listed(label: str, ids: list[str]) -> str:
    return f"  {label} ({len(ids)}): {_ids(ids) or '-'}"


def _value(value: object) -> str:
    text = "none" if value is None else str(value)
    return text if len(text) <= _SHOWN_VALUE else text[:_SHOWN_VALUE - 1] + "…"


def render_config(differences: list[ConfigDifference]) -> list[str]:
    """The configuration differences, first thing a diff says."""
    if not differences:
        return ["configuration: the same (every RunConfig, RunSettings, Selection and provenance field)", ""]
    rows = [(d.field, _value(d.a), _value(d.b)) for d in differences]
    return [f"configuration: {len(differences)} field(s) differ",
            render_table(rows, ("field", "A", "B"), align=["left"] * 3, indent="  "), ""]


def _warnings(different_corpora: bool, different_questions: bool, detail: str) -> list[str]:
    lines = []
    if different_corpora:
        lines.append("WARNING: DIFFERENT CORPORA: the runs did not see the same documents")
    if different_questions:
        lines.append(f"WARNING: DIFFERENT QUESTIONS{detail}: only shared question ids are paired")
    return lines


def _row(name: str, s: DiffSlice) -> list[object]:
    ci = f"[{_pct(s.ci_low, True)}, {_pct(s.ci_high, True)}]" if s.ci_low is not None else ""
    p = f"{s.mcnemar_p:.4g}" if s.mcnemar_p is not None else "n/a"
    return [name, s.paired, _pct(s.accuracy_a), _pct(s.accuracy_b), _pct(s.difference, True), ci, p,
            len(s.correct_to_wrong), len(s.wrong_to_correct)]


def render_diff(d: RunDiff) -> str:
    warnings = _warnings(d.different_corpora, d.different_questions,
                         f" ({len(d.only_in_a)} only in A, {len(d.only_in_b)} only in B, "
                         f"{len(d.changed_questions)} changed)")
    if d.different_corpora:
        warnings[0] += f" (fingerprint {(d.fingerprint_a or 'none')[:16]} vs {(d.fingerprint_b or 'none')[:16]})"
    lines = render_config(d.config) + warnings
    lines.append(f"A {d.run_a} (scorer {d.scorer_a or 'none: never judged'})")
    lines.append(f"B {d.run_b} (scorer {d.scorer_b or 'none: never judged'})")
    lines.append("")
    rows = [_row(kind, s) for kind, s in d.by_kind.items()] + [SEPARATOR, _row("overall", d.overall)]
    lines.append(render_table(rows, ("kind", "paired", "acc A", "acc B", "B - A", "95% CI (pts)", "McNemar p",
                                     "A✓B✗", "A✗B✓"), indent="  ", drop=("A✓B✗", "A✗B✓")))
    lines.append("")
    lines.append(_listed("correct -> wrong", d.overall.correct_to_wrong))
    lines.append(_listed("wrong -> correct", d.overall.wrong_to_correct))
    if d.excluded:
        lines.append(_listed("excluded, never scored",
                             [f"{e.question_id} (A {e.status_a}, B {e.status_b})" for e in d.excluded]))
    lines.append(f"  bootstrap: {d.bootstrap_resamples} paired resamples, seed {d.bootstrap_seed}; "
                 "unclear verdicts count as not correct")
    return "\n".join(lines)


def _score(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _retrieval_row(name: str, s: RetrievalDiffSlice) -> list[object]:
    ci = f"[{_score(s.ci_low, True)}, {_score(s.ci_high, True)}]" if s.ci_low is not None else ""
    return [name, s.paired, _score(s.recall_a), _score(s.recall_b), _score(s.difference, True), ci,
            _score(s.ndcg_a), _score(s.ndcg_b), len(s.worsened), len(s.improved)]


def render_retrieval_diff(d: RetrievalDiff) -> str:
    lines = render_config(d.config) + _warnings(d.different_corpora, d.different_questions, "")
    lines += [f"A {d.run_a} (retrieval)", f"B {d.run_b} (retrieval)", ""]
    rows = [_retrieval_row(kind, s) for kind, s in d.by_kind.items()] + [SEPARATOR, _retrieval_row("overall", d.overall)]
    k = d.k
    lines.append(render_table(rows, ("kind", "paired", f"recall@{k} A", f"recall@{k} B", "B - A", "95% CI",
                                     f"ndcg@{k} A", f"ndcg@{k} B", "worse", "better"), indent="  "))
    lines.append("")
    lines.append(_listed("recall worse in B", d.overall.worsened))
    lines.append(_listed("recall better in B", d.overall.improved))
    if d.excluded:
        lines.append(_listed("excluded, not paired", [f"{e.question_id} ({e.reason})" for e in d.excluded]))
    lines.append(f"  scored at k={k}; bootstrap: {d.bootstrap_resamples} paired resamples, seed {d.bootstrap_seed}")
    return "\n".join(lines)


COMMANDS = [diff]
