"""`benchledger audit judge RUN`: plant answers whose verdict is known and ask the run's own judge.

One library call (`orchestration.audit.audit_judge`) then the audit's table, as the scorecard and
`show --json` carry it. The audit never changes the run's score.
"""

from __future__ import annotations

from pathlib import Path

import click

from benchledger.cli.hints import interrupted, suggest
from benchledger.cli.common import AppContext, echo_json, json_option, open_ledger, pass_app, run_argument
from benchledger.cli.options import setting_range
from benchledger.cli.progress import make_progress
from benchledger.cli.render import report_for
from benchledger.errors import RunIncomplete
from benchledger.ledger.events import AuditStarted
from benchledger.orchestration.audit import audit_judge
from benchledger.projections.scorecard import render_judge_audit
from benchledger.redaction import redact, register_secret_env
from benchledger.settings import Overrides

__all__ = ["COMMANDS"]


@click.group("audit")
def audit() -> None:
    """Read a score critically: stress-test the run's judge (never counted in the score)."""


@audit.command("judge")
@run_argument
@click.option("--scorer", "scorer_id", default=None, help="The scorer to audit [default: the report's scorer].")
@click.option("--answers", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Planted answers from a file (the LoCoMo audit's ap_eval_results*.json, or a JSON list of "
                   "{question_id, answer, expected, kind}) [default: derived from the run].")
@click.option("--plant-kind", default=None,
              help="What a file's plants are, as the table names them [default: the pinned audit file's kind "
                   "(specific_but_wrong, vague_but_topical), else planted_wrong].")
@click.option("--base-url", default=None, envvar="OPENAI_BASE_URL",
              help="OpenAI-compatible endpoint [default: where the scorer's calls went].")
@click.option("--api-key-env", default=None, help="Environment variable holding the API key.")
@click.option("--concurrency", type=setting_range("concurrency"), default=None, help="Judge calls in flight.")
@click.option("--max-attempts", type=setting_range("max_attempts"), default=None, help="Attempts per judge call.")
@click.option("--continue", "continue_audit", default=None, metavar="AUDIT",
              help="Finish an interrupted audit: ask only what it has not judged yet.")
@json_option
@pass_app
def judge(app: AppContext, run_ref: str, scorer_id: str | None, answers: Path | None, plant_kind: str | None,
          base_url: str | None,
          api_key_env: str | None, concurrency: int | None, max_attempts: int | None, continue_audit: str | None,
          as_json: bool) -> None:
    """Ask the run's judge, exactly as its scorer asks, about answers whose verdict is known; print its
    false-accept and false-reject rate per kind of plant, with 95% Wilson intervals."""
    if api_key_env:
        register_secret_env(api_key_env)
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.reader.resolve_run(run_ref)
        overrides = Overrides(base_url=base_url, api_key_env=api_key_env, concurrency=concurrency,
                              max_attempts=max_attempts)
        try:
            audit_id = audit_judge(ledger, run_id, scorer_id=scorer_id, answers=answers, plant_kind=plant_kind,
                                   overrides=overrides, continue_audit=continue_audit, redact=redact,
                                   progress=make_progress(app.log_format))
        except KeyboardInterrupt:
            started = [stored.event for stored in ledger.reader.events(run_id, types=["AuditStarted"])
                       if isinstance(stored.event, AuditStarted)]
            partial = continue_audit or (started[-1].audit_id if started else None)
            if partial is None:
                raise interrupted(f"nothing was recorded; run the same audit of run {run_id} again") from None
            raise interrupted(f"audit {partial} of run {run_id} is partial; what was judged is on the ledger. "
                              f"Finish it with: {suggest(app, 'audit', 'judge', run_id, '--continue', partial)}") from None
        report = report_for(ledger, run_id)
    audited = next(a for a in report.judge_audits or () if a.audit_id == audit_id)
    if as_json:
        echo_json(audited.model_dump(mode="json"))
    else:
        click.echo(f"run {run_id}: judge audit {audit_id}", err=True)
        click.echo("\n".join(line[2:] for line in render_judge_audit(audited)).strip("\n"))
    if audited.failed:
        raise RunIncomplete(f"audit {audit_id} of run {run_id}: {audited.failed} plant(s) failed operationally; "
                            f"finish it with `benchledger audit judge {run_id} --continue {audit_id}`")


COMMANDS = [audit]
