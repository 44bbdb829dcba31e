"""The HTML export: one self-contained page a person can open, read and send on.

No script, no network: styles are inline (the page skeleton and CSS live in `export_page.html`),
the chart is inline SVG, and a Content-Security-Policy forbids loading anything. Every piece of
corpus or model text passes through `_e` (html.escape with quotes) exactly once, at the point it
is placed, so a question or answer holding markup shows as text.
"""

from __future__ import annotations

from html import escape
from importlib.resources import files
from string import Template
from typing import Any

from benchledger.projections.report import Report, SegmentRow
from benchledger.projections.tallies import KindTally

__all__ = ["render_html", "accuracy_chart", "bar_chart", "PAGE"]

PAGE = Template(files(__package__).joinpath("export_page.html").read_text(encoding="utf-8"))

# Chart geometry (SVG user units; the SVG scales to the page width).
_W, _H = 1000, 340
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 112, 24, 64


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def render_html(report: Report, rows: list[dict[str, Any]], contexts: dict[str, str]) -> str:
    title = f"{report.benchmark} / {report.subset} · run {report.run_id} · benchledger"
    body = "\n".join([
        _hero(report), _facts(report), _conditions(report),
        "<h2>Accuracy by kind</h2>", f'<div class="card">{accuracy_chart(report)}</div>',
        _kind_table(report), _judge_audits(report), _failures(report), _questions(rows, contexts),
        f'<footer>Folded from {report.events} events of ledger head <code>{_e(report.ledger_head)}</code>; '
        f'projection versions {_e(report.projection_versions)}.</footer>',
    ])
    return PAGE.substitute(title=_e(title), body=body)


def _judge_audits(report: Report) -> str:
    """Each `audit judge` segment beside the score: the judge's wrong-verdict rate per plant kind."""
    parts = []
    for audit in report.judge_audits or ():
        rows = "".join(
            f"<tr><td>{_e(row.plant_kind)}</td><td>{_e(row.expected)}</td><td>{_e(row.error)}</td>"
            f"<td>{row.overall.verdicts}</td><td>{row.overall.wrong}</td><td>{_pct(row.overall.rate)}</td>"
            f"<td>{_pct(row.overall.ci_low)} – {_pct(row.overall.ci_high)}</td><td>{row.failed}</td></tr>"
            for row in audit.kinds)
        parts.append(
            f'<h2>Judge audit {_e(audit.audit_id)} (not in the score)</h2><div class="card"><p class="sub">scorer '
            f"{_e(audit.scorer_id)}, judge {_e(audit.judge_model)} at {_e(audit.endpoint)}; plants: "
            f"{_e(audit.source_label or audit.source)}; {audit.judged} of {audit.planned} judged, {audit.failed} failed"
            f"</p><table><thead><tr><th>plant</th><th>deserves</th><th>error</th><th>verdicts</th><th>errors</th>"
            f"<th>rate</th><th>95% CI</th><th>failed</th></tr></thead><tbody>{rows}</tbody></table></div>")
    return "".join(parts)


def _hero(report: Report) -> str:
    counts = [("planned", report.total), ("judged", report.judged), ("correct", report.correct),
              ("incorrect", report.incorrect), ("unclear", report.unclear), ("failed", report.failed),
              ("pending", report.pending)]
    ci = (f"95% CI {_pct(report.ci_low)} – {_pct(report.ci_high)}" if report.ci_low is not None else "nothing judged")
    return (
        f'<h1>{_e(report.benchmark)} / {_e(report.subset)}</h1>'
        f'<p class="sub">run <code>{_e(report.run_id)}</code> · memory {_e(report.memory)} '
        f'{_e(report.memory_version)} · scorer {_e(report.scorer_id)}</p>'
        + _hero_number(report, ci) +
        f'<div><span class="status {_e(report.status)}">{_e(report.status.upper())}</span>'
        + (f' <span class="status diagnostic">RUN {_e(report.run_status.upper())}</span>'
           if report.run_status != "completed" else "")
        + '<ul class="counts">' + "".join(f"<li><b>{n}</b> {label}</li>" for label, n in counts) + "</ul>"
        + (f'<p class="sub">{_e(report.run_reason)}</p>' if report.run_reason else "")
        + "</div></div>"
    )


