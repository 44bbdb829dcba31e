"""`benchledger verify [RUN] [--expect-head HASH]`: schema, chain, blobs, cached responses, views;
`benchledger verify FILE [--expect-head HASH] [--signer PUBKEY]`: a bundle, checked and re-folded
offline from the file alone (`orchestration.bundle_check`), no ledger opened;
`benchledger verify RUN --against-source` / `--spot-check N [--seed S]`: a third party's checks of
what the run's machine saw (`orchestration.source_check`, `orchestration.spot_check`), each appended
to the run as its own event and never in its score (a bundle's run is verified, then copied into
the selected ledger and checked there)."""

from __future__ import annotations

from pathlib import Path

import click
from benchledger.cli.common import AppContext, echo_json, json_option, open_ledger, pass_app
from benchledger.cli.options import setting_range
from benchledger.cli.render import show_report
from benchledger.errors import BadInput, CheckFailed
from benchledger.orchestration.bundle_check import is_bundle
from benchledger.orchestration.recorded import recorded_run
from benchledger.orchestration.reports import refold_views
from benchledger.projections.pinned import pinned_notes

__all__ = ["COMMANDS"]


@click.command("verify")
@click.argument("run_ref", metavar="[RUN|FILE]", required=False)
@click.option("--expect-head", "expect_head", metavar="HASH", default=None,
              help="A head printed earlier (a report's ledger head): fail unless the ledger still holds it; with "
                   "RUN, also say what was appended to the run after it and which segments its score counts; with "
                   "FILE, the bundle's head.")
@click.option("--signer", "signer", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="PUBKEY",
              help="With FILE: the bundle must be signed by this Ed25519 public key (PEM, as `openssl pkey -pubout` "
                   "writes it), the author's, got from them rather than from the bundle.")
@click.option("--against-source", "against_source", is_flag=True, default=False,
              help="With RUN (or FILE): re-read, from each file's official source (the package's pin table, never the URL the run "
                   "recorded), the hashes of the release files the run recorded; recorded as a check of the run.")
@click.option("--github-raw", default=None, metavar="URL",
              help="With --against-source: base URL of raw GitHub files [env BENCHLEDGER_GITHUB_RAW; default "
                   "https://raw.githubusercontent.com]")
@click.option("--hub", default=None, metavar="URL",
              help="With --against-source: base URL of the Hugging Face hub [env HF_ENDPOINT; default https://huggingface.co]")
@click.option("--spot-check", "spot_n", type=click.IntRange(min=1), default=None, metavar="N",
              help="With RUN (or FILE): send the answer and judge requests of N recorded questions (a seeded draw) to the "
                   "provider again and say how many agree; recorded as a check of the run.")
@click.option("--seed", type=int, default=0, show_default=True, help="With --spot-check: the seed of the draw.")
@click.option("--scorer", "scorer_id", default=None,
              help="With --spot-check: the scorer whose verdicts are checked [default: the report's scorer].")
@click.option("--base-url", default=None,
              help="With --spot-check: the provider's OpenAI-compatible endpoint [default: where the run's calls went].")
@click.option("--api-key-env", default=None,
              help="With --spot-check: the environment variable holding your API key [default: the run's].")
@click.option("--max-attempts", type=setting_range("max_attempts"), default=None,
              help="With --spot-check: attempts per model call [default: the run's].")
@click.option("--by", "checked_by", default=None, metavar="NAME",
              help="With a check: who checks, as recorded with it [default: the local user name].")
@json_option
@pass_app
def verify(app: AppContext, run_ref: str | None, expect_head: str | None, signer: Path | None, against_source: bool,
           github_raw: str | None, hub: str | None, spot_n: int | None, seed: int, scorer_id: str | None,
           base_url: str | None, api_key_env: str | None, max_attempts: int | None, checked_by: str | None,
           as_json: bool) -> None:
    """Check schema, hash chain, blobs, cached responses and saved views; exit 1 naming the first bad seq.
    Given a bundle FILE (`export RUN --bundle FILE`), check it offline and print its report again.
    With --against-source or --spot-check N, check what the run's machine saw against the official
    source or the provider, and append the check to the run (never in its score); a bundle FILE is
    verified first, then its run copied into the ledger, where the check is recorded."""
    checking = against_source or spot_n is not None
    if run_ref is not None and is_bundle(Path(run_ref)):
        if not checking:
            _verify_bundle(Path(run_ref), expect_head, signer, as_json)
            return
        run_ref = _bundle_into_ledger(app, Path(run_ref), expect_head, signer)
        expect_head = None
    if signer is not None:
        raise BadInput("--signer checks who signed a bundle; pass the bundle FILE", field="signer")
    if expect_head is not None and checking:
        raise BadInput("--expect-head pins a bundle's head or checks a ledger; a check of a RUN takes the run as it "
                       "stands", field="expect_head")
    _refuse_stray(against_source, spot_n, github_raw=github_raw, hub=hub, seed=seed, scorer=scorer_id,
                  base_url=base_url, api_key_env=api_key_env, max_attempts=max_attempts, by=checked_by)
    if checking:
        if run_ref is None:
            raise BadInput("a check is of one run: verify RUN --against-source / --spot-check N", field="run")
        _check_run(app, run_ref, against_source=against_source, spot_n=spot_n, seed=seed, scorer_id=scorer_id,
                   github_raw=github_raw, hub=hub, base_url=base_url, api_key_env=api_key_env,
                   max_attempts=max_attempts, checked_by=checked_by, as_json=as_json)
        return
    notes: list[str] = []
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.reader.resolve_run(run_ref) if run_ref else None
        result = ledger.reader.verify(run_id, refold=refold_views, expect_head=expect_head)
        if result.ok and run_id is not None and expect_head is not None:
            pinned = recorded_run(ledger.reader, run_id, expect_head=expect_head).pinned
            if pinned is not None:  # always, with expect_head
                notes = pinned_notes(pinned, pinned.state, pinned.state.default_scorer,
                                     ledger.reader.run_writers(run_id))
    if as_json:
        echo_json(result.model_dump())
    if not result.ok:
        where = f" at seq {result.first_bad_seq}" if result.first_bad_seq is not None else ""
        raise CheckFailed(f"verify failed{where}: {result.problem}")
    if not as_json:
        scope = f"run {run_id}" if run_id else "the whole ledger"
        click.echo(f"ok: {result.checked} events of {scope} verified (schema, chain, blobs, cache, "
                   f"views); head {result.head}")
        for line in notes:
            click.echo(line)
        for line in result.stale:
            click.echo(f"note: {line}")
        for line in result.legacy_keys:
            click.echo(f"note: {line}")


