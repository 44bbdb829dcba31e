"""`compare`: one table for runs of one benchmark, after checking that they are like for like.

Pure. Before any number, every run's comparability facts are set side by side (`FACTS`): the
release (subset, corpus fingerprint, adapter), the selection (every field the run selected with, such as
an action benchmark's candidate-set setting), the planned questions (a digest of ids, kinds,
texts and golds), the answer model, the judge and the scorer's rule (method, protocol, prompt
hash, scoring rule), the prompts (every recorded prompt hash), k, the token budget and the context
format (whether the recalled passages carried timestamps, measured by the caller from the recorded
candidates). Every fact that differs is named with each run's value; the comparison is refused
unless differences are allowed, and then it is labelled "not like for like" wherever it is shown.
Runs of different benchmarks are never compared. The memory system is what is compared, so it is
not a fact; a run whose memory declares itself a floor (`full-context`) or a ceiling (`oracle`) is
drawn as such (`CompareInput.role`: the memory's own declaration, which the caller reads).

Per run: accuracy per kind and overall (over judged questions, 95% Wilson intervals), the
benchmark's own number (LoCoMo's token F1...), tokens per question (answer and judge calls) and
latency per question (recall + answer), and with a price table the reader gives (`projections.prices`:
never recorded) the dollars of its answer and judge calls and of the memory's own calls. The best run is the system (not floor or ceiling) with the
highest overall accuracy (for an action benchmark, its report's own number, the action score such as
argument F1: a retrieval figure never ranks an action benchmark's runs); every other run is tested against it over the questions both judged:
a seeded paired bootstrap interval of the difference (of the per-answer score where both scorers
give one, as LoCoMo's token F1 does, else of correctness) and an exact McNemar p-value over the
verdicts, the p-values Holm-corrected over the comparisons (family-wise 5%).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Sequence
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from benchledger.errors import BadInput
from benchledger.projections.prices import PriceTable, run_costs
from benchledger.projections.report import Report
from benchledger.projections.state import RunState
from benchledger.projections.stats import mcnemar_exact, paired_bootstrap_diff, wilson_interval

__all__ = ["COMPARE_VERSION", "FACTS", "Role", "CompareInput", "Rate", "RunColumn",
           "PairedTest", "Difference", "Comparison", "compare_runs", "holm", "unlike", "named_differences"]

COMPARE_VERSION = 2
Role = Literal["system", "floor", "ceiling"]
"""How a run's memory is drawn: a system compared, or the floor or ceiling it is compared against, as
the memory system itself declares (`comparison_role` on its class, read by the caller's registry)."""
BOOTSTRAP_SEED = 0
BOOTSTRAP_RESAMPLES = 2000
FACTS = ("benchmark", "release", "selection", "questions", "answer model", "judge", "scorer rule", "prompts", "protocol",
         "k", "token budget", "context format")


class CompareInput(NamedTuple):
    state: RunState
    report: Report
    """The run's report under the scorer to compare (its official number comes from it)."""
    context_format: str
    """"timestamps", "no timestamps", "mixed (N%)" or "not recorded": what the recalled passages carried."""
    official: Report | None = None
    """The run's report under its newest complete official scorer (the benchmark's own number), if it has one."""
    role: Role = "system"
    """The run's memory as its class declares it: a floor (`full-context`), a ceiling (`oracle`) or a system."""


class Rate(BaseModel):
    model_config = ConfigDict(frozen=True)

    judged: int
    correct: int
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None


class RunColumn(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_id: str
    memory: str
    role: Literal["system", "floor", "ceiling"]
    scorer_id: str | None
    planned: int
    by_kind: dict[str, Rate]
    overall: Rate
    official: float | None
    """The benchmark's own overall number under its official scorer (None when the run has no complete one)."""
    official_metric: str
    official_scorer: str | None
    score: float | None = None
    """The compared report's own headline number (`Report.score`, of `Report.metric`)."""
    answer_tokens_per_question: float | None
    judge_tokens_per_question: float | None
    latency_ms_per_question: float | None
    """Mean recall + answer latency over answered questions, in milliseconds."""
    cost_usd: float | None = None
    """With a price table: the priced dollars of the answer calls, the scorer's judge calls and the memory's own."""
    memory_cost_usd: float | None = None
    """With a price table: the priced dollars of the memory's own calls (every stage)."""
    not_priced: list[str] = []
    """With a price table: the models with tokens it does not price (left out of the dollars, never counted as 0)."""
    memory_not_priced: list[str] = []
    """With a price table: those of the memory's own calls (left out of `memory_cost_usd`)."""


class PairedTest(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_id: str
    against: str
    paired: int
    difference: float | None
    """This run's mean minus the best run's over the questions both judged: of the scorer's number per
    answer where both scorers give one (`paired_on` scores), else of correct verdicts (accuracy)."""
    ci_low: float | None
    ci_high: float | None
    paired_on: Literal["verdicts", "scores"] = "verdicts"
    mcnemar_p: float | None
    holm_p: float | None
    """The McNemar p-value, Holm-corrected over every test of the table."""
    significant: bool
    """holm_p < 0.05."""


class Difference(BaseModel):
    model_config = ConfigDict(frozen=True)

    fact: str
    values: dict[str, str]
    """run id -> its value."""


class Comparison(BaseModel):
    model_config = ConfigDict(frozen=True)

    benchmark: str
    like_for_like: bool
    label: str
    """"like for like", or "NOT LIKE FOR LIKE: <the facts that differ>"."""
    differences: list[Difference]
    kinds: list[str]
    runs: list[RunColumn]
    best: str
    tests: list[PairedTest]
    bootstrap_seed: int
    bootstrap_resamples: int
    compare_version: int
    kind: str | None = None
    """What the benchmark scores (recall, answer, action), as its adapter declares it."""
    ranked_by: str = "accuracy"
    """What chose the best run: "accuracy", or an action benchmark's own number (its metric's name)."""
    price_table: dict[str, str] | None = None
    """The reader's price table (path, sha256) the dollars were priced with; None: no dollars."""


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order (monotone, capped at 1)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _facts(run: CompareInput, varied: Collection[str] = ()) -> dict[str, str]:
    state, report = run.state, run.report
    assert state.started is not None
    cfg = state.started.config
    scorer = state.scorers.get(report.scorer_id or "")
    questions = sorted((q.planned.question_id, q.planned.kind, q.planned.text, q.planned.gold)
                       for q in state.questions.values())
    judges = ", ".join(scorer.judge_models) if scorer and scorer.judge_models else (scorer.judge_model if scorer else "-")
    rule = (f"{scorer.method or scorer.protocol} (prompt {scorer.prompt_hash[:12] or 'none'}), scoring rule "
            f"{report.scoring_rule}") if scorer else "no scorer"
    return {
        "benchmark": cfg.benchmark,
        "release": f"{cfg.subset} {state.corpus.fingerprint[:12] if state.corpus else 'no corpus'} "
                   f"({state.corpus.adapter_version if state.corpus else '-'})",
        "selection": ", ".join(f"{name}={value}" for name, value in sorted(cfg.selection.model_dump(mode="json").items())
                               if value not in (None, [], ()) and name not in varied) or "everything",
        "questions": f"{len(questions)} questions, digest {_digest(questions)}",
        "answer model": cfg.agent_model,
        "judge": judges,
        "scorer rule": rule,
        "prompts": _digest([sorted(cfg.prompt_hashes.items()), sorted(cfg.reference_prompt_hashes.items())]),
        "protocol": str(cfg.settings.protocol or "default"),
        "k": str(cfg.settings.k),
        "token budget": str(cfg.settings.token_budget or "none"),
        "context format": run.context_format,
    }


def unlike(runs: Sequence[CompareInput], *, varied: Collection[str] = ()) -> list[Difference]:
    """Every comparability fact (`FACTS`) on which the runs differ, with each run's value; `varied`
    names selection fields expected to differ (a sweep's per-epoch seeds), left out of the selection."""
    facts = {run.state.run_id: _facts(run, varied) for run in runs}
    return [Difference(fact=fact, values={rid: f[fact] for rid, f in facts.items()})
            for fact in FACTS if len({f[fact] for f in facts.values()}) > 1]


def named_differences(differences: Sequence[Difference]) -> str:
    """The differences in one line: `fact: value (run) vs value (run); ...`."""
    return "; ".join(f"{d.fact}: " + " vs ".join(f"{v} ({rid})" for rid, v in d.values.items()) for d in differences)


def _rate(verdicts: Sequence[str]) -> Rate:
    correct = sum(1 for v in verdicts if v == "correct")
    n = len(verdicts)
    low, high = wilson_interval(correct, n) if n else (None, None)
    return Rate(judged=n, correct=correct, accuracy=correct / n if n else None, ci_low=low, ci_high=high)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _column(run: CompareInput, prices: PriceTable | None) -> RunColumn:
    state, report = run.state, run.report
    assert state.started is not None
    scorer = report.scorer_id
    by_kind: dict[str, list[str]] = {}
    every: list[str] = []
    for q in state.questions.values():
        judged = q.judged.get(scorer) if scorer else None
        if judged is not None:
            by_kind.setdefault(q.planned.kind, []).append(judged.verdict)
            every.append(judged.verdict)
    answered = [q for q in state.questions.values() if q.answered is not None]
    judged_events = [q.judged[scorer] for q in state.questions.values() if scorer and scorer in q.judged]
    return RunColumn(
        run_id=state.run_id, memory=state.started.config.memory, role=run.role, scorer_id=scorer,
        planned=len(state.questions), by_kind={kind: _rate(v) for kind, v in sorted(by_kind.items())},
        overall=_rate(every), official=run.official.score if run.official else None,
        official_metric=run.official.metric if run.official else "no official scorer",
        official_scorer=run.official.scorer_id if run.official else None, score=report.score,
        answer_tokens_per_question=_mean([q.answered.usage.prompt_tokens + q.answered.usage.completion_tokens
                                          for q in answered if q.answered and not q.answered.usage.impossible]),
        judge_tokens_per_question=_mean([j.usage.prompt_tokens + j.usage.completion_tokens for j in judged_events
                                         if not j.usage.impossible]),
        latency_ms_per_question=_mean([(q.recalled.latency_ms if q.recalled else 0.0) + q.answered.latency_ms
                                       for q in answered if q.answered]),
        **_priced(state, scorer, prices))


def _priced(state: RunState, scorer: str | None, prices: PriceTable | None) -> dict[str, object]:
    if prices is None:
        return {}
    costs = run_costs(state, prices, scorer)
    memory = sum(usd for stage, usd in costs.by_stage().items() if stage.startswith("memory "))
    unpriced = sorted({model for stage, models in costs.not_priced_by_stage().items() if stage.startswith("memory ")
                       for model in models})
    return {"cost_usd": costs.total, "memory_cost_usd": memory, "not_priced": costs.not_priced,
            "memory_not_priced": unpriced}


def _paired(best: CompareInput, other: CompareInput) -> tuple[int, float | None, float | None, float | None,
                                                               float | None, str]:
    """(paired, difference, ci_low, ci_high, McNemar p, what the difference is over): over the questions
    both judged. When both scorers give a number per answer (a graded rule such as LoCoMo's token F1)
    the bootstrap is over those numbers, else over correct verdicts; McNemar is over verdicts."""
    sb, so = best.report.scorer_id, other.report.scorer_id
    pairs = [(qb.judged[sb], qo.judged[so]) for qid, qb in best.state.questions.items()
             if sb and so and sb in qb.judged and (qo := other.state.questions.get(qid)) is not None
             and so in qo.judged]
    if not pairs:
        return 0, None, None, None, None, "verdicts"
    graded = all(jb.score is not None and jo.score is not None for jb, jo in pairs)
    a = [float(jb.score if graded else jb.verdict == "correct") for jb, _ in pairs]  # type: ignore[arg-type]
    b = [float(jo.score if graded else jo.verdict == "correct") for _, jo in pairs]  # type: ignore[arg-type]
    difference, low, high = paired_bootstrap_diff(a, b, resamples=BOOTSTRAP_RESAMPLES, seed=BOOTSTRAP_SEED)
    worse = sum(1 for jb, jo in pairs if jb.verdict == "correct" and jo.verdict != "correct")
    better = sum(1 for jb, jo in pairs if jo.verdict == "correct" and jb.verdict != "correct")
    return len(pairs), difference, low, high, mcnemar_exact(worse, better), "scores" if graded else "verdicts"


def compare_runs(runs: Sequence[CompareInput], *, allow_differences: bool = False,
                 prices: PriceTable | None = None) -> Comparison:
    """The table, or BadInput naming every difference (unless allowed; never across benchmarks); with
    `prices`, each run's dollars."""
    if len(runs) < 2:
        raise BadInput("compare needs at least two runs", field="runs")
    for run in runs:
        run.state.require_answers("compare")
        if run.state.started is None:
            raise BadInput(f"run {run.state.run_id} has no recorded start", field="runs")
    facts = {run.state.run_id: _facts(run) for run in runs}
    if len(facts) != len(runs):
        raise BadInput("a run is named twice", field="runs")
    differences = unlike(runs)
    named = named_differences(differences)
    if any(d.fact == "benchmark" for d in differences):
        raise BadInput(f"runs of different benchmarks are never compared ({named})", field="runs")
    if differences and not allow_differences:
        raise BadInput(f"the runs are not like for like: {named}; pass --allow-differences to compare them "
                       "anyway (the table is then labelled)", field="runs")
    columns = [_column(run, prices) for run in runs]
    systems = [c for c in columns if c.role == "system"] or columns
    kind = runs[0].report.kind
    headline = {run.state.run_id: -1.0 if run.report.score is None else run.report.score for run in runs}
    ranked_by = runs[0].report.metric if kind == "action" else "accuracy"
    if ranked_by != "accuracy":
        best = max(systems, key=lambda c: headline[c.run_id])
    else:
        best = max(systems, key=lambda c: (c.overall.accuracy if c.overall.accuracy is not None else -1.0))
    best_run = next(run for run in runs if run.state.run_id == best.run_id)
    raw = [(run.state.run_id, _paired(best_run, run)) for run in runs if run.state.run_id != best.run_id]
    adjusted = holm([t[4] if t[4] is not None else 1.0 for _, t in raw])
    tests = [PairedTest(run_id=rid, against=best.run_id, paired=n, difference=d, ci_low=lo, ci_high=hi,
                        paired_on=on, mcnemar_p=p, holm_p=h if p is not None else None,
                        significant=p is not None and h < 0.05)
             for (rid, (n, d, lo, hi, p, on)), h in zip(raw, adjusted)]
    label = "like for like" if not differences else \
        "NOT LIKE FOR LIKE: differs in " + ", ".join(d.fact for d in differences)
    return Comparison(
        benchmark=facts[runs[0].state.run_id]["benchmark"], like_for_like=not differences, label=label,
        differences=differences, kinds=sorted({k for c in columns for k in c.by_kind}), runs=columns,
        best=best.run_id, tests=tests, bootstrap_seed=BOOTSTRAP_SEED, bootstrap_resamples=BOOTSTRAP_RESAMPLES,
        compare_version=COMPARE_VERSION, kind=kind, ranked_by=ranked_by, price_table=prices.source() if prices is not None else None)
