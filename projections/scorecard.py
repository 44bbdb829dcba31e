"""The text scorecard: what a person reads after a run.

It cannot hide a failed or partial run: the status line comes first, every failed condition is
listed with its reason, failures and pending questions have their own columns, and strict
accuracy (correct over planned) stands beside accuracy over judged. A benchmark's own sections
(its official statistics, printed its official way) follow the table, each under its title.
"""

from __future__ import annotations

from typing import Any

from benchledger.projections.checks import Agreement, RunCheck
from benchledger.projections.gold_overlay import CorrectedGold, KindCorrection
from benchledger.projections.judge_audit import JudgeAudit
from benchledger.projections.memory_costs import memory_cost_lines
from benchledger.projections.publishable import ATTESTED
from benchledger.projections.report import Report
from benchledger.projections.tallies import KindTally
from benchledger.redaction import strip_url_credentials
from benchledger.tables import SEPARATOR, render_table
from benchledger.values import is_offline_model

__all__ = ["offline_note", "render_scorecard", "render_brief", "render_judge_audit", "render_corrected_gold"]


def offline_note(*, agent_offline: bool) -> str:
    """What a run says first, and its card says under its status, when the deterministic offline models
    answered or judged: that it is the offline baseline, and the option that asks a real model (the
    agent's: without one, the judge is the offline one too; else the judge's)."""
    option = "--agent-model MODEL" if agent_offline else "--judge-model MODEL"
    return f"offline deterministic baseline: {option} asks a real model"


_KIND_HEADERS = ("kind", "planned", "judged", "correct", "unclear", "failed", "pending", "accuracy", "95% CI",
                 "strict")
