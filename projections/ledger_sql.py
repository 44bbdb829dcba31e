"""The ledger in SQL: views that unpack event payloads into columns, documentation for every table
and column, and canned analysis queries, for people who read the ledger with SQL or Datasette.

Each payload view is declared once, from the event model it unpacks: its columns are JSON paths
into the payload, and each column's description is the docstring of the model field it reads
(the same text `docs/events.md` is generated from), so the browser's documentation cannot drift
from the events. The views are plain SQL over `events`, `blobs` and `views`; `view_statements`
gives them as `CREATE TEMP VIEW` statements, which a read-only connection can run without
writing a byte to the ledger file. `zlib_text(body)` is the one SQL function they need (blob
bodies are zlib-compressed); the caller registers it (`ZLIB_TEXT`). It inflates at most
`ZLIB_TEXT_MAX_BYTES` of a body, so a compressed bomb a writer stored cannot fill the reader's memory.

`STORE_TABLES` documents the store's own tables; a ledger table missing from it is a
documentation gap `tests/projections/test_view_datasette.py` reports by name.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from benchledger.ledger.events import EVENT_TYPES, Provenance, RecalledItem, RunConfig
from benchledger.ledger.events.base import fields_of
from benchledger.settings import RunSettings
from benchledger.values import Question, Usage

__all__ = ["PayloadColumn", "PayloadView", "PAYLOAD_VIEWS", "DERIVED_VIEWS", "STORE_TABLES", "CANNED_QUERIES",
           "view_statements", "zlib_text", "ZLIB_TEXT", "ZLIB_TEXT_MAX_BYTES", "documentation", "accuracy_pivot", "KINDS_SQL"]

ZLIB_TEXT = "zlib_text"
"""Name of the SQL function the views use to read a blob body as text."""

ZLIB_TEXT_MAX_BYTES = 2 * 1024 * 1024
"""The most of one body `zlib_text` inflates; past it the text ends with a line saying so."""


def zlib_text(body: bytes | None) -> str | None:
    """A blob body as UTF-8 text (None when it is absent or not zlib), cut at ZLIB_TEXT_MAX_BYTES."""
    if body is None:
        return None
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(body, ZLIB_TEXT_MAX_BYTES)
    except (zlib.error, TypeError):
        return None
    cut = False
    if not inflater.eof:
        if len(data) < ZLIB_TEXT_MAX_BYTES:
            return None  # a cut-off stream, not a long one
        try:  # a body of exactly the limit has only its end marker left
            cut = bool(inflater.decompress(inflater.unconsumed_tail, 1))
        except zlib.error:
            return None
        if not cut and not inflater.eof:
            return None
    text = data.decode("utf-8", "replace")
    if cut:
        text += (f"\n[cut at {ZLIB_TEXT_MAX_BYTES // (1024 * 1024)} MiB: `benchledger blob DIGEST` "
                 "reads the whole body]")
    return text


_ROW_COLUMNS = {
    "seq": "Global order of the event in the ledger (events.seq).",
    "run_id": "The run the event belongs to.",
    "position": "Order of the event within its run.",
    "recorded_at": "When the event was appended (UTC).",
}


@dataclass(frozen=True)
class PayloadColumn:
    name: str
    path: str
    """JSON path into the payload, or an SQL expression over `e.payload` when `sql` is set."""
    model: type
    """The model (or validated dataclass) that declares the field."""
    field: str
    sql: bool = False

    @property
    def description(self) -> str:
        info = fields_of(self.model)[self.field]
        return " ".join((info.description or "").split())

    def expression(self) -> str:
        return self.path if self.sql else f"json_extract(e.payload, '{self.path}')"


@dataclass(frozen=True)
class PayloadView:
    name: str
    title: str
    description: str
    event_type: str
    columns: tuple[PayloadColumn, ...]

    def sql(self) -> str:
        selected = ", ".join(["e.seq", "e.run_id", "e.position", "e.recorded_at",
                              *(f"{c.expression()} AS {c.name}" for c in self.columns)])
        return f"SELECT {selected} FROM events e WHERE e.type = '{self.event_type}'"

    def column_docs(self) -> dict[str, str]:
        return {**_ROW_COLUMNS, **{c.name: c.description for c in self.columns}}


def _cols(event_type: str, *names: str | tuple[str, str, type, str] | tuple[str, str, type, str, bool]) -> tuple[PayloadColumn, ...]:
    model = EVENT_TYPES[event_type]
    columns = []
    for spec in names:
        if isinstance(spec, str):
            columns.append(PayloadColumn(spec, f"$.{spec}", model, spec))
        else:
            columns.append(PayloadColumn(*spec))
    return tuple(columns)


_DOC_IDS = "(SELECT group_concat(json_extract(i.value, '$.doc_id'), ' ') FROM json_each(e.payload, '$.items') i)"
_CONTEXT = "(SELECT zlib_text(b.body) FROM blobs b WHERE b.digest = json_extract(e.payload, '$.context_hash'))"
_RAW = "(SELECT zlib_text(b.body) FROM blobs b WHERE b.digest = json_extract(e.payload, '$.raw_hash'))"

PAYLOAD_VIEWS: tuple[PayloadView, ...] = (
    PayloadView("run_starts", "Runs: configuration", "One row per run: what ran and how (RunStarted).", "RunStarted",
                _cols("RunStarted",
                      ("benchmark", "$.config.benchmark", RunConfig, "benchmark"),
                      ("subset", "$.config.subset", RunConfig, "subset"),
                      ("mode", "$.config.settings.mode", RunSettings, "mode"),
                      ("memory", "$.config.memory", RunConfig, "memory"),
                      ("memory_version", "$.config.memory_version", RunConfig, "memory_version"),
                      ("k", "$.config.settings.k", RunSettings, "k"),
                      ("token_budget", "$.config.settings.token_budget", RunSettings, "token_budget"),
                      ("protocol", "$.config.settings.protocol", RunSettings, "protocol"),
                      ("agent_model", "$.config.agent_model", RunConfig, "agent_model"),
                      ("judge_model", "$.config.judge_model", RunConfig, "judge_model"),
                      ("offline_models", "$.config.offline_models", RunConfig, "offline_models"),
                      ("base_url", "$.config.settings.base_url", RunSettings, "base_url"),
                      ("corpus_path", "$.config.corpus_path", RunConfig, "corpus_path"),
                      ("selection", "json_extract(e.payload, '$.config.selection')", RunConfig, "selection", True),
                      ("package_version", "$.provenance.package_version", Provenance, "package_version"),
                      ("git_commit", "$.provenance.git_commit", Provenance, "git_commit"))),
    PayloadView("run_finishes", "Runs: how they ended", "Every RunFinished (a resumed run finishes again, under a "
                "higher attempt).", "RunFinished", _cols("RunFinished", "status", "reason", "attempt")),
    PayloadView("recalls", "Recalls", "What the memory system recalled for each question (ContextRecalled), with "
                "the packed context as the answer model saw it.", "ContextRecalled",
                _cols("ContextRecalled", "question_id", "query", "asking_user", "k",
                      ("doc_ids", _DOC_IDS, RecalledItem, "doc_id", True), "context_tokens", "latency_ms",
                      "context_hash", ("context", _CONTEXT, EVENT_TYPES["ContextRecalled"], "context_hash", True))),
    PayloadView("answers", "Answers", "The answer model's answer to each question (QuestionAnswered).",
                "QuestionAnswered",
                _cols("QuestionAnswered", "question_id", "answer", "abstained", "model",
                      ("prompt_tokens", "$.usage.prompt_tokens", Usage, "prompt_tokens"),
                      ("completion_tokens", "$.usage.completion_tokens", Usage, "completion_tokens"),
                      "cache_hit", "latency_ms", "raw_hash",
                      ("raw_output", _RAW, EVENT_TYPES["QuestionAnswered"], "raw_hash", True))),
    PayloadView("verdicts", "Verdicts", "Every scorer's verdict on every answer (Judged).", "Judged",
                _cols("Judged", "question_id", "scorer_id", "verdict", "reason", "model",
                      ("prompt_tokens", "$.usage.prompt_tokens", Usage, "prompt_tokens"),
                      ("completion_tokens", "$.usage.completion_tokens", Usage, "completion_tokens"),
                      "cache_hit", "latency_ms")),
    PayloadView("scorers", "Scorers", "The scorers of each run: s1 is the run's own, rejudges add s2, ... "
                "(ScorerStarted).", "ScorerStarted",
                _cols("ScorerStarted", "scorer_id", "judge_model", "protocol", "method", "official", "offline")),
    PayloadView("failures", "Failures", "Operational failures (Failed): never counted as wrong answers; a later "
                "retry or resume may have resolved them.", "Failed",
                _cols("Failed", "stage", "question_id", "scorer_id", "error_class", "message", "attempt")),
)

# Views built on the payload views: the planned questions, each run's default scorer, one row per run.
DERIVED_VIEWS: dict[str, tuple[str, str, str, dict[str, str]]] = {
    "planned_questions": (
        "Planned questions",
        "Every question each run planned to ask, with its gold answer (unpacked from QuestionsPlanned).",
        """SELECT e.run_id, CAST(q.key AS INTEGER) + 1 AS plan_order,
    json_extract(q.value, '$.question_id') AS question_id, json_extract(q.value, '$.kind') AS kind,
    json_extract(q.value, '$.text') AS question, json_extract(q.value, '$.gold') AS gold,
    json_extract(q.value, '$.asking_user') AS asking_user, json_extract(q.value, '$.abstention') AS abstention,
    json_extract(q.value, '$.evidence') AS evidence
  FROM events e, json_each(e.payload, '$.questions') q WHERE e.type = 'QuestionsPlanned'""",
        {"run_id": _ROW_COLUMNS["run_id"], "plan_order": "Position of the question in the run's plan, from 1.",
         **{name: " ".join((Question.model_fields[source].description or "").split())
            for name, source in (("question_id", "question_id"), ("kind", "kind"), ("question", "text"),
                                 ("gold", "gold"), ("asking_user", "asking_user"), ("abstention", "abstention"),
                                 ("evidence", "evidence"))}}),
    "default_scorers": (
        "Default scorer of each run",
        "The scorer reports lead with unless asked (as `benchledger show` picks it): the one the run's current "
        "saved scorecard names (saved when the run finished, and again when a rejudge finished, so it is the "
        "run's first scorer that meets its benchmark's protocol), else the first complete scorer (one that "
        "judged every recorded answer) of the benchmark's official method, else the run's first scorer.",
        """SELECT run_id, scorer_id, complete FROM (
  SELECT c.run_id, c.scorer_id, c.complete,
    row_number() OVER (PARTITION BY c.run_id ORDER BY c.saved DESC, (c.complete AND c.official) DESC,
                       c.position ASC) AS pick
  FROM (SELECT s.run_id, s.scorer_id, s.position, COALESCE(s.official, 0) AS official,
    ((SELECT count(*) FROM answers a WHERE a.run_id = s.run_id AND NOT EXISTS (
        SELECT 1 FROM verdicts v WHERE v.run_id = a.run_id AND v.question_id = a.question_id
          AND v.scorer_id = s.scorer_id)) = 0) AS complete,
    (s.scorer_id = (SELECT json_extract(w.value, '$.scorer_id') FROM views w
       WHERE w.run_id = s.run_id AND w.name = 'scorecard'
         AND w.position = (SELECT max(x.position) FROM events x WHERE x.run_id = s.run_id)
       ORDER BY w.version DESC LIMIT 1)) AS saved
    FROM scorers s) c) WHERE pick = 1""",
        {"run_id": _ROW_COLUMNS["run_id"], "scorer_id": "The scorer reports use by default.",
         "complete": "1 when that scorer judged every recorded answer; 0 when it left some unjudged or failed."}),
    "run_overview": (
        "Runs with score and status",
        "One row per run: configuration, how it ended, and its headline metric as saved when it finished "
        "(accuracy over judged questions under the run's own scorer, the benchmark's own overall number "
        "where its adapter declares one, such as LoCoMo's token F1 or Memora's FAMA, or recall@k of a "
        "retrieval run).",
        """SELECT s.run_id, s.recorded_at AS started_at, s.benchmark, s.subset, s.mode, s.memory, s.k,
    s.agent_model, s.judge_model, s.protocol,
    COALESCE((SELECT f.status FROM run_finishes f WHERE f.run_id = s.run_id ORDER BY f.position DESC LIMIT 1),
             'unfinished') AS status,
    CASE s.mode WHEN 'retrieval' THEN 'recall@' || s.k
         ELSE COALESCE((SELECT json_extract(v.value, '$.metric') FROM views v WHERE v.run_id = s.run_id
                        ORDER BY v.position DESC LIMIT 1), 'accuracy') END AS metric,
    (SELECT round(CASE s.mode WHEN 'retrieval' THEN json_extract(v.value, '$.recall')
            ELSE COALESCE(json_extract(v.value, '$.score'), json_extract(v.value, '$.accuracy')) END, 4)
       FROM views v WHERE v.run_id = s.run_id ORDER BY v.position DESC LIMIT 1) AS score,
    (SELECT count(DISTINCT x.question_id) FROM failures x WHERE x.run_id = s.run_id) AS questions_with_failures,
    (SELECT count(*) FROM events c WHERE c.run_id = s.run_id) AS events
  FROM run_starts s""",
        {"run_id": _ROW_COLUMNS["run_id"], "started_at": "When the run started (UTC).",
         "benchmark": "Benchmark name.", "subset": "GroupMemBench domain, LoCoMo or LongMemEval file, Memora split.",
         "mode": "qa (recall, answer, judge) or retrieval (recall only).", "memory": "The memory system.",
         "k": "Candidates recalled per question.", "agent_model": "The answer model.",
         "judge_model": "The judge model of the run's own scorer.", "protocol": "reference, typed or official.",
         "status": "completed, aborted or unfinished (the last RunFinished).",
         "metric": "What score measures.",
         "score": "accuracy (0-1, over judged questions, the run's own scorer at finish), the benchmark's "
                  "own overall number (0-1; metric says which), or recall@k; "
                  "`benchledger runs` shows the current default scorer's.",
         "questions_with_failures": "Questions with any operational failure, resolved or not.",
         "events": "Events the run holds."}),
}

STORE_TABLES: dict[str, tuple[str, str, dict[str, str]]] = {
    "events": ("Events", "The append-only, hash-chained record of every run: one row per event (see docs/events.md "
               "for each payload's fields). UPDATE and DELETE are refused by triggers.", {
        "seq": "Global order of the event in the ledger.",
        "run_id": "The run the event belongs to.",
        "position": "Order of the event within its run (1, 2, ...; unique per run).",
        "type": "The event type (RunStarted, ContextRecalled, Judged, Failed, ...).",
        "schema_version": "Version of the event's schema it was written under (older ones are upcast on read).",
        "recorded_at": "When the event was appended (UTC, ISO 8601).",
        "idempotency_key": "One key per stage and item (e.g. judge:scorer:s1:question:temporal_3): a stage is recorded once.",
        "payload": "The event as JSON; the views unpack it into columns.",
        "prev_hash": "Hash of the previous event: of the same run (chain 2), or in seq order (chain 1).",
        "hash": "SHA-256 of prev_hash and this row's exact stored bytes; `benchledger verify` recomputes it.",
        "chain": "Chain version: 2 chains each run on its own (a run keeps its hashes when pushed to another "
                 "ledger), 1 chains every row in seq order (rows written before migration m003).",
        "link": "Chain 2 only: SHA-256 of the previous row's ledger value and this hash, over seq order, so "
                "removing, inserting or reordering rows (or a whole run) breaks the ledger's chain; the "
                "last row's value is the ledger head."}),
    "blobs": ("Blobs", "Content-addressed large bodies: packed contexts, raw model outputs, released prompts. "
              "Read one as text with `benchledger blob DIGEST` or the zlib_text(body) SQL function.", {
        "digest": "SHA-256 of the raw body; events name blobs by it.",
        "size": "Size of the raw body in bytes.",
        "encoding": "How body is stored (zlib).",
        "body": "The compressed body."}),
    "cache": ("Response cache (retired)", "The unguarded cache of ledgers made before m002: kept as written, "
              "never served.", {
        "key": "SHA-256 of what shapes a model call's output (endpoint, model, parameters, messages).",
        "response": "The full response as JSON.",
        "model": "The model asked.",
        "created_at": "When it was cached (UTC)."}),
    "responses": ("Response cache", "Model responses by request digest, reused by resume and repeated runs; "
                  "append-only, each tied to the event that first recorded it, and checked by verify.", {
        "request_digest": "SHA-256 of what shapes a model call's output (endpoint, model, parameters, messages).",
        "response": "The full response as JSON.",
        "response_digest": "SHA-256 of the response; the recording event's raw_hash pins its text.",
        "model": "The model asked.",
        "run_id": "The run whose event first recorded the response.",
        "idempotency_key": "That event's idempotency key (e.g. answer:temporal_3).",
        "recorded_at": "When it was recorded (UTC)."}),
    "views": ("Saved views", "Projections saved with the position they were folded to (the scorecard of a run, "
              "or a retrieval run's metrics); `benchledger verify` re-folds each one.", {
        "run_id": "The run the view is of.",
        "name": "scorecard or retrieval.",
        "version": "The projection's version.",
        "position": "The run position the view was folded to.",
        "value": "The view as JSON."}),
    "meta": ("File identity", "Marks the file as a benchledger ledger.", {
        "key": "format or created_at.", "value": "Its value."}),
    "schema_migrations": ("Schema migrations", "The numbered schema migrations applied to this file.", {
        "number": "Migration number.", "name": "Migration name.", "applied_at": "When it was applied (UTC)."}),
    "sqlite_sequence": ("SQLite sequence", "SQLite's record of the highest seq issued (verify uses it to notice "
                        "deleted newest rows).", {"name": "The table (events).", "seq": "Highest seq issued."}),
}


@dataclass(frozen=True)
class CannedQuery:
    title: str
    description: str
    sql: str
    params: tuple[str, ...] = field(default=())


_RUN = "(SELECT r.run_id FROM run_starts r WHERE r.run_id LIKE {param} || '%' ORDER BY r.seq DESC LIMIT 1)"
_SCORER = ("COALESCE(NULLIF({scorer}, ''), (SELECT d.scorer_id FROM default_scorers d WHERE d.run_id = {run}))")

CANNED_QUERIES: dict[str, CannedQuery] = {
    "runs": CannedQuery(
        "Runs with score and status",
        "Every run, newest first: what ran, how it ended, its headline score (a percentage; recall@k for a "
        "retrieval run) and its questions with open failures. Every column: the run_overview view.",
        """SELECT run_id, replace(substr(started_at, 1, 16), 'T', ' ') AS started, benchmark, subset, memory, k,
  CASE mode WHEN 'retrieval' THEN 'none (retrieval)'
       WHEN agent_model = judge_model THEN agent_model ELSE agent_model || ', ' || judge_model END AS models,
  status,
  CASE WHEN score IS NULL THEN NULL WHEN metric LIKE 'recall@%' THEN metric || ' ' || printf('%.3f', score)
       WHEN metric = 'accuracy' THEN printf('%.1f%%', 100.0 * score)
       ELSE metric || ' ' || printf('%.1f%%', 100.0 * score) END AS score,
  questions_with_failures AS failed
