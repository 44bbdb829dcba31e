"""`benchledger export RUN... --format json|csv|html|sqlite --out FILE`: runs as a file.

json, csv and html export one run (its report and one row per question; a retrieval run its recall
metrics and rows): one library call (`projections.export.export_run`), written atomically (a
temporary file beside FILE, then a rename), so a reader never sees half an export. sqlite writes
one or more runs as flat analysis tables with full-text search (`orchestration.analysis_db`,
tables documented in docs/analysis-tables.md), built the same way.
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
@click.option("--out", type=OutputFile(allow_analysis=True), required=True, help="File to write.")
@click.option("--scorer", "scorer_id", default=None,
              help="Scorer id to export [default: the newest complete official one, else the newest complete].")
@pass_app
def export(app: AppContext, run_refs: tuple[str, ...], fmt: str | None, out: Path, scorer_id: str | None) -> None:
    """Export runs: one as JSON, CSV or a self-contained HTML page; one or more as a SQLite analysis database."""
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


COMMANDS = [export]
