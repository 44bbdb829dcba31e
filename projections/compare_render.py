"""`compare` as a terminal table, markdown, CSV or a self-contained HTML page with a per-kind chart.

The terminal table is the markdown one turned on its side (a column per run, lettered, a row per
figure), because a few runs side by side fit a terminal where a row per run of every figure cannot.

Every format carries the label ("like for like", or "NOT LIKE FOR LIKE: ..." with each difference
and each run's value), so a table built over differences can never be passed off as a fair one.
The chart draws one bar per system per kind with its 95% Wilson interval as a whisker; a
`full-context` run is drawn as a dashed floor line per kind and an `oracle` run as a ceiling line.
The page reuses the export's skeleton (`export_page.html`: no script, nothing loaded).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from benchledger.projections.compare import Comparison, Rate, RunColumn
from benchledger.projections.export_html import PAGE, _e
from benchledger.projections.prices import usd
from benchledger.tables import Align, current_width, render_table, wrap_prose
from benchledger.text import inert_cell

__all__ = ["render_terminal", "render_markdown", "render_csv", "render_html", "compare_chart"]

_W, _H = 1000, 380
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 24, 24, 88
_PALETTE = ("#2f5fd0", "#e08a1e", "#1f8a4c", "#8a3fc4", "#c43b3b", "#2a9ca8", "#6b6b6b")


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _rate(rate: Rate | None) -> str:
    if rate is None or rate.accuracy is None:
        return "n/a"
    return f"{_pct(rate.accuracy)} [{100 * (rate.ci_low or 0):.1f}, {100 * (rate.ci_high or 0):.1f}] n={rate.judged}"


def _num(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _official(run: RunColumn) -> str:
    if run.official is None:
        return f"n/a ({run.official_metric})"
    return f"{100 * run.official:.2f} ({run.official_metric}, {run.official_scorer})"


def _name(run: RunColumn, best: str) -> str:
    role = {"floor": " (floor)", "ceiling": " (ceiling)"}.get(run.role, "")
    return f"{run.memory}{role}{' *best*' if run.run_id == best else ''}"


def _rows(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    ranked = comparison.ranked_by != "accuracy"
    headers = ["run", "memory", *comparison.kinds, "overall", *([comparison.ranked_by] if ranked else []), "official",
               "answer tokens/q", "judge tokens/q", "latency ms/q", "vs best (diff, 95% CI)", "McNemar p (Holm)"]
    priced = comparison.price_table is not None
    if priced:
        headers[-2:-2] = ["USD (answer + judge + memory)", "memory USD"]
    tests = {t.run_id: t for t in comparison.tests}
    rows = []
    for run in comparison.runs:
        test = tests.get(run.run_id)
        versus = "best" if test is None else (
            "no shared judged questions" if test.difference is None else
            f"{100 * test.difference:+.1f} [{100 * (test.ci_low or 0):+.1f}, {100 * (test.ci_high or 0):+.1f}] "
            f"n={test.paired}{' (score)' if test.paired_on == 'scores' else ''}")
        p = "" if test is None or test.mcnemar_p is None else \
            f"{test.mcnemar_p:.3g} ({test.holm_p:.3g}){' *' if test.significant else ''}"
        dollars = [_usd(run.cost_usd, run.not_priced), _usd(run.memory_cost_usd, run.memory_not_priced)] if priced else []
        rows.append([run.run_id, _name(run, comparison.best), *(_rate(run.by_kind.get(k)) for k in comparison.kinds),
                     _rate(run.overall), *([_pct(run.score)] if ranked else []), _official(run),
                     _num(run.answer_tokens_per_question),
                     _num(run.judge_tokens_per_question), _num(run.latency_ms_per_question), *dollars, versus, p])
    return headers, rows


def _usd(value: float | None, not_priced: list[str]) -> str:
    if value is None:
        return "n/a"
    return usd(value) + (f" + not priced: {', '.join(not_priced)}" if not_priced else "")


def _notes(comparison: Comparison) -> list[str]:
    notes = [f"{comparison.benchmark}: {comparison.label}"]
    if comparison.ranked_by != "accuracy":
        notes.append(f"- an {comparison.kind} benchmark: the best system is the one with the highest "
                     f"{comparison.ranked_by}, never a retrieval figure")
    notes += [f"- {d.fact}: " + "; ".join(f"{rid} {value}" for rid, value in d.values.items())
              for d in comparison.differences]
    notes.append(f"Accuracy over judged questions with 95% Wilson intervals; paired tests against the best system "
                 f"({comparison.best}) over the questions both judged: seeded bootstrap ({comparison.bootstrap_resamples} "
                 f"resamples, seed {comparison.bootstrap_seed}) of the accuracy difference, or of the scorer's own number "
                 f"where both give one (marked score), and exact McNemar over verdicts, Holm-corrected; * = significant at 5%. "
                 f"Tokens are per question as the endpoint reported them. " + _prices_note(comparison))
    return notes


def _prices_note(comparison: Comparison) -> str:
    table = comparison.price_table
    if table is None:
        return "No price table was given (`--prices FILE` adds dollars; none is ever recorded in a run)."
    return (f"Dollars at the prices in {table['path']} (sha256 {table['sha256'][:16]}), the reader's table, not "
            f"recorded in any run: each run's answer calls, its compared scorer's judge calls and the memory's own "
            f"calls; a model the table does not price is named in its cell and its tokens are left out.")


def render_terminal(comparison: Comparison) -> str:
    """A column per run (lettered A, B, ... and named under the table's notes), a row per figure,
    fitted to the current width; the notes wrapped to it."""
    headers, rows = _rows(comparison)
    letters = [_letter(i) for i in range(len(rows))]
    notes = _notes(comparison)
    lines = [notes[0], *notes[1:-1], ""]
    lines += [f"{letter}  {row[0]}  {row[1]}" for letter, row in zip(letters, rows)] + [""]
    turned = [[header, *(row[i] or "-" for row in rows)] for i, header in enumerate(headers) if i >= 2]
    right: list[Align] = ["right"] * len(rows)
    align: list[Align] = ["left", *right]
    lines.append(render_table(turned, ["", *(f"{letter} {row[1]}" for letter, row in zip(letters, rows))],
                              align=align))
    lines += ["", notes[-1]]
    return wrap_prose("\n".join(lines), current_width()) + "\n"


def _letter(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else f"R{i + 1}"


def render_markdown(comparison: Comparison) -> str:
    headers, rows = _rows(comparison)
    lines = [f"**{_md(n)}**" if i == 0 else _md(n) for i, n in enumerate(_notes(comparison)[:-1])] + [""]
    lines.append("| " + " | ".join(headers) + " |")
    lines.append("|" + "|".join("---" if i < 2 else "---:" for i in range(len(headers))) + "|")
    lines += ["| " + " | ".join(_md(cell) for cell in row) + " |" for row in rows]
    lines += ["", _md(_notes(comparison)[-1])]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_csv(comparison: Comparison) -> str:
    """One row per run and kind (overall as a kind), numbers unformatted, the label on every row, text
    inert as in `export --format csv` (`benchledger.text.inert_cell`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    tests = {t.run_id: t for t in comparison.tests}
    writer.writerow(["label", "run_id", "memory", "role", "kind", "judged", "correct", "accuracy", "ci_low", "ci_high",
                     "official", "official_metric", "answer_tokens_per_question", "judge_tokens_per_question",
                     "latency_ms_per_question", "best", "difference_vs_best", "diff_ci_low", "diff_ci_high",
                     "paired_on", "mcnemar_p", "holm_p",
                     *(["usd", "memory_usd", "not_priced", "price_table_sha256"] if comparison.price_table else [])])
    for run in comparison.runs:
        test = tests.get(run.run_id)
        for kind, rate in [*run.by_kind.items(), ("overall", run.overall)]:
            writer.writerow([inert_cell(v) if isinstance(v, str) else v for v in [comparison.label, run.run_id, run.memory, run.role, kind, rate.judged, rate.correct,
                             _cell(rate.accuracy), _cell(rate.ci_low), _cell(rate.ci_high), _cell(run.official),
                             run.official_metric, _cell(run.answer_tokens_per_question),
                             _cell(run.judge_tokens_per_question), _cell(run.latency_ms_per_question),
                             comparison.best, *(_cell(getattr(test, f, None)) for f in
                                                ("difference", "ci_low", "ci_high", "paired_on", "mcnemar_p", "holm_p")),
                             *([_cell(run.cost_usd), _cell(run.memory_cost_usd), " ".join(run.not_priced),
                                comparison.price_table["sha256"]] if comparison.price_table else [])]])
    return buffer.getvalue()


def _cell(value: Any) -> Any:
    return "" if value is None else value


def compare_chart(comparison: Comparison) -> str:
    """Inline SVG: per kind (and overall), one bar per system with its interval; floor and ceiling as lines."""
    groups = [*comparison.kinds, "overall"]
    systems = [r for r in comparison.runs if r.role == "system"]
    lines = [r for r in comparison.runs if r.role != "system"]
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def y(value: float) -> float:
        return _TOP + plot_h * (1 - value)

    def rate(run: RunColumn, group: str) -> Rate | None:
        return run.overall if group == "overall" else run.by_kind.get(group)

    parts = [f'<svg class="chart" viewBox="0 0 {_W} {_H}" role="img" xmlns="http://www.w3.org/2000/svg" '
             f'aria-label="accuracy by kind and run">']
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line class="grid" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}"/>'
                     f'<text x="{_LEFT - 8}" y="{y(tick) + 4:.1f}" text-anchor="end" font-size="12">{int(tick * 100)}%</text>')
    slot = plot_w / max(len(groups), 1)
    width = min(48.0, slot * 0.8 / max(len(systems), 1))
    for g, group in enumerate(groups):
        left = _LEFT + slot * g + (slot - width * len(systems)) / 2
        parts.append(f'<text x="{_LEFT + slot * (g + 0.5):.1f}" y="{_TOP + plot_h + 20}" text-anchor="middle" '
                     f'font-size="13">{_e(group)}</text>')
        for i, run in enumerate(systems):
            r = rate(run, group)
            if r is None or r.accuracy is None:
                continue
            x, top = left + width * i, y(r.accuracy)
            colour = _PALETTE[i % len(_PALETTE)]
            parts.append(f'<rect class="cbar" data-run="{_e(run.run_id)}" data-kind="{_e(group)}" x="{x + 2:.1f}" '
                         f'y="{top:.1f}" width="{width - 4:.1f}" height="{y(0) - top:.1f}" fill="{colour}">'
                         f'<title>{_e(run.memory)} {_e(group)}: {_rate(r)}</title></rect>')
            if r.ci_low is not None and r.ci_high is not None:
                cx = x + width / 2
                parts.append(f'<line class="whisker" x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(r.ci_low):.1f}" '
                             f'y2="{y(r.ci_high):.1f}" stroke="#222" stroke-width="1.5"/>')
        for run in lines:
            r = rate(run, group)
            if r is None or r.accuracy is None:
                continue
            colour = "#c43b3b" if run.role == "ceiling" else "#6b6b6b"
            parts.append(f'<line class="{run.role}" data-kind="{_e(group)}" x1="{_LEFT + slot * g + 4:.1f}" '
                         f'x2="{_LEFT + slot * (g + 1) - 4:.1f}" y1="{y(r.accuracy):.1f}" y2="{y(r.accuracy):.1f}" '
                         f'stroke="{colour}" stroke-width="2.5" stroke-dasharray="6 4"><title>{_e(run.role)} '
                         f'{_e(run.memory)} {_e(group)}: {_rate(r)}</title></line>')
    legend_y = _H - 28
    entries = [(_PALETTE[i % len(_PALETTE)], f"{run.memory} ({run.run_id[-6:]})", False) for i, run in enumerate(systems)]
    entries += [("#c43b3b" if run.role == "ceiling" else "#6b6b6b", f"{run.role}: {run.memory}", True) for run in lines]
    x = float(_LEFT)
    for colour, text, dashed in entries:
        mark = (f'<line x1="{x:.1f}" x2="{x + 18:.1f}" y1="{legend_y - 4}" y2="{legend_y - 4}" stroke="{colour}" '
                f'stroke-width="2.5" stroke-dasharray="6 4"/>' if dashed else
                f'<rect x="{x:.1f}" y="{legend_y - 12}" width="14" height="12" fill="{colour}"/>')
        parts.append(mark + f'<text x="{x + 22:.1f}" y="{legend_y}" font-size="12">{_e(text)}</text>')
        x += 40 + 7 * len(text)
    parts.append("</svg>")
    return "".join(parts)


def render_html(comparison: Comparison) -> str:
    headers, rows = _rows(comparison)
    notes = _notes(comparison)
    status = "publishable" if comparison.like_for_like else "diagnostic"
    table = ("<table class=\"card\"><thead><tr>" + "".join(f"<th>{_e(h)}</th>" for h in headers) + "</tr></thead><tbody>"
             + "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
             + "</tbody></table>")
    differences = "".join(f"<li>{_e(n[2:])}</li>" for n in notes[1:-1])
    body = (f'<h1>Compare: {_e(comparison.benchmark)}</h1><div class="card hero"><span class="status {status}">'
            f'{_e(comparison.label)}</span>' + (f"<ul>{differences}</ul>" if differences else "") + "</div>"
            f'<h2>Accuracy by kind</h2><div class="card">{compare_chart(comparison)}</div>{table}'
            f'<p class="sub">{_e(notes[-1])}</p>')
    return PAGE.substitute(title=_e(f"compare {comparison.benchmark} · benchledger"), body=body)