def _facts(report: Report) -> str:
    cs = report.corpus_state
    facts = [
        ("memory", f"{report.memory} {report.memory_version}"),
        ("retrieval", f"k={report.k}, token budget {report.token_budget or 'none'}"),
        ("protocol", report.protocol),
        ("agent model", report.agent_model),
        ("judge model", report.judge_model),
        ("scorer", f"{report.scorer_id} (of {', '.join(report.scorers) or 'none'})"),
        ("models", "offline deterministic baseline" if report.offline_models else "remote models"),
        ("scoring rule", report.scoring_rule),
        ("corpus", f"{cs.documents_ingested}/{cs.documents_expected} documents, {cs.pending_chunks} pending chunks"),
        ("fingerprint", report.fingerprint),
        ("run status", report.run_status),
        *((f"segment {segment.label}", _segment_text(segment)) for segment in report.segments),
        ("from the response cache", f"{report.answers_from_cache} answers, {report.verdicts_from_cache} verdicts"),
        ("recalled texts not in their document", f"{report.recalled_not_verbatim} of {report.recalled_items}"),
        ("ledger head", report.ledger_head),
    ]
    items = "".join(f"<div><dt>{_e(k)}</dt><dd class=\"mono\">{_e(v)}</dd></div>" for k, v in facts)
    return f'<h2>Scorecard</h2><dl class="card facts">{items}</dl>'


def _segment_text(segment: SegmentRow) -> str:
    """Where a segment's calls went, which models it asked, and which the endpoint reported."""
    parts = [f"endpoint {segment.endpoint}"]
    parts += [f"{role} {model}" for role, model in (("agent", segment.agent_model), ("judge", segment.judge_model))
              if model]
    if segment.reported_models:
        parts.append("reported " + ", ".join(segment.reported_models))
    if segment.memory:
        parts.append(f"memory {segment.memory}")
    return " · ".join(parts)


def _conditions(report: Report) -> str:
    items = "".join(
        f'<li class="{"met" if c.met else "unmet"}"><span class="mark">{"✓" if c.met else "✗"}</span>'
        f'<span class="name">{_e(c.name)}</span><span>{_e(c.reason)}</span></li>'
        for c in report.conditions
    )
    verdict = "every condition met" if report.publishable else "diagnostic: the conditions marked ✗ are not met"
    return f'<h2>Publishable conditions</h2><div class="card"><p class="sub">{verdict}</p><ul class="conditions">{items}</ul></div>'


def _hero_number(report: Report, ci: str) -> str:
    """The headline: the benchmark's own number where it has one (accuracy below it), else accuracy."""
    accuracy = (f"accuracy over judged · {ci}<br>strict (correct / planned) {_pct(report.strict_accuracy)}")
    if report.metric == "accuracy":
        return f'<div class="card hero"><div class="big">{_pct(report.accuracy)}<small>{accuracy}</small></div>'
    return (f'<div class="card hero"><div class="big">{_pct(report.score)}<small>{_e(report.metric)}, the '
            f"benchmark's own overall number<br>verdicts correct at the full score: {_pct(report.accuracy)} "
            f"{accuracy}</small></div>")


def accuracy_chart(report: Report) -> str:
    """Inline SVG: accuracy per kind as bars, 95% Wilson intervals as whiskers, overall as a dashed line."""
    kinds = sorted(report.by_kind)
    tallies = {kind: report.by_kind[kind] for kind in kinds}
    return bar_chart(
        {kind: t.accuracy for kind, t in tallies.items()},
        {kind: f"{t.correct}/{t.judged} correct" + (f", {t.failed} failed" if t.failed else "")
         for kind, t in tallies.items()},
        intervals={kind: (t.ci_low or 0.0, t.ci_high or 0.0) for kind, t in tallies.items()},
        overall=report.accuracy, axis_label="accuracy (judged)")