FROM run_overview ORDER BY started_at DESC"""),
    "failures_by_error": CannedQuery(
        "Failures grouped by error",
        "Operational failures by error class and stage (all runs, or the run whose id starts with run_id, any "
        "case). Failures are never counted as wrong answers.",
        """SELECT error_class, stage, count(*) AS failures, count(DISTINCT run_id) AS runs,
  group_concat(DISTINCT question_id) AS questions, max(message) AS example_message
FROM failures WHERE run_id LIKE :run_id || '%'
GROUP BY error_class, stage ORDER BY failures DESC""", ("run_id",)),
    "question_trail": CannedQuery(
        "One question's whole trail",
        "Everything recorded about one question of one run, in order: the plan and gold, the recalled documents "
        "and packed context, the answer, every scorer's verdict, every failure. run_id may be a prefix in any case.",
        f"""WITH run AS (SELECT {_RUN.format(param=':run_id')} AS run_id)
SELECT 0 AS position, 'planned' AS stage, kind AS detail, question || char(10) || 'gold: ' || gold AS text
  FROM planned_questions WHERE run_id = (SELECT run_id FROM run) AND question_id = :question_id
UNION ALL SELECT position, 'recalled', 'k=' || k || ': ' || doc_ids, context
  FROM recalls WHERE run_id = (SELECT run_id FROM run) AND question_id = :question_id
