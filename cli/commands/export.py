"""`benchledger export RUN --format json|csv|html --out FILE`: a run's report and questions as a file.

Opens the ledger, folds the run, makes one library call (`projections.export.export_run`) and
writes the result atomically (a temporary file beside FILE, then a rename), so a reader never
sees half an export.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click
from benchledger.cli.common import AppContext, open_ledger, pass_app, run_argument
from benchledger.errors import BadInput
from benchledger.orchestration.reports import folds_of
from benchledger.projections.report import default_scorer
from benchledger.projections.export import FORMATS, export_run
from benchledger.projections.state import fold_run

__all__ = ["COMMANDS", "export"]


@click.command("export")
@run_argument
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Output format [default: from the --out suffix].")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="File to write.")
@click.option("--scorer", "scorer_id", default=None,
              help="Scorer id to export [default: the newest of the benchmark's official scorer, else the newest].")
@pass_app
def export(app: AppContext, run_ref: str, fmt: str | None, out: Path, scorer_id: str | None) -> None:
    """Export a run (report and one row per question) as JSON, CSV or one self-contained HTML page."""
    fmt = fmt or out.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise BadInput(f"cannot tell the format from {out.name!r}; pass --format {'|'.join(FORMATS)}", field="format")
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.resolve_run(run_ref)
        state = fold_run(run_id, ledger.events(run_id))
        folds = folds_of(state)
        text = export_run(state, ledger.get_blob, fmt, conditions=folds.conditions, sections=folds.sections,
                          scorer_id=scorer_id or default_scorer(state, folds.official_method))
    _write_atomic(out, text)
    click.echo(f"wrote {fmt} export of run {run_id} to {out}")


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; an export is meant to be shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


COMMANDS = [export]
