"""`benchledger rejudge RUN`: judge a run's recorded answers again under a new scorer, no answer-model call.

Stopped by Ctrl-C, it names the scorer it was filling and the `rejudge --continue` command that
finishes it, then exits 130.
"""

from __future__ import annotations

import typing
from collections import Counter
from pathlib import Path

import click

from benchledger.cli.common import AppContext, open_ledger, pass_app, run_argument
from benchledger.cli.hints import interrupted, suggest
from benchledger.cli.options import setting_range, split_csv
from benchledger.cli.progress import make_progress
from benchledger.cli.render import report_for, show_report
from benchledger.errors import BadInput, RunIncomplete
from benchledger.orchestration.gold_overlay import rejudge_with_overlay
from benchledger.orchestration.rejudge import rejudge_run
from benchledger.projections.report import Report
from benchledger.projections.scorecard import render_corrected_gold
from benchledger.projections.state import fold_run
from benchledger.redaction import redact, register_secret_env
from benchledger.settings import Overrides, Protocol

__all__ = ["COMMANDS"]


@click.command("rejudge")
@run_argument
@click.option("--judge-model", default=None, help="Judge model [default: the run's judge].")
@click.option("--judge-models", default=None,
              help="Memora's official protocol: the voting judges, comma-separated "
                   "[default: the run's, or the official trio].")
@click.option("--protocol", type=click.Choice(typing.get_args(Protocol)), default=None,
              help="Judge protocol; official: the benchmark's official scorer (LoCoMo's token F1 asks no model) "
                   "[default: the run's].")
@click.option("--prompts-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The official templates, when the run did not record them [default: beside the release].")
@click.option("--base-url", default=None, envvar="OPENAI_BASE_URL", help="OpenAI-compatible endpoint.")
@click.option("--api-key-env", default=None, help="Environment variable holding the API key.")
@click.option("--concurrency", type=setting_range("concurrency"), default=None, help="Judge calls in flight.")
@click.option("--max-attempts", type=setting_range("max_attempts"), default=None,
              help="Attempts per judge call [default: the run's].")
@click.option("--continue", "continue_scorer", default=None, metavar="SCORER",
              help="Finish an interrupted rejudge: judge what this scorer has not judged yet, as it did.")
@click.option("--gold-overlay", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Score the recorded answers against corrected gold (the LoCoMo audit's errors.json, or a "
                   "benchledger-gold-overlay/1 file), beside the official score: docs/critical-reading.md.")
@click.option("--scorer", "scorer_id", default=None,
              help="With --gold-overlay: the scorer whose judge re-scores [default: the report's scorer].")
@click.option("--json", "as_json", is_flag=True, help="Print the new report as JSON.")
@pass_app
def rejudge(app: AppContext, run_ref: str, judge_model: str | None, judge_models: str | None, protocol: str | None,
            prompts_dir: Path | None, base_url: str | None, api_key_env: str | None, concurrency: int | None,
            max_attempts: int | None, continue_scorer: str | None, gold_overlay: Path | None, scorer_id: str | None,
            as_json: bool) -> None:
    """Judge a run's recorded answers again under a new scorer id; the answer model is never called."""
    if api_key_env:
        register_secret_env(api_key_env)
    overrides = Overrides(base_url=base_url, api_key_env=api_key_env, concurrency=concurrency,
                          max_attempts=max_attempts)
    if gold_overlay is not None:
        if judge_model or judge_models or protocol or prompts_dir or continue_scorer:
            raise BadInput("--gold-overlay re-scores with a recorded scorer's own judge: give --scorer, not "
                           "--judge-model, --judge-models, --protocol, --prompts-dir or --continue", field="gold-overlay")
        _overlay(app, run_ref, gold_overlay, scorer_id=scorer_id, overrides=overrides, as_json=as_json)
        return
    if scorer_id is not None:
        raise BadInput("--scorer goes with --gold-overlay", field="scorer")
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.reader.resolve_run(run_ref)
        before = set(fold_run(run_id, ledger.reader.events(run_id, types=["ScorerStarted"])).scorers)
        try:
            scorer = rejudge_run(ledger, run_id, judge_model=judge_model, protocol=protocol, overrides=overrides,
                                 continue_scorer=continue_scorer, prompts_dir=prompts_dir,
                                 judge_models=tuple(split_csv((judge_models,))) if judge_models else (),
                                 redact=redact, progress=make_progress(app.log_format))
        except KeyboardInterrupt:
            after = fold_run(run_id, ledger.reader.events(run_id, types=["ScorerStarted"])).scorers
            started = continue_scorer or next((s for s in reversed(after) if s not in before), None)
            if started is None:
                raise interrupted(f"nothing was judged; run the same rejudge of run {run_id} again") from None
            raise interrupted(f"scorer {started} of run {run_id} is partial (`show` keeps leading with the headline "
                              f"scorer). Finish it with: {suggest(app, 'rejudge', run_id, '--continue', started)}"
                              ) from None
        click.echo(f"run {run_id}: {'scorer' if continue_scorer else 'new scorer'} {scorer}", err=True)
        report = report_for(ledger, run_id, scorer_id=scorer)
        show_report(report, as_json=as_json)
    require_scorer_complete(report, next_step=suggest(app, "rejudge", run_id, "--continue", scorer),
                            resume=suggest(app, "resume", run_id))


def require_scorer_complete(report: Report, *, next_step: str, resume: str) -> None:
    """RunIncomplete (exit 3, the run's failure code) unless the scorer judged every planned question:
    the line says how many it failed (by error) or left, and the command that continues it."""
    failed = [f for f in report.failures if f.question_id is not None and f.stage == "judge"]
    left = report.answered - report.judged - len(failed)
    unanswered = report.total - report.answered
    if not failed and left <= 0 and not unanswered:
        return
    parts = []
    if failed:
        errors = Counter(f.error_class for f in failed).most_common()
        parts.append(f"{len(failed)} failed ({', '.join(f'{error} {n}' for error, n in errors)})")
    if left > 0:
        parts.append(f"{left} not judged yet")
    line = (f"run {report.run_id}: scorer {report.scorer_id} judged {report.judged} of {report.answered} recorded "
            f"answer(s)" + (f", {'; '.join(parts)}; continue it with `{next_step}`" if parts else ""))
    if unanswered:
        line += f"; {unanswered} planned question(s) have no answer to judge (`{resume}` answers them)"
    raise RunIncomplete(line)


def _overlay(app: AppContext, run_ref: str, path: Path, *, scorer_id: str | None, as_json: bool,
             overrides: Overrides) -> None:
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.reader.resolve_run(run_ref)
        audit_id = rejudge_with_overlay(ledger, run_id, path, scorer_id=scorer_id, redact=redact,
                                        progress=make_progress(app.log_format), overrides=overrides)
        report = report_for(ledger, run_id)
    corrected = next(c for c in report.corrected_gold or () if c.audit_id == audit_id)
    if as_json:
        click.echo(corrected.model_dump_json(indent=2))
    else:
        click.echo(f"run {run_id}: gold overlay {audit_id}", err=True)
        click.echo("\n".join(line[2:] for line in render_corrected_gold(corrected)).strip("\n"))
    if corrected.overall.missing:
        raise RunIncomplete(f"gold overlay {audit_id} of run {run_id}: {corrected.overall.missing} replaced "
                            "question(s) failed operationally; run the same rejudge --gold-overlay again to finish it")


COMMANDS = [rejudge]
