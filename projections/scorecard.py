"""The text scorecard: what a person reads after a run.

It cannot hide a failed or partial run: the status line comes first, every failed condition is
listed with its reason, failures and pending questions have their own columns, and strict
accuracy (correct over planned) stands beside accuracy over judged. A benchmark's own sections
(its official statistics, printed its official way) follow the table, each under its title.
"""

from __future__ import annotations

from benchledger.projections.report import Report

__all__ = ["render_scorecard"]


def _pct(value: float | None) -> str:
    return "   n/a" if value is None else f"{100 * value:5.1f}%"


def _ci(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f"[{100 * low:4.1f}, {100 * high:5.1f}]"


def render_scorecard(report: Report) -> str:
    lines = []
    status = report.status.upper()
    lines.append(f"{status}  {report.benchmark} / {report.subset}  run {report.run_id}")
    if report.run_status != "completed":
        lines.append(f"  RUN {report.run_status.upper()}" + (f": {report.run_reason}" if report.run_reason else ""))
    budget = report.token_budget if report.token_budget is not None else "none"
    lines.append(
        f"  memory {report.memory} {report.memory_version}  k={report.k}  budget={budget}  "
        f"protocol={report.protocol}"
    )
    offline = "  (offline deterministic baseline)" if report.offline_models else ""
    lines.append(f"  agent {report.agent_model}  judge {report.judge_model}  scorer {report.scorer_id or '-'}"
                 f"{offline}")
    if report.base_url:
        lines.append(f"  endpoint {report.base_url}")
    lines.append(f"  corpus {report.fingerprint[:16] if report.fingerprint else '-'}  "
                 f"{report.corpus_state.documents_ingested}/{report.corpus_state.documents_expected} documents, "
                 f"{report.corpus_state.pending_chunks} pending")
    lines.append("")
    header = f"  {'kind':<18}{'planned':>8}{'judged':>8}{'correct':>8}{'unclear':>8}{'failed':>8}{'pending':>8}  {'accuracy':>8}  {'95% CI':<14}{'strict':>7}"
    lines.append(header)
    lines.append("  " + "-" * (len(header) - 2))
    for kind, t in sorted(report.by_kind.items()):
        lines.append(
            f"  {kind:<18}{t.planned:>8}{t.judged:>8}{t.correct:>8}{t.unclear:>8}{t.failed:>8}{t.pending:>8}"
            f"  {_pct(t.accuracy):>8}  {_ci(t.ci_low, t.ci_high):<14}{_pct(t.strict_accuracy):>7}"
        )
    lines.append("  " + "-" * (len(header) - 2))
    lines.append(
        f"  {'overall':<18}{report.total:>8}{report.judged:>8}{report.correct:>8}{report.unclear:>8}"
        f"{report.failed:>8}{report.pending:>8}  {_pct(report.accuracy):>8}  "
        f"{_ci(report.ci_low, report.ci_high):<14}{_pct(report.strict_accuracy):>7}"
    )
    if report.fama is not None and not report.sections:  # a benchmark's own sections speak for it
        lines += _fama_section(report.fama)
    for section in report.sections or ():
        lines += ["", f"  {section.title}", *(f"    {line}".rstrip() for line in section.lines)]
    lines.append("")
    lines.append(f"  {report.status}: " + ("every condition met" if report.publishable else
                 ", ".join(c.name for c in report.conditions if not c.met) + " not met"))
    for cond in report.conditions:
        mark = "ok  " if cond.met else "FAIL"
        lines.append(f"    [{mark}] {cond.name}: {cond.reason}")
    if report.failures:
        lines.append("")
        lines.append(f"  failures: {report.failed} question(s), grouped by error:")
        for error, count in report.failures_by_error.items():
            lines.append(f"    {count:>4}  {error}")
    elif report.failures_retried:
        lines.append(f"  failures: none unresolved ({report.failures_retried} resolved by retry or resume)")
    else:
        lines.append("  failures: 0")
    lines.append(f"  ledger head {report.ledger_head}")
    return "\n".join(lines)


def _score(value: float | None) -> str:
    return "   n/a" if value is None else f"{100 * value:6.1f}"


def _fama_section(fama: dict) -> list[str]:
    lines = ["", "  FAMA (Memora): per question max(0, MPA - w(1 - FAA)), mean over judged questions, x100"]
    header = f"  {'category':<18}{'n':>8}{'FAMA':>8}{'MPA':>8}{'FAA':>8}"
    lines += [header, "  " + "-" * (len(header) - 2)]
    for category, row in fama["by_category"].items():
        lines.append(f"  {category:<18}{row['n']:>8}{_score(row['fama']):>8}{_score(row['mpa']):>8}"
                     f"{_score(row['faa']):>8}")
    lines.append("  " + "-" * (len(header) - 2))
    lines.append(f"  {'overall':<18}{fama['n']:>8}{_score(fama['fama']):>8}{_score(fama['mpa']):>8}"
                 f"{_score(fama['faa']):>8}")
    lines.append(f"  sum over categories {fama['sum_100']:.1f}; judged without criteria {fama['excluded']}")
    return lines