_COUNT_HEADERS = ("kind", "planned", "judged", "full score", "unclear", "failed", "pending")
"""The kind table of a benchmark whose number is its own (token F1, FAMA, argument F1): counts only, so
the card has one headline number; a share of verdicts at the full score is not that number."""


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _ci(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f"[{100 * low:.1f}, {100 * high:.1f}]"


def _kind_row(name: str, t: KindTally) -> list[object]:
    return [name, t.planned, t.judged, t.correct, t.unclear, t.failed, t.pending, _pct(t.accuracy),
            _ci(t.ci_low, t.ci_high), _pct(t.strict_accuracy)]


def render_brief(report: Report) -> str:
    """Five lines: the headline with its interval, publishable or the conditions that failed, the
    release, the models, the head (`show --brief`: what to paste beside a number)."""
    if report.metric != "accuracy":
        score = "n/a" if report.score is None else f"{100 * report.score:.1f}%"
        headline = f"{score} {report.metric} (scorer {report.scorer_id})"
    else:
        shown = "n/a" if report.accuracy is None else f"{100 * report.accuracy:.1f}%"
        interval = ("" if report.ci_low is None or report.ci_high is None else
                    f" [{100 * report.ci_low:.1f}, {100 * report.ci_high:.1f}]")
        headline = f"{shown}{interval} accuracy, {report.correct}/{report.judged} judged (scorer {report.scorer_id})"
    failing = [c.name for c in report.conditions if not c.met]
    verdict = ("PUBLISHABLE: every condition met" if report.publishable else
               f"{report.status.upper()}: " + (", ".join(failing) + " not met" if failing else report.status))
    return "\n".join([
        f"{report.benchmark} / {report.subset} run {report.run_id}: {headline}",
        verdict,
        f"release {report.release or '-'}",
        f"memory {report.memory} {report.memory_version}, agent {report.agent_model}, judge {report.judge_model}",
        f"ledger head {report.ledger_head}",
    ])


def render_scorecard(report: Report, *, added_by: dict[str, str] | None = None) -> str:
    """The scorecard; `added_by` names the writer role that added each scorer (a shared ledger's)."""
    lines = []
    status = report.status.upper()
    lines.append(f"{status}  {report.benchmark} / {report.subset}  run {report.run_id}")
    if report.run_status != "completed":
        lines.append(f"  RUN {report.run_status.upper()}" + (f": {report.run_reason}" if report.run_reason else ""))
    if report.offline_models:
        lines.append(f"  {offline_note(agent_offline=is_offline_model(report.agent_model))}")
    budget = report.token_budget if report.token_budget is not None else "none"
    lines.append(
        f"  memory {report.memory} {report.memory_version}  k={report.k}  budget={budget}  "
        f"protocol={report.protocol}"
    )
    lines += _over_budget_lines(report)
    if report.memory_options or report.memory_model:
        shown = "  ".join(f"{key}={strip_url_credentials(value)}" for key, value in sorted(report.memory_options.items()))
        lines.append(f"  memory options {shown or '-'}" + (f"  memory model {report.memory_model}"
                                                             if report.memory_model else ""))
    lines += memory_cost_lines(report.memory_calls)
    lines.append(f"  agent {report.agent_model}  judge {report.judge_model}  scorer {report.scorer_id or '-'}")
    if report.kind == "action":
        lines.append("  an action benchmark: scored by the tool call the agent made; any evidence recall shown is a "
                     "diagnostic of the memory, never the score")
    lines += _scorer_lines(report, added_by or {})
    lines += _segment_lines(report)
    lines += _pacing_lines(report)
    if report.tokens_by_stage:
        lines.append("  tokens " + "; ".join(
            f"{stage} {t['prompt_tokens']:,} in / {t['completion_tokens']:,} out ({t['calls']} calls"
            + (f", {t['impossible']} claiming negative tokens, left out" if t.get("impossible") else "") + ")"
            + _forecast_note(report.forecast_by_stage.get(stage))
            for stage, t in report.tokens_by_stage.items()))
    lines.append(f"  corpus {report.fingerprint[:16] if report.fingerprint else '-'}  "
                 f"{report.corpus_state.documents_ingested}/{report.corpus_state.documents_expected} documents, "
                 f"{report.corpus_state.pending_chunks} pending")
    if report.release:
        lines.append(f"  release {report.release}")
    lines.append("")
    own_number = report.metric != "accuracy"
    if own_number:  # one headline: the benchmark's number; the table only counts questions under it
        score = "n/a" if report.score is None else f"{100 * report.score:.1f}%"
        lines += [f"  score {score}  {report.metric} (scorer {report.scorer_id}), the benchmark's own number",
                  "  (per kind in its own statistics below; the table counts questions, and",
                  "  'full score' those that scored in full)", ""]
    overall = KindTally(planned=report.total, answered=report.answered, judged=report.judged,
                        correct=report.correct, incorrect=report.incorrect, unclear=report.unclear,
                        failed=report.failed, pending=report.pending, accuracy=report.accuracy,
                        ci_low=report.ci_low, ci_high=report.ci_high, strict_accuracy=report.strict_accuracy)
    headers = _COUNT_HEADERS if own_number else _KIND_HEADERS
    rows: list[Any] = [_kind_row(kind, t)[:len(headers)] for kind, t in sorted(report.by_kind.items())]
    rows += [SEPARATOR, _kind_row("overall", overall)[:len(headers)]]
    lines.append(render_table(rows, headers, indent="  ", drop=("unclear", "pending", "planned")))
    if report.fama is not None and not report.sections:  # a benchmark's own sections speak for it
        lines += _fama_section(report.fama)
    for section in report.sections or ():
        lines += ["", f"  {section.title}", *(f"    {line}".rstrip() for line in section.lines)]
    for audit in report.judge_audits or ():
        lines += render_judge_audit(audit)
    for overlay in report.corrected_gold or ():
        lines += render_corrected_gold(overlay)
    lines.append("")
    lines.append(f"  {report.status}: " + ("every condition met" if report.publishable else
                 ", ".join(c.name for c in report.conditions if not c.met) + " not met"))
    for cond in report.conditions:
        mark = "ok  " if cond.met else "FAIL"
        label = f" ({ATTESTED})" if cond.attested else ""
        lines.append(f"    [{mark}] {cond.name}{label}: {cond.reason}")
    if report.failures:
        lines.append("")
        lines.append(f"  failures: {report.failed} question(s), grouped by error:")
        lines.append(render_table([(error, count) for error, count in report.failures_by_error.items()],
                                  ("error", "questions"), indent="    "))
    elif report.failures_retried:
        lines.append(f"  failures: none unresolved ({report.failures_retried} resolved by retry or resume)")
    else:
        lines.append("  failures: 0")
    lines += render_checks(report.checks or [])
    lines += _provenance_lines(report)
    lines.append(f"  ledger head {report.ledger_head}")
    return "\n".join(lines)


def _scorer_lines(report: Report, added_by: dict[str, str]) -> list[str]:
    """One line for every scorer but the report's own: judge, who added it and when, its headline
    number and its own verdicts and failures (a failure is counted under the scorer it was recorded under)."""
    others = [line for line in report.scorer_lines if line.scorer_id != report.scorer_id]
    if not others:
        return []
    own = next((line for line in report.scorer_lines if line.scorer_id == report.scorer_id), None)
    lead = "" if own is None or own.headline else \
        f" (the headline is scorer {next(line.scorer_id for line in report.scorer_lines if line.headline)})"
    out = [f"  other scorers{lead}; `show RUN --scorer ID` reports one:"]
    for line in others:
        judge = line.method if line.method and line.method != line.judge else line.judge
        added = f"added {line.added_at[:16].replace('T', ' ')}" if line.added_at else "added (time not recorded)"
        if who := added_by.get(line.scorer_id):
            added += f" by {who}"
        failures = f", {line.failed} failed" + (f" ({', '.join(f'{error} {n}' for error, n in line.failures_by_error.items())})"
                                                if line.failures_by_error else "") if line.failed else ""
        status = "the headline" if line.headline else \
            ("meets the protocol" if line.meets_protocol else "not the protocol's: " + ", ".join(line.not_met))
        out.append(f"    {line.scorer_id}: {judge} ({line.protocol}), {added}: {_headline(line.score, line.metric)}, "
                   f"{line.judged}/{line.answered} judged{failures}; {status}")
    return out


def _over_budget_lines(report: Report) -> list[str]:
    """What benchledger cut from recalls the memory returned past k or the budget (the harness's rule)."""
    if not report.recalls_over_budget:
        return []
    return [f"  over budget: {report.recalls_over_budget} of {report.recalls} recalls; benchledger cut "
            f"{report.truncated_candidates} candidates, ~{report.truncated_tokens:,} tokens"]


def _headline(score: float | None, metric: str) -> str:
    shown = "n/a" if score is None else f"{100 * score:.1f}%"
    return f"{metric} {shown}"


def _segment_lines(report: Report) -> list[str]:
    """Where every segment's calls went: the run's start, each resume, each scorer."""
    rows = [(segment.label, segment.endpoint + (f" (key ${segment.api_key_env})" if segment.api_key_env else ""),
             segment.agent_model, segment.judge_model, ", ".join(segment.reported_models) or None, segment.memory)
            for segment in report.segments]
    table = render_table(rows, ["segment", "endpoint", "agent", "judge", "reported", "memory"],
                         align=["left"] * 6, indent="  ", drop=("reported", "endpoint"))
    return ["", *table.splitlines()]


def _forecast_note(forecast: dict[str, int] | None) -> str:
    if not forecast:
        return ""
    return f" [forecast {forecast['prompt_tokens']:,} in / at most {forecast['completion_tokens']:,} out, " \
           f"{forecast['calls']} calls]"


def _pacing_lines(report: Report) -> list[str]:
    """One line per segment: how its model calls were paced at the endpoint (EndpointPaced)."""
    return [f"  pacing {p['pacing']} (ceiling {p['ceiling']}, segment {p['attempt']}): {p['calls']} calls, "
            f"{p['refused']} refused (429), {p['timeouts']} timed out; in flight peak {p['peak_in_flight']}, "
            f"mean {p['mean_in_flight']:g}, limit at end {p['final_limit']}; {p['waited']} waited "
            f"{p['wait_seconds']:.1f}s in all" for p in report.pacing]


def _provenance_lines(report: Report) -> list[str]:
    lines = []
    if report.answers_from_cache or report.verdicts_from_cache:
        lines.append(f"  cache: {report.answers_from_cache} of {report.answered} answers and "
                     f"{report.verdicts_from_cache} of {report.judged} verdicts came from the ledger's response cache")
    if report.recalled_not_verbatim:
        share = 100 * report.recalled_not_verbatim / report.recalled_items
        lines.append(f"  recall: {report.recalled_not_verbatim} of {report.recalled_items} recalled texts "
                     f"({share:.1f}%) do not occur in the document they name")
    if report.recalled_fields_changed:
        lines.append(f"  recall: {report.recalled_fields_changed} of {report.recalled_items} recalled documents "
                     "came back with a structural field (author, topic, time, ...) other than ingested")
    if report.recalled_derived:
        lines.append(f"  recall: {report.recalled_derived} of {report.recalled_items} recalled candidates are derived "
                     f"text (facts, summaries) counted toward the documents they name; "
                     f"{report.recalled_unattributed} name no document and count toward no evidence")
    if report.discarded_verdicts:
        lines.append(f"  {report.discarded_verdicts} verdict(s) on an answer that was not the recorded one "
                     "were not counted")
    return lines


def _agreement(what: str, a: Agreement | None) -> str:
    if a is None or not (a.replies or a.failed):
        return f"{what}: none sent"
    failed = f", {a.failed} failed" if a.failed else ""
    if not a.replies:
        return f"{what}: no reply{failed}"
    return f"{what} {a.agree}/{a.replies} agree ({_pct(a.rate)}, 95% CI {_ci(a.ci_low, a.ci_high)}){failed}"


def render_checks(checks: list[RunCheck]) -> list[str]:
    """Every third-party check appended to the run: who, when, against what, what it found (never in the score)."""
    if not checks:
        return []
    lines = ["", "  checks appended after the run (never in the score or the conditions above):"]
    for check in checks:
        when = check.checked_at[:19].replace("T", " ")
        head = f"    {check.check_id} {check.kind} by {check.checked_by} (as they named themselves), {when} UTC, " \
               f"{check.checked_with}, against {check.against}"
        if check.kind == "against-source":
            found = ", ".join(f"{n} {status}" for status, n in sorted(check.counts.items()))
            lines += [head, f"      release files re-read from the official source: {found}"]
        else:
            c = check.counts
            lines += [head, f"      drew {c['drawn']} of {c['population']} question(s) (asked {c['asked']}, seed "
                            f"{c['seed']}): {_agreement('answers', check.answers)}; "
                            f"{_agreement('verdicts', check.verdicts)}"]
        for off in check.disagreements:
            lines.append(f"      {off.item}: {_short(off.again, 160)}" if check.kind == "against-source"
                         else f"      {off.item}: recorded {_short(off.recorded)}, now {_short(off.again)}")
    return lines


def _short(text: str, cap: int = 60) -> str:
    one = " ".join(text.split())
    return one if len(one) <= cap else one[: cap - 1] + "…"


def render_judge_audit(audit: JudgeAudit) -> list[str]:
    """One `audit judge` segment: per plant kind, the judge's wrong-verdict rate (never in the score)."""
    source = audit.source_label or audit.source
    lines = ["", f"  judge audit {audit.audit_id} (not in the score): scorer {audit.scorer_id}, judge {audit.judge_model}"
                 f"{' (' + audit.method + ')' if audit.method else ''} at {audit.endpoint}; plants: {source}",
             f"    {audit.judged} of {audit.planned} plants judged, {audit.failed} failed"
             + (f", {sum(audit.skipped.values())} skipped" if audit.skipped else "")]
    if audit.reference_rate is not None:
        lines.append(f"    the file's own recorded judges accepted {_pct(audit.reference_rate)} of these plants "
                     f"({audit.reference_judgments} verdicts)")
    scored = any(row.overall.mean_score is not None for row in audit.kinds)
    rows = [[row.plant_kind, row.expected, row.error, row.overall.verdicts, row.overall.wrong, row.overall.unclear,
             _pct(row.overall.rate), _ci(row.overall.ci_low, row.overall.ci_high), row.failed,
             *([_score(row.overall.mean_score)] if scored else [])]
            for row in audit.kinds]
    headers = ("plant", "deserves", "error", "verdicts", "errors", "unclear", "rate", "95% CI", "failed",
               *(("mean score",) if scored else ()))
    lines += render_table(rows, headers, indent="    ").splitlines()
    return lines


def _corrected_row(name: str, k: KindCorrection, scored: bool) -> list[object]:
    flag = "OVER CEILING" if k.exceeds_ceiling else ""
    return [name, k.planned, k.corrected, k.left_out, _pct(k.official_accuracy), _pct(k.corrected_accuracy),
            _ci(k.corrected_ci_low, k.corrected_ci_high), _pct(k.ceiling), flag,
            *([_score(k.official_mean_score), _score(k.corrected_mean_score)] if scored else [])]


def render_corrected_gold(overlay: CorrectedGold) -> list[str]:
    """One gold overlay beside the official score: official vs corrected accuracy, ceilings, flags."""
    origin = "pinned" if overlay.pinned else "unpinned"
    left_out = ", ".join(f"{n} {reason}" for reason, n in overlay.left_out_by_reason.items()) or "none"
    lines = ["", f"  {overlay.label.upper()}: audit {overlay.audit_id}, scorer {overlay.scorer_id} "
                 f"({overlay.judge_model})",
             f"    overlay {overlay.source_label} [{origin}] sha256 {overlay.source_sha256[:16]}",
             f"    left out of the corrected score: {left_out}; replaced verdicts flipped: "
             + ", ".join(f"{n} {flip}" for flip, n in overlay.overall.flips.items())
             + (f"; {overlay.overall.missing} replaced question(s) not judged yet" if overlay.overall.missing else "")]
    scored = overlay.overall.official_mean_score is not None
    rows: list[Any] = [_corrected_row(kind, k, scored) for kind, k in overlay.by_kind.items()]
    rows += [SEPARATOR, _corrected_row("overall", overlay.overall, scored)]
    headers = ("kind", "planned", "replaced", "left out", "official", "corrected", "95% CI", "ceiling", "",
               *(("official score", "corrected score") if scored else ()))
    lines += render_table(rows, headers, indent="    ").splitlines()
    return lines


def _score(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}"


def _fama_section(fama: dict[str, Any]) -> list[str]:
    lines = ["", "  FAMA (Memora): per question max(0, MPA - w(1 - FAA)), mean over judged questions, x100"]
    rows: list[Any] = [[category, row["n"], _score(row["fama"]), _score(row["mpa"]), _score(row["faa"])]
            for category, row in fama["by_category"].items()]
    rows += [SEPARATOR, ["overall", fama["n"], _score(fama["fama"]), _score(fama["mpa"]), _score(fama["faa"])]]
    lines.append(render_table(rows, ("category", "n", "FAMA", "MPA", "FAA"), indent="  "))
    lines.append(f"  sum over categories {fama['sum_100']:.1f}; judged without criteria {fama['excluded']}")
    return lines
