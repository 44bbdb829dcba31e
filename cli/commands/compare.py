"""`benchledger compare RUN...`: one table for runs of one benchmark, refused unless like for like.

Opens the ledger, makes one library call (`orchestration.compare.compare_recorded`, which reads
every run verified and folded, `orchestration.recorded.recorded_run`) and renders it (`projections.compare_render`).
"""

from __future__ import annotations

from pathlib import Path

import click

from benchledger.cli.common import AppContext, OutputFile, open_ledger, pass_app
from benchledger.cli.options import prices_option, split_csv
from benchledger.files import write_atomic
from benchledger.orchestration.compare import compare_recorded
from benchledger.orchestration.prices import read_prices
from benchledger.projections.compare_render import render_csv, render_html, render_markdown, render_terminal
from benchledger.tables import fitted_to

__all__ = ["COMMANDS"]

_RENDER = {"terminal": render_terminal, "markdown": render_markdown, "csv": render_csv, "html": render_html}


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("--scorers", default=None,
              help="Scorer id per run, comma-separated in the runs' order [default: each run's report scorer].")
@click.option("--allow-differences", is_flag=True,
              help="Compare runs that are not like for like (every difference is named and the table labelled).")
@click.option("--format", "fmt", type=click.Choice(sorted(_RENDER)), default="terminal", show_default=True,
              help="Output format (terminal: a column per run, fitted to the width; html: a self-contained page "
                   "with a per-kind accuracy chart).")
@click.option("--out", type=OutputFile(), default=None,
              help="File to write [default: stdout].")
@prices_option
@pass_app
def compare(app: AppContext, runs: tuple[str, ...], scorers: str | None, allow_differences: bool, fmt: str,
            out: Path | None, prices: Path | None) -> None:
    """Compare runs of one benchmark: per-kind accuracy with intervals, the official number, tokens and
    latency per question (dollars with --prices), paired tests against the best (McNemar, Holm-corrected);
    refused (exit 2) unless the runs are like for like, or --allow-differences."""
    table = read_prices(prices) if prices is not None else None
    with open_ledger(app, create=False) as ledger:
        comparison = compare_recorded(ledger.reader, runs,
                                      scorers=[s or None for s in split_csv((scorers,))] if scorers else (),
                                      allow_differences=allow_differences, prices=table)
    if out is not None:
        with fitted_to(None):  # a file gets whole lines, whatever the terminal's width
            text = _RENDER[fmt](comparison)
        write_atomic(out, text)
        click.echo(f"wrote {out} ({comparison.label})", err=True)
    else:
        click.echo(_RENDER[fmt](comparison), nl=False)


COMMANDS = [compare]