def _bundle_into_ledger(app: AppContext, path: Path, expect_head: str | None, signer_key: Path | None) -> str:
    """A bundle to check: verified as `verify FILE` verifies it, then its run copied into the selected ledger
    (created if need be; rows it already holds are kept), where the check is appended. The run's id."""
    from benchledger.orchestration.bundle_check import check_bundle, read_bundle
    from benchledger.signing import load_public_key

    signer = load_public_key(signer_key) if signer_key is not None else None
    checked = check_bundle(path, expect_head=expect_head, signer=signer)  # CheckFailed (exit 1) on a bad bundle
    bundle = read_bundle(path)
    with open_ledger(app, create=True) as ledger:
        if ledger.reader.head(bundle.run_id) is None:
            copied = ledger.writer.copy_in(bundle.run_copy())
        else:  # checked before: the ledger's run must still hold the bundle's head (later rows are its checks)
            ledger.reader.verified_events(bundle.run_id, expect_head=bundle.head)
            copied = 0
    click.echo(f"checked {path.name}, offline, from the file alone:")
    for line in checked.checked:
        click.echo(f"  {line}")
    click.echo(f"run {bundle.run_id}: {copied} event(s) copied into {app.ledger_url or app.ledger_path}, where the "
               "check is recorded")
    return bundle.run_id


def _refuse_stray(against_source: bool, spot_n: int | None, **given: object) -> None:
    """An option of one check given without that check: one line, before anything is read."""
    spot = spot_n is not None
    needs = {"github_raw": ("--against-source", against_source), "hub": ("--against-source", against_source),
             "seed": ("--spot-check N", spot), "scorer": ("--spot-check N", spot),
             "base_url": ("--spot-check N", spot), "api_key_env": ("--spot-check N", spot),
             "max_attempts": ("--spot-check N", spot),
             "by": ("--against-source or --spot-check N", against_source or spot)}
    for name, value in given.items():
        wanted, present = needs[name]
        if value not in (None, 0) and not present:  # the seed's default is 0
            raise BadInput(f"--{name.replace('_', '-')} goes with {wanted}", field=name)


def _check_run(app: AppContext, run_ref: str, *, against_source: bool, spot_n: int | None, seed: int,
               scorer_id: str | None, github_raw: str | None, hub: str | None, base_url: str | None,
               api_key_env: str | None, max_attempts: int | None, checked_by: str | None, as_json: bool) -> None:
    from benchledger.adapters.sources.settings import FetchSettings
    from benchledger.ledger.events.checks import SourceChecked, SpotChecked
    from benchledger.cli.progress import make_progress
    from benchledger.projections.checks import run_checks
    from benchledger.projections.scorecard import render_checks
    from benchledger.redaction import redact, register_secret_env
    from benchledger.settings import Overrides

    if api_key_env:
        register_secret_env(api_key_env)
    made: list[SourceChecked | SpotChecked] = []
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.reader.resolve_run(run_ref)
        if against_source:
            from benchledger.orchestration.source_check import check_against_source

            made.append(check_against_source(ledger, run_id, FetchSettings.from_env(github_raw=github_raw, hub=hub),
                                             checked_by=checked_by)[1])
        if spot_n is not None:
            from benchledger.orchestration.spot_check import spot_check

            made.append(spot_check(ledger, run_id, spot_n, seed=seed, scorer_id=scorer_id,
                                   overrides=Overrides(base_url=base_url, api_key_env=api_key_env,
                                                       max_attempts=max_attempts),
                                   checked_by=checked_by, redact=redact, progress=make_progress(app.log_format))[1])
    rows = run_checks(made)
    if as_json:
        echo_json({"run_id": run_id, "checks": [row.model_dump(mode="json") for row in rows]})
    else:
        click.echo(f"run {run_id}: {len(rows)} check(s) recorded (`show {run_id}` lists them; never in the score)")
        click.echo("\n".join(line[2:] for line in render_checks(rows)[2:]))
    off = [row for row in rows if row.kind == "against-source" and set(row.counts) != {"agrees"}]
    if off:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(off[0].counts.items()) if status != "agrees")
        raise CheckFailed(f"run {run_id}: its recorded release does not agree with the official source ({counts})")


def _verify_bundle(path: Path, expect_head: str | None, signer_key: Path | None, as_json: bool) -> None:
    from benchledger.orchestration.bundle_check import check_bundle
    from benchledger.signing import load_public_key

    signer = load_public_key(signer_key) if signer_key is not None else None
    checked = check_bundle(path, expect_head=expect_head, signer=signer)
    if as_json:
        echo_json({"report": checked.report.model_dump(mode="json"), "checked": checked.checked})
        return
    show_report(checked.report)
    click.echo("")
    click.echo(f"checked {path.name}, offline, from the file alone:")
    for line in checked.checked:
        click.echo(f"  {line}")


COMMANDS = [verify]
