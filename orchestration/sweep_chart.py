"""The sweep's table as a chart, for a paper's README: `sweep show FILE --chart out.svg` (or `.png`).

One group of bars per benchmark, one bar per system: the mean over epochs of each run's headline,
with the 95% Student-t interval over epochs as its error bar where there are two epochs or more.
Above each bar its mean and `n=` (epochs done); a cell with no done run has no bar and says so.
Under the chart one line says what the numbers are and whether any cell is publishable. Drawn with
matplotlib (the `chart` extra) on its Agg backend; an SVG carries no date and a fixed hash salt, so
the same report draws the same bytes.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from benchledger.errors import BadInput
from benchledger.projections.sweep_report import SweepReport, benchmark_metrics

__all__ = ["draw_sweep_chart"]


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise BadInput("a sweep chart needs matplotlib: pip install -e '.[chart]' (or pip install 'benchledger[chart]')",
                       field="chart") from None
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "benchledger"
    import matplotlib.pyplot as plt

    return plt


def draw_sweep_chart(report: SweepReport, out: Path) -> Path:
    """Write the chart to `out` (.svg or .png); the path written."""
    out = Path(out)
    if out.suffix.lower() not in (".svg", ".png"):
        raise BadInput(f"{out}: a chart is written as .svg or .png", field="chart")
    plt = _pyplot()
    systems = [row.system for row in report.rows]
    width = 0.8 / max(1, len(systems))
    wide = max(6.5, 1.6 + 0.85 * len(report.benchmarks) * max(1, len(systems)))
    figure, axes = plt.subplots(figsize=(wide, 3.8))
    for index, row in enumerate(report.rows):
        xs, means, low, high = [], [], [], []
        for position, benchmark in enumerate(report.benchmarks):
            cell = row.cells.get(benchmark)
            x = position + (index - (len(systems) - 1) / 2) * width
            if cell is None or cell.mean is None:
                axes.text(x, 1, "no run", ha="center", va="bottom", fontsize=7, rotation=90)
                continue
            mean = 100 * cell.mean
            xs.append(x)
            means.append(mean)
            ci_low, ci_high = cell.ci_low, cell.ci_high
            low.append(mean - 100 * ci_low if ci_low is not None else 0.0)
            high.append(100 * ci_high - mean if ci_high is not None else 0.0)
            axes.text(x, mean + high[-1] + 1.5, f"{mean:.1f}\nn={cell.done}", ha="center", va="bottom", fontsize=7)
        axes.bar(xs, means, width * 0.92, yerr=[low, high], capsize=3, label=row.system)
    metrics = benchmark_metrics(report)
    axes.set_xticks(range(len(report.benchmarks)),
                    [f"{b}\n({metrics[b] or 'headline'})" for b in report.benchmarks], fontsize=8)
    axes.set_ylabel("headline (%)")
    axes.set_ylim(0, 115)
    axes.set_title(f"sweep {report.sweep}: {report.done} of {report.planned} cells done", fontsize=10)
    axes.legend(fontsize=8, loc="upper right", ncol=max(1, len(systems)))
    publishable = sum(1 for line in report.cells if line.status == "publishable")
    caption = textwrap.fill("bars: mean over epochs of each run's headline; whiskers: 95% Student-t interval over "
                            f"epochs; {publishable} of {len(report.cells)} cells publishable", width=int(wide * 16))
    figure.text(0.01, 0.01, caption, fontsize=7)
    figure.tight_layout(rect=(0, 0.03 + 0.03 * caption.count("\n") + 0.03, 1, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, metadata={"Date": None} if out.suffix.lower() == ".svg" else None, dpi=150)
    plt.close(figure)
    return out
