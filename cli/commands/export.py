"""`benchledger export RUN... --format json|csv|html|sqlite --out FILE`, `export RUN --bundle FILE
[--sign KEY]`: runs as a file.

json, csv and html export one run (its report and one row per question; a retrieval run its recall
metrics and rows): one library call (`projections.export.export_run`), written atomically (a
temporary file beside FILE, then a rename), so a reader never sees half an export. sqlite writes
one or more runs as flat analysis tables with full-text search (`orchestration.analysis_db`,
tables documented in docs/analysis-tables.md), built the same way. `--bundle` writes the run as one
self-contained file a third party checks with `benchledger verify FILE` (`orchestration.bundle`),
signed with an Ed25519 key with `--sign`.
"""

from __future__ import annotations

from pathlib import Path

import click
from benchledger.cli.common import AppContext, OutputFile, open_ledger, pass_app
from benchledger.errors import BadInput
from benchledger.files import check_output, is_sqlite_file, write_atomic
from benchledger.orchestration.recorded import recorded_run
from benchledger.orchestration.reports import folds_of
from benchledger.projections.export import FORMATS, export_run

__all__ = ["COMMANDS", "export"]

ALL_FORMATS = (*FORMATS, "sqlite")
_SUFFIXES = {"db": "sqlite", "sqlite": "sqlite", "sqlite3": "sqlite", "htm": "html"}


@click.command("export")
@click.argument("run_refs", metavar="RUN...", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(ALL_FORMATS), default=None,
              help="Output format [default: from the --out suffix]; sqlite takes several runs.")
@click.option("--out", type=OutputFile(allow_analysis=True), default=None, help="File to write.")
@click.option("--bundle", "bundle_out", type=OutputFile(), default=None,
              help="Write the run as one self-contained file (events, blobs, release manifest, pins, provider "
                   "evidence, head) that `benchledger verify FILE` checks offline; instead of --out.")
@click.option("--sign", "sign_key", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="KEY",
              help="With --bundle: sign the bundle's head with this Ed25519 private key (PEM, as "
                   "`openssl genpkey -algorithm ed25519` writes it).")
@click.option("--scorer", "scorer_id", default=None,
              help="Scorer id to export [default: the headline scorer: the first that meets the benchmark's protocol, else the first].")
@pass_app
def export(app: AppContext, run_refs: tuple[str, ...], fmt: str | None, out: Path | None, scorer_id: str | None,
           bundle_out: Path | None, sign_key: Path | None) -> None:
    """Export runs: one as JSON, CSV or a self-contained HTML page; one or more as a SQLite analysis database;
    one as a bundle a third party verifies (--bundle)."""
    if bundle_out is not None:
        _export_bundle(app, run_refs, bundle_out, sign_key, fmt=fmt, out=out, scorer_id=scorer_id)
        return
    if sign_key is not None:
        raise BadInput("--sign signs a bundle; pass --bundle FILE", field="sign")
    if out is None:
        raise BadInput("pass --out FILE (or --bundle FILE)", field="out")
    suffix = out.suffix.lstrip(".").lower()
    fmt = fmt or _SUFFIXES.get(suffix, suffix)
    if fmt not in ALL_FORMATS:
        raise BadInput(f"cannot tell the format from {out.name!r}; pass --format {'|'.join(ALL_FORMATS)}",
                       field="format")
    if fmt != "sqlite" and is_sqlite_file(out):  # only an analysis export replaces an analysis export
        check_output(out)
    if fmt != "sqlite" and len(run_refs) > 1:
        raise BadInput(f"--format {fmt} exports one run; pass one RUN, or use --format sqlite for several",
                       field="format")
    if fmt == "sqlite" and scorer_id is not None:
        raise BadInput("--format sqlite exports every scorer's verdicts (table verdicts); drop --scorer",
                       field="scorer")
    with open_ledger(app, create=False) as ledger:
        run_ids = list(dict.fromkeys(ledger.reader.resolve_run(ref) for ref in run_refs))
        if fmt == "sqlite":
            from benchledger.orchestration.analysis_db import export_analysis_db  # sqlite-utils: only here

            counts = export_analysis_db(ledger, run_ids, out)
            click.echo(f"wrote {len(run_ids)} run(s) to {out}: " + ", ".join(f"{n} {t}" for t, n in counts.items()))
            return
        state = recorded_run(ledger.reader, run_ids[0]).state
        folds = folds_of(state)
        text = export_run(state, ledger.reader.get_blob, fmt, conditions=folds.conditions, sections=folds.sections,
                          scorer_id=scorer_id, kind=folds.kind)
    write_atomic(out, text)
    click.echo(f"wrote {fmt} export of run {run_ids[0]} to {out}")


def _export_bundle(app: AppContext, run_refs: tuple[str, ...], bundle_out: Path, sign_key: Path | None, *,
                   fmt: str | None, out: Path | None, scorer_id: str | None) -> None:
    if out is not None or fmt is not None or scorer_id is not None:
        raise BadInput("--bundle writes the whole run; drop --out, --format and --scorer", field="bundle")
    if len(run_refs) > 1:
        raise BadInput("--bundle exports one run; pass one RUN", field="bundle")
    from benchledger.orchestration.bundle import make_bundle
    from benchledger.signing import load_signing_key

    key = load_signing_key(sign_key) if sign_key is not None else None  # a bad key writes nothing
    with open_ledger(app, create=False) as ledger:
        bundle = make_bundle(ledger.reader, run_refs[0], key=key)
    write_atomic(bundle_out, bundle.model_dump_json())
    signed = f", signed by key sha256 {key.fingerprint[:16]}…" if key is not None else ", unsigned"
    click.echo(f"wrote bundle of run {bundle.run_id} to {bundle_out}: {len(bundle.rows)} events, {len(bundle.blobs)} "
               f"blobs, head {bundle.head}{signed}")


COMMANDS = [export]
