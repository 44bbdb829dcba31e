"""`benchledger resume RUN`: continue an interrupted run from its events, then show its report."""

from __future__ import annotations

import click

from benchledger.cli.common import AppContext, open_ledger, pass_app, run_argument
from benchledger.cli.hints import interrupted, suggest
from benchledger.cli.options import setting_range
from benchledger.cli.progress import make_progress
from benchledger.cli.render import report_for, require_every_question_judged, show_report
from benchledger.errors import RunAborted
from benchledger.orchestration.resume import later_scorers_behind, recorded_settings, resume_run
from benchledger.projections.state import fold_run
from benchledger.redaction import redact, register_secret_env
from benchledger.settings import Overrides

__all__ = ["COMMANDS"]


@click.command("resume")
@run_argument
@click.option("--concurrency", type=setting_range("concurrency"), default=None, help="Override the run's concurrency.")
@click.option("--max-attempts", type=setting_range("max_attempts"), default=None, help="Override attempts per model call.")
@click.option("--base-url", default=None, help="Override the recorded endpoint (e.g. a new loopback port).")
@click.option("--memory-url", default=None, help="Override the recorded memory server URL (--memory http).")
@click.option("--memory-token-env", default=None, help="Override the environment variable holding the memory server's token.")
@click.option("--allow-memory-change", is_flag=True,
              help="Continue with a memory system other than the run's (recorded; the run becomes diagnostic).")
@pass_app
def resume(app: AppContext, run_ref: str, concurrency: int | None, max_attempts: int | None,
           base_url: str | None, memory_url: str | None, memory_token_env: str | None,
           allow_memory_change: bool) -> None:
    """Continue an interrupted run: re-check the corpus, re-prepare if the memory lost it, run what is missing."""
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.reader.resolve_run(run_ref)
        recorded = recorded_settings(fold_run(run_id, ledger.reader.events(run_id, types=["RunStarted"])))
        memory_options = {**recorded.memory_options, **({"url": memory_url} if memory_url else {}),
                          **({"token_env": memory_token_env} if memory_token_env else {})}
        overrides = Overrides(concurrency=concurrency, max_attempts=max_attempts, base_url=base_url,
                              memory_options=memory_options if memory_url or memory_token_env else None)
        for name in (memory_token_env, recorded.memory_options.get("token_env"), recorded.api_key_env):
            if name:
                register_secret_env(name)
        try:
            outcome = resume_run(ledger, run_id, redact=redact, progress=make_progress(app.log_format),
                                 allow_memory_change=allow_memory_change, overrides=overrides)
        except RunAborted:
            show_report(report_for(ledger, run_id))
            raise
        except KeyboardInterrupt:
            raise interrupted(f"run {run_id} stopped; what finished is on the ledger. Continue it with: "
                              f"{suggest(app, 'resume', run_id)}") from None
        if outcome.pending == 0 and not outcome.reprepared and not outcome.retried:
            click.echo(f"run {run_id} is already complete; nothing to resume", err=True)
        else:
            retried = f", retried the failed {', '.join(outcome.retried)}" if outcome.retried else ""
            click.echo(f"resumed run {run_id} (attempt {outcome.attempt}, {outcome.pending} question(s) pending"
                       + (", memory re-prepared" if outcome.reprepared else "") + retried + ")", err=True)
        for scorer, missing in later_scorers_behind(fold_run(run_id, ledger.reader.events(run_id))):
            click.echo(f"scorer {scorer} has {missing} answer(s) it has not judged; finish it with "
                       f"`benchledger rejudge {run_id} --continue {scorer}`", err=True)
        show_report(report_for(ledger, run_id))
        own = fold_run(run_id, ledger.reader.events(run_id, types=["ScorerStarted"])).scorers
        own_report = report_for(ledger, run_id, scorer_id=next(iter(own), None))  # resume judges with it
    require_every_question_judged(own_report, next_step=f"benchledger resume {run_id}", run_failures=True)


COMMANDS = [resume]
