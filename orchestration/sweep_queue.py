"""A sweep spread over machines: its cells as jobs of procrastinate, a PostgreSQL job queue.

`sweep run FILE --queue` on a PostgreSQL ledger enqueues every cell not done; `benchledger worker`
on any machine takes cells and runs each as `sweep run` would (`sweep.run_one_cell`: started as
`run`, or resumed as `resume` from what its run recorded). The queue is procrastinate's own, in
the ledger's database under its own schema (`QUEUE_SCHEMA`), so nothing here is a home-made queue:

- a job is locked while a worker holds it (procrastinate's `doing` state, with the worker's
  heartbeat); a job whose worker stopped beating for `stalled_after` seconds (it was killed, its
  machine died) is put back by the next worker that looks (`get_stalled_jobs` + `retry_job`), and
  whoever takes it resumes the cell's run; the run's own writer lock stays the one guard against
  two writers of one run;
- one job per cell at a time (`queueing_lock`: enqueuing a sweep twice adds nothing), and cells of
  one memory system one after another (`lock`: they share its evaluation store);
- a cell that cannot be done (its run aborts, its file changed) fails its job, with the reason; the
  sweep's report reads the ledger, as for a sweep on one machine.

Each ledger has its own queue (named from the ledger's URL without credentials), so workers of one
ledger never take another's cells. procrastinate is an optional extra (`pip install -e '.[queue]'`).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, NamedTuple

import structlog

from benchledger.errors import BadInput

__all__ = ["QUEUE_SCHEMA", "TASK_NAME", "CellJob", "queue_name", "enqueue_cells", "work", "queue_counts",
           "sweep_sha256"]

log = structlog.get_logger("benchledger.worker")

QUEUE_SCHEMA = "benchledger_queue"
TASK_NAME = "benchledger.sweep_cell"


class CellJob(NamedTuple):
    """What a job carries: where the sweep file is, the hash it had when enqueued, and the cell."""

    sweep_path: str
    sweep_sha256: str
    cell_id: str
    memory: str


def sweep_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def queue_name(ledger_url: str) -> str:
    """The ledger's own queue: a digest of its URL without user or password."""
    from benchledger.ledger.urls import display_url

    return "ledger-" + hashlib.sha256(display_url(ledger_url).encode()).hexdigest()[:16]


def _procrastinate() -> Any:
    try:
        import procrastinate
    except ImportError:
        raise BadInput("a sweep over a job queue needs procrastinate: pip install -e '.[queue]' (or pip install "
                       "'benchledger[queue]')", field="queue") from None
    return procrastinate


def _app(ledger_url: str, handler: Callable[[CellJob], None] | None = None) -> Any:
    procrastinate = _procrastinate()
    connector = procrastinate.PsycopgConnector(conninfo=ledger_url,
                                               kwargs={"options": f"-csearch_path={QUEUE_SCHEMA}"})
    app = procrastinate.App(connector=connector)

    def run_cell(sweep_path: str, sweep_sha256: str, cell_id: str, memory: str) -> None:
        assert handler is not None, "only a worker runs cells"
        handler(CellJob(sweep_path, sweep_sha256, cell_id, memory))

    app.task(name=TASK_NAME, queue=queue_name(ledger_url))(run_cell)
    return app


@asynccontextmanager
async def _opened(ledger_url: str, handler: Callable[[CellJob], None] | None = None) -> AsyncIterator[Any]:
    """The ledger's queue app, open, its schema made."""
    app = _app(ledger_url, handler)
    async with app.open_async():
        await _ensure_schema(app, ledger_url)
        yield app


async def _ensure_schema(app: Any, ledger_url: str) -> None:
    """The queue's schema and procrastinate's tables in it, made once (idempotent)."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(ledger_url, autocommit=True) as conn:
        await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {QUEUE_SCHEMA}")
        cursor = await conn.execute("SELECT to_regclass(%s)", (f"{QUEUE_SCHEMA}.procrastinate_jobs",))
        row = await cursor.fetchone()
    if row is None or row[0] is None:
        await app.schema_manager.apply_schema_async()


def enqueue_cells(ledger_url: str, jobs: Sequence[CellJob]) -> tuple[int, int]:
    """Enqueue each cell's job; (added, already queued or running)."""
    procrastinate = _procrastinate()

    async def go() -> tuple[int, int]:
        async with _opened(ledger_url) as app:
            task = app.tasks[TASK_NAME]
            queue = queue_name(ledger_url)  # procrastinate's locks span its queues: each is named within its ledger's
            added = kept = 0
            for job in jobs:
                try:
                    await task.configure(queueing_lock=f"{queue}:{job.sweep_sha256[:16]}:{job.cell_id}",
                                         lock=f"{queue}:memory:{job.memory}").defer_async(**job._asdict())
                    added += 1
                except procrastinate.exceptions.AlreadyEnqueued:
                    kept += 1
        return added, kept

    return asyncio.run(go())


async def _counts(app: Any, queue: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for job in await app.job_manager.list_jobs_async(queue=queue):
        counts[job.status] = counts.get(job.status, 0) + 1
    return counts


def queue_counts(ledger_url: str) -> dict[str, int]:
    """Jobs of this ledger's queue by status (todo, doing, succeeded, failed...)."""
    async def go() -> dict[str, int]:
        async with _opened(ledger_url) as app:
            return await _counts(app, queue_name(ledger_url))

    return asyncio.run(go())


def work(ledger_url: str, handler: Callable[[CellJob], None], *, until_empty: bool, heartbeat: float,
         stalled_after: float, poll: float = 1.0) -> None:
    """Take cells and run them until stopped, or (`until_empty`) until no job is left to do nor held by
    a live worker. Jobs of workers silent for `stalled_after` seconds are put back first, each time."""
    queue = queue_name(ledger_url)

    async def requeue_stalled(app: Any) -> None:
        for job in await app.job_manager.get_stalled_jobs(queue=queue, seconds_since_heartbeat=stalled_after):
            log.info("requeue stalled cell", job=job.id, cell=job.task_kwargs.get("cell_id"))
            await app.job_manager.retry_job(job)

    async def go() -> None:
        async with _opened(ledger_url, handler) as app:
            options = dict(queues=[queue], concurrency=1, listen_notify=False, delete_jobs="never",
                           update_heartbeat_interval=heartbeat, stalled_worker_timeout=stalled_after,
                           fetch_job_polling_interval=poll, install_signal_handlers=False)
            while True:
                await requeue_stalled(app)
                await app.run_worker_async(wait=False, **options)
                if not until_empty:
                    await asyncio.sleep(poll)
                    continue
                live = [job for status in ("todo", "doing")
                        for job in await app.job_manager.list_jobs_async(queue=queue, status=status)]
                if not live:
                    return
                await asyncio.sleep(poll)  # held by a live worker, or stalled and not yet past the timeout

    asyncio.run(go())