UNION ALL SELECT position, 'answered', model || CASE WHEN abstained THEN ' (abstained)' ELSE '' END, answer
  FROM answers WHERE run_id = (SELECT run_id FROM run) AND question_id = :question_id
UNION ALL SELECT position, 'judged ' || scorer_id, verdict || ' (' || model || ')', reason
  FROM verdicts WHERE run_id = (SELECT run_id FROM run) AND question_id = :question_id
UNION ALL SELECT position, 'failed at ' || stage, error_class || ' (attempt ' || attempt || ')', message
  FROM failures WHERE run_id = (SELECT run_id FROM run) AND question_id = :question_id
ORDER BY position""", ("run_id", "question_id")),
    "accuracy_by_kind": CannedQuery(
        "Accuracy per kind across runs",
        "Each question-answering run's accuracy per question kind under its default scorer (the headline `show` "
        "leads with); unclear verdicts count as not correct, failed questions are left out, as the scorecard counts.",
        """SELECT p.run_id, s.started_at, s.benchmark, s.subset, s.memory, d.scorer_id, p.kind,
  count(p.question_id) AS planned, count(v.verdict) AS judged,
  sum(v.verdict = 'correct') AS correct,
  round(100.0 * sum(v.verdict = 'correct') / nullif(count(v.verdict), 0), 1) AS accuracy_pct
