"""`benchledger retrieval <benchmark> PATH`: evidence recall of a memory system, with no model call.

Each subcommand loads its release (bad input exits 2 before anything is written), makes one
library call (`ledger.retrieval_run.run_retrieval_named`, which records the run on the ledger and
folds the metrics back from its events) and prints recall@k, recall_all@k and NDCG@k overall and
per category; `--json` prints the same numbers with the run id.
"""

from __future__ import annotations

from pathlib import Path

import click
from benchledger.cli.common import AppContext, echo_json, json_option, open_ledger, pass_app
from benchledger.cli.options import memory_from_options, memory_options, split_csv
from benchledger.cli.progress import make_progress
from benchledger.orchestration.retrieval import run_retrieval_named

__all__ = ["COMMANDS", "retrieval", "render_metrics"]

_k_option = click.option("--k", type=click.IntRange(min=1), default=10, show_default=True,
                         help="Candidates recalled per question; metrics are @k.")
_keep_option = click.option("--keep", is_flag=True,
                            help="Keep the memory scopes after the run (default: purge them).")
_limit_option = click.option("--question-limit", type=click.IntRange(min=1), default=None,
                             help="Ask only the first N questions (diagnostic).")


@click.group()
def retrieval() -> None:
    """Score how well a memory system recalls the released evidence (no answer or judge model)."""


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def render_metrics(metrics: dict, k: int) -> str:
    """The metrics as an aligned text table, overall then one row per category."""
    header = ("category", "n", f"recall@{k}", f"recall_all@{k}", f"ndcg@{k}")
    rows = [("overall", metrics["n"], metrics["recall"], metrics["recall_all"], metrics["ndcg"])]
    rows += [(cat, m["n"], m["recall"], m["recall_all"], m["ndcg"])
             for cat, m in metrics["by_category"].items()]
    table = [header] + [(str(c), str(n), _fmt(r), _fmt(a), _fmt(g)) for c, n, r, a, g in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths))) for row in table]
    notes = [f"evidence level: {metrics['evidence_level']}",
             f"excluded (no evidence): {metrics['excluded']}",
             f"not recalled (failed): {metrics['not_recalled']}"]
    return "\n".join(lines + [""] + notes)


def _execute(app: AppContext, dataset, opts: dict) -> None:
    memory, store, memory_opts = memory_from_options(app, opts)
    with open_ledger(app) as ledger:
        run_id, metrics = run_retrieval_named(
            ledger, dataset, memory=memory, memory_store=store, memory_options=memory_opts,
            k=opts["k"], progress=make_progress(app.log_format), keep=opts["keep"])
    if opts["as_json"]:
        echo_json({**metrics, "run_id": run_id})
        return
    click.echo(f"run {run_id}: {dataset.benchmark} {dataset.subset}, memory {memory}, "
               f"{len(dataset.questions)} questions")
    click.echo(render_metrics(metrics, opts["k"]))


@retrieval.command("locomo")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--categories", multiple=True,
              help="multi_hop, temporal, open_domain, single_hop, adversarial (comma-separated or repeated).")
@_limit_option
@memory_options
@_k_option
@_keep_option
@json_option
@pass_app
def retrieval_locomo(app: AppContext, file: Path, categories: tuple[str, ...],
                     question_limit: int | None, **opts) -> None:
    """Evidence recall on a LoCoMo release FILE (e.g. locomo10.json)."""
    from benchledger.adapters.benchmarks.locomo.loader import load_locomo

    dataset = load_locomo(file, categories=split_csv(categories) or None,
                          question_limit=question_limit)
    _execute(app, dataset, opts)


@retrieval.command("longmemeval")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@_limit_option
@memory_options
@_k_option
@_keep_option
@json_option
@pass_app
def retrieval_longmemeval(app: AppContext, file: Path, question_limit: int | None, **opts) -> None:
    """Session-level evidence recall on a LongMemEval FILE (e.g. longmemeval_s.json)."""
    from benchledger.adapters.benchmarks.longmemeval.loader import load_longmemeval

    _execute(app, load_longmemeval(file, question_limit=question_limit), opts)


@retrieval.command("memora")
@click.argument("root", type=click.Path(file_okay=False, path_type=Path))
@click.option("--split", type=click.Choice(["weekly", "monthly", "quarterly"]), required=True,
              help="Which history length to read.")
@memory_options
@_k_option
@_keep_option
@json_option
@pass_app
def retrieval_memora(app: AppContext, root: Path, split: str, **opts) -> None:
    """Session-level recall of memory_evidence on a Memora release folder ROOT."""
    from benchledger.adapters.benchmarks.memora.loader import load_memora

    _execute(app, load_memora(root, split=split), opts)  # type: ignore[arg-type]


COMMANDS = [retrieval]
