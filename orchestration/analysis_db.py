"""Write recorded runs as one flat SQLite analysis database, with sqlite-utils.

`export_analysis_db(ledger, run_ids, out)` reads each run verified and folded (`recorded_run`, as
every other export does), builds its rows
(`projections.analysis`) and writes the tables with sqlite-utils: declared column types and
primary keys, FTS5 full-text search on questions (question, gold) and answers (answer), and a
`documentation` table holding every table's and column's description. The file is built beside
`out` under a temporary name and renamed over it only when complete, so a reader never sees half
an export and a failed export leaves nothing behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import sqlite_utils

from benchledger.files import check_output
from benchledger.ledger.store import Ledger
from benchledger.orchestration.recorded import recorded_run
from benchledger.projections.analysis import ANALYSIS_TABLES, ANALYSIS_VERSION, analysis_rows

__all__ = ["export_analysis_db"]


def _documentation_rows() -> list[dict[str, str]]:
    rows = []
    for table in ANALYSIS_TABLES:
        rows.append({"table_name": table.name, "column_name": "", "description": table.description})
        rows += [{"table_name": table.name, "column_name": c.name, "description": c.description}
                 for c in table.columns]
    return rows


def _write(db: sqlite_utils.Database, tables: dict[str, list[dict]]) -> None:
    for table in ANALYSIS_TABLES:
        columns = {c.name: c.type for c in table.columns}
        written = db.table(table.name)
        written.create(columns, pk=table.pk if len(table.pk) > 1 else table.pk[0])
        written.insert_all(tables[table.name], columns=columns)
        if table.full_text:
            written.enable_fts(list(table.full_text), tokenize="porter")
    db.table("documentation").insert_all(_documentation_rows(), pk=("table_name", "column_name"))
    db.table("export_meta").insert_all([{"key": "analysis_version", "value": str(ANALYSIS_VERSION)}], pk="key")


def export_analysis_db(ledger: Ledger, run_ids: Sequence[str], out: Path) -> dict[str, int]:
    """Write the runs' analysis tables to `out` (replacing it whole); returns rows per table."""
    reader = ledger.reader
    started = {summary.run_id: summary.started_at for summary in reader.runs()}
    tables: dict[str, list[dict]] = {table.name: [] for table in ANALYSIS_TABLES}
    for run_id in run_ids:
        run = recorded_run(reader, run_id)
        report = run.report() if run.state.mode == "qa" else None
        for name, rows in analysis_rows(run.state, report, reader.get_blob, started_at=started.get(run_id)).items():
            tables[name] += rows
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    os.close(fd)
    try:
        db = sqlite_utils.Database(tmp)
        try:
            _write(db, tables)
        finally:
            db.close()
        os.chmod(tmp, 0o644)  # an export is meant to be shared
        check_output(out, ledger=ledger.path, allow_analysis=True)  # it may have become a ledger since the command's check
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return {name: len(rows) for name, rows in tables.items()}