FROM planned_questions p
JOIN run_overview s ON s.run_id = p.run_id AND s.mode = 'qa'
JOIN default_scorers d ON d.run_id = p.run_id
LEFT JOIN verdicts v ON v.run_id = p.run_id AND v.question_id = p.question_id AND v.scorer_id = d.scorer_id
GROUP BY p.run_id, p.kind ORDER BY s.started_at DESC, p.kind"""),
    "flipped_questions": CannedQuery(
        "Questions that flipped between two runs",
        "Questions judged in both runs whose verdict differs (run ids may be prefixes in any case; scorers default "
        "to each run's headline scorer).",
        f"""WITH a AS (SELECT {_RUN.format(param=':run_a')} AS run_id),
b AS (SELECT {_RUN.format(param=':run_b')} AS run_id),
va AS (SELECT * FROM verdicts WHERE run_id = (SELECT run_id FROM a)
       AND scorer_id = {_SCORER.format(scorer=':scorer_a', run='(SELECT run_id FROM a)')}),
vb AS (SELECT * FROM verdicts WHERE run_id = (SELECT run_id FROM b)
       AND scorer_id = {_SCORER.format(scorer=':scorer_b', run='(SELECT run_id FROM b)')})
SELECT va.question_id, p.kind,
  CASE WHEN va.verdict = 'correct' THEN 'correct -> wrong' ELSE 'wrong -> correct' END AS flip,
  va.verdict AS verdict_a, vb.verdict AS verdict_b, aa.answer AS answer_a, ab.answer AS answer_b, p.gold