def bar_chart(values: dict[str, float | None], notes: dict[str, str], *, overall: float | None,
              axis_label: str, intervals: dict[str, tuple[float, float]] | None = None,
              percent: bool = True) -> str:
    """Inline SVG: one bar per name on a 0..1 scale, optional interval whiskers, overall as a dashed line."""
    def show(value: float | None) -> str:
        if percent:
            return _pct(value)
        return "n/a" if value is None else f"{value:.3f}"

    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def y(value: float) -> float:
        return _TOP + plot_h * (1 - value)
    parts = [f'<svg class="chart" viewBox="0 0 {_W} {_H}" role="img" xmlns="http://www.w3.org/2000/svg" '
             f'aria-label="{_e(axis_label)} by kind">']
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        label = f"{int(tick * 100)}%" if percent else f"{tick:.2f}"
        parts.append(f'<line class="grid" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}"/>'
                     f'<text x="{_LEFT - 8}" y="{y(tick) + 4:.1f}" text-anchor="end" font-size="12">{label}</text>')
    parts.append(f'<line class="axis" x1="{_LEFT}" x2="{_LEFT}" y1="{_TOP}" y2="{_TOP + plot_h}"/>'
                 f'<line class="axis" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{_TOP + plot_h}" y2="{_TOP + plot_h}"/>'
                 f'<text x="14" y="{_TOP + plot_h / 2:.1f}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 14 {_TOP + plot_h / 2:.1f})">{_e(axis_label)}</text>')
    slot = plot_w / max(len(values), 1)
    for i, (name, value) in enumerate(values.items()):
        centre = _LEFT + slot * (i + 0.5)
        width = min(72.0, slot * 0.55)
        label_y = _TOP + plot_h + 20
        parts.append(f'<text x="{centre:.1f}" y="{label_y}" text-anchor="middle" font-size="13">{_e(name)}</text>'
                     f'<text class="muted" x="{centre:.1f}" y="{label_y + 17}" text-anchor="middle" font-size="11">'
                     f'{_e(notes.get(name, ""))}</text>')
        if value is None:
            parts.append(f'<text class="muted" x="{centre:.1f}" y="{y(0) - 8:.1f}" text-anchor="middle" font-size="12">n/a</text>')
            continue
        top = y(value)
        interval = (intervals or {}).get(name)
        extra = f" (95% CI {show(interval[0])} – {show(interval[1])})" if interval else ""
        parts.append(f'<rect class="bar" data-kind="{_e(name)}" x="{centre - width / 2:.1f}" y="{top:.1f}" '
                     f'width="{width:.1f}" height="{y(0) - top:.1f}" rx="3"><title>{_e(name)}: {show(value)}'
                     f'{extra}</title></rect>')
        if interval:
            low, high = y(interval[0]), y(interval[1])
            parts.append(f'<line class="whisker" x1="{centre:.1f}" x2="{centre:.1f}" y1="{low:.1f}" y2="{high:.1f}"/>'
                         f'<line class="whisker" x1="{centre - 8:.1f}" x2="{centre + 8:.1f}" y1="{low:.1f}" y2="{low:.1f}"/>'
                         f'<line class="whisker" x1="{centre - 8:.1f}" x2="{centre + 8:.1f}" y1="{high:.1f}" y2="{high:.1f}"/>')
        parts.append(f'<text x="{centre + width / 2 + 4:.1f}" y="{max(top, _TOP + 12) + 4:.1f}" font-size="12" '
                     f'font-weight="700">{show(value)}</text>')
    if overall is not None:
        line_y = y(overall)
        parts.append(f'<line class="overall" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{line_y:.1f}" y2="{line_y:.1f}"/>'
                     f'<text x="{_W - _RIGHT + 6}" y="{line_y + 4:.1f}" font-size="12" '
                     f'fill="#c43b3b">overall {show(overall)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _kind_table(report: Report) -> str:
    head = "".join(f"<th>{h}</th>" for h in ("kind", "planned", "judged", "correct", "incorrect", "unclear",
                                              "failed", "pending", "accuracy", "95% CI", "strict"))
    def row(name: str, t: KindTally, css: str = "") -> str:
        cells = [t.planned, t.judged, t.correct, t.incorrect, t.unclear, t.failed, t.pending, _pct(t.accuracy),
                 f"{_pct(t.ci_low)} – {_pct(t.ci_high)}" if t.ci_low is not None else "", _pct(t.strict_accuracy)]
        return f'<tr class="{css}"><td>{_e(name)}</td>' + "".join(f"<td>{_e(c)}</td>" for c in cells) + "</tr>"
    body = "".join(row(kind, report.by_kind[kind]) for kind in sorted(report.by_kind))
    overall = KindTally(planned=report.total, answered=report.answered, judged=report.judged, correct=report.correct,
                        incorrect=report.incorrect, unclear=report.unclear, failed=report.failed,
                        pending=report.pending, accuracy=report.accuracy, ci_low=report.ci_low,
                        ci_high=report.ci_high, strict_accuracy=report.strict_accuracy)
    return f'<table class="card"><thead><tr>{head}</tr></thead><tbody>{body}{row("overall", overall, "total")}</tbody></table>'


def _failures(report: Report) -> str:
    if not report.failures:
        retried = f" ({report.failures_retried} resolved by retry or resume)" if report.failures_retried else ""
        return f'<h2>Failures</h2><p class="sub">No unresolved operational failures{retried}.</p>'
    groups = []
    for error, count in report.failures_by_error.items():
        items = "".join(
            f'<li><code>{_e(f.question_id or "run")}</code> at {_e(f.stage)} (attempt {f.attempt}): {_e(f.message)}</li>'
            for f in report.failures if f.error_class == error)
        groups.append(f'<div class="failure-group"><h3>{_e(error)} · {count}</h3><ul>{items}</ul></div>')
    return (f'<h2>Failures</h2><div class="card"><p class="sub">{len(report.failures)} unresolved operational '
            f'failure(s), grouped by error; a failure is never counted as a wrong answer.</p>{"".join(groups)}</div>')


def _questions(rows: list[dict[str, Any]], contexts: dict[str, str]) -> str:
    kinds = list(dict.fromkeys(row["kind"] for row in rows))
    nav = "".join(f'<a href="#kind-{_e(k)}">{_e(k)}</a>' for k in kinds)
    sections = []
    for kind in kinds:
        cards = "".join(_question(row, contexts.get(row["question_id"])) for row in rows if row["kind"] == kind)
        sections.append(f'<h3 id="kind-{_e(kind)}">{_e(kind)}</h3>{cards}')
    return f'<h2>Questions ({len(rows)})</h2><nav class="kinds">{nav}</nav>' + "".join(sections)


def _question(row: dict[str, Any], context: str | None) -> str:
    outcome = row["verdict"] if row["status"] == "judged" else ("failed" if row["status"] == "failed" else "pending")
    label = outcome if row["status"] in ("judged", "failed") else row["status"]
    answer = _e(row["answer"]) + (" <em>(abstained)</em>" if row["abstained"] else "") if row["answer"] is not None else "<em>no answer</em>"
    lines = [f'<dt>gold</dt><dd>{_e(row["gold"])}</dd>', f"<dt>answer</dt><dd>{answer}</dd>"]
    if row["verdict"] is not None:
        lines.append(f'<dt>verdict</dt><dd>{_e(row["verdict"])} — {_e(row["reason"])} '
                     f'<span class="kindtag">({_e(row["judge_model"])}, scorer {_e(row["scorer_id"])})</span></dd>')
    meta = []
    if row["context_tokens"] is not None:
        meta.append(f'{len(row["recalled_doc_ids"])} recalled, ~{row["context_tokens"]} context tokens, '
                    f'recall {row["recall_latency_ms"]:.0f} ms')
    meta += [f'answer {row["answer_prompt_tokens"]}+{row["answer_completion_tokens"]} tokens, '
             f'{row["answer_latency_ms"]:.0f} ms'] if row["answer_latency_ms"] is not None else []
    failure = (f'<p class="failure">failed at {_e(row["failure_stage"])}: <b>{_e(row["failure_class"])}</b> '
               f'{_e(row["failure_message"])}</p>') if row["failure_class"] else ""
    folded = ""
    if context is not None:
        docs = " ".join(row["recalled_doc_ids"])
        folded = (f'<details><summary>recalled context ({len(row["recalled_doc_ids"])} documents: {_e(docs)})</summary>'
                  f"<pre>{_e(context)}</pre></details>")
    return (
        f'<article class="q v-{_e(outcome)}" id="q-{_e(row["question_id"])}"><header>'
        f'<span class="badge">{_e(label.upper())}</span><code>{_e(row["question_id"])}</code>'
        f'<span class="kindtag">{_e(row["kind"])} · asked by {_e(row["asking_user"] or "-")}</span></header>'
        f'<p class="question">{_e(row["question"])}</p><dl class="qa">{"".join(lines)}</dl>{failure}'
        f'<p class="meta">{_e(" · ".join(meta))}</p>{folded}</article>'
    )