FROM va JOIN vb ON vb.question_id = va.question_id
JOIN planned_questions p ON p.run_id = va.run_id AND p.question_id = va.question_id
LEFT JOIN answers aa ON aa.run_id = va.run_id AND aa.question_id = va.question_id
LEFT JOIN answers ab ON ab.run_id = vb.run_id AND ab.question_id = vb.question_id
WHERE (va.verdict = 'correct') != (vb.verdict = 'correct')
ORDER BY flip, p.kind, va.question_id""", ("run_a", "run_b", "scorer_a", "scorer_b")),
}


KINDS_SQL = "SELECT DISTINCT p.kind FROM planned_questions p JOIN run_overview s ON s.run_id = p.run_id " \
    "AND s.mode = 'qa' ORDER BY p.kind"
"""The question kinds of the ledger's question-answering runs: the columns of `accuracy_pivot`."""


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def accuracy_pivot(kinds: Sequence[str]) -> CannedQuery:
    """Accuracy per kind with a row per run and a column per kind (`kinds`, as `KINDS_SQL` lists
    them), under each run's default scorer, counted as `accuracy_by_kind` counts."""
    columns = "".join(
        f",\n  max(CASE WHEN kind = '{kind.replace(chr(39), chr(39) * 2)}' THEN printf('%.1f%%', accuracy_pct) END)"
        f" AS {_quoted(kind)}" for kind in kinds)
    return CannedQuery(
        "Accuracy per kind, a row per run",
        "Each question-answering run's accuracy (%) per question kind under its default scorer, one column per "
        "kind; a blank cell is a kind the run did not ask. The counts behind each cell: Accuracy per kind "
        "across runs.",
        f"""WITH cell AS ({CANNED_QUERIES["accuracy_by_kind"].sql})
SELECT run_id, replace(substr(started_at, 1, 16), 'T', ' ') AS started, benchmark, subset, memory,
  scorer_id{columns}
FROM cell GROUP BY run_id ORDER BY started_at DESC""")


def view_statements() -> list[str]:
    """`CREATE TEMP VIEW` statements for every view, in dependency order."""
    statements = [f"CREATE TEMP VIEW {view.name} AS {view.sql()}" for view in PAYLOAD_VIEWS]
    statements += [f"CREATE TEMP VIEW {name} AS {sql}" for name, (_, _, sql, _) in DERIVED_VIEWS.items()]
    return statements


def documentation() -> dict[str, tuple[str, str, dict[str, str]]]:
    """name -> (title, description, column -> description) for every store table and every view."""
    docs = dict(STORE_TABLES)
    docs.update({view.name: (view.title, view.description, view.column_docs()) for view in PAYLOAD_VIEWS})
    docs.update({name: (title, description, columns) for name, (title, description, _, columns)
                 in DERIVED_VIEWS.items()})
    return docs
