"""`benchledger export`: CSV and JSON that parse back, and an HTML page that escapes everything."""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

from benchledger.ledger.store import Ledger
from benchledger.projections.export import CSV_FIELDS
from benchledger.orchestration.reports import report_of
from test_diff import append_run, fold, invoke, real_run

NASTY = "<script>alert(1)</script>\"&'"
NASTY_ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;&#x27;"


class PageParser(HTMLParser):
    """Collects tag names, attributes and text of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += attrs

    def handle_data(self, data):
        self.text.append(data)


def parse(page: str) -> PageParser:
    parser = PageParser()
    parser.feed(page)
    parser.close()
    return parser


def test_csv_has_one_row_per_planned_question_and_parses_back(tmp_path):
    assert invoke("synth", "groupmem", "rel", "--messages", "400", "--seed", "1").exit_code == 0
    run_id = real_run("rel", "bm25-reference")
    result = invoke("export", run_id, "--format", "csv", "--out", "out/q.csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(Path("out/q.csv").read_text(encoding="utf-8"))))
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        state = fold(ledger, run_id)
        recalled = {e.event.question_id: e.event for e in ledger.reader.events(run_id, types=["ContextRecalled"])}
    assert [r["question_id"] for r in rows] == list(state.questions)
    assert tuple(rows[0]) == CSV_FIELDS
    for row in rows:
        question = state.questions[row["question_id"]]
        assert row["verdict"] == question.judged["s1"].verdict and row["status"] == "judged"
        assert row["gold"] == question.planned.gold and row["answer"] == question.answered.answer
        assert row["recalled_doc_ids"].split() == [i.doc_id for i in recalled[row["question_id"]].items]
        assert int(row["context_tokens"]) == recalled[row["question_id"]].context_tokens
    assert sorted(Path("out").iterdir()) == [Path("out/q.csv")], "no temporary file may be left behind"


def test_csv_keeps_failed_and_pending_questions_as_rows(tmp_path):
    outcomes = {"q1": ("temporal", "correct"), "q2": ("temporal", "failed:answer"), "q3": ("abstention", "pending")}
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        append_run(ledger, "R", outcomes)
    assert invoke("export", "R", "--out", "q.csv").exit_code == 0
    rows = list(csv.DictReader(open("q.csv", encoding="utf-8", newline="")))
    assert [(r["question_id"], r["status"], r["verdict"]) for r in rows] == [
        ("q1", "judged", "correct"), ("q2", "failed", ""), ("q3", "pending", "")]
    assert (rows[1]["failure_stage"], rows[1]["failure_class"]) == ("answer", "APITimeoutError")
    assert rows[1]["failure_message"] == "timed out on q2"


def _read_events(ledger: Ledger, run_id: str) -> dict[str, dict]:
    """What each planned question's events say, read straight from the stored events (no fold, no export
    code): the plan, its recall and context, answer, verdict, and a failure nothing later overcame."""
    events = [stored.event for stored in ledger.reader.events(run_id)]
    plan = next(e for e in events if e.type == "QuestionsPlanned")
    seen: dict[str, dict] = {q.question_id: {"question_id": q.question_id, "kind": q.kind, "question": q.text,
                                             "gold": q.gold, "asking_user": q.asking_user, "status": "pending",
                                             "answer": None, "verdict": None, "reason": None, "judge_model": None,
                                             "recalled_doc_ids": [], "context_tokens": None, "context": None,
                                             "failure_stage": None, "failure_class": None, "failure_message": None}
                             for q in plan.questions}
    for event in events:
        row = seen.get(getattr(event, "question_id", None) or "")
        if row is None:
            continue
        if event.type == "ContextRecalled":
            row.update(recalled_doc_ids=[i.doc_id for i in event.items], context_tokens=event.context_tokens,
                       context=ledger.reader.get_blob(event.context_hash).decode())
        elif event.type == "QuestionAnswered":
            row.update(answer=event.answer)
        elif event.type == "Judged":
            row.update(verdict=event.verdict, reason=event.reason, judge_model=event.model, status="judged")
        elif event.type == "Failed":
            row.update(failure_stage=event.stage, failure_class=event.error_class, failure_message=event.message,
                       status="failed")
    return seen


def test_json_export_says_what_the_events_say(tmp_path):
    outcomes = {"q1": ("temporal", "correct"), "q2": ("multi_hop", "incorrect"), "q3": ("multi_hop", "failed:judge"),
                "q4": ("temporal", "unclear"), "q5": ("abstention", "pending")}
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        append_run(ledger, "R", outcomes, context="[Msg_1] User_1: the plan is on\nline two")
        expected = _read_events(ledger, "R")
    assert invoke("export", "R", "--format", "json", "--out", "r.json").exit_code == 0
    document = json.loads(Path("r.json").read_text(encoding="utf-8"))
    assert [row["question_id"] for row in document["questions"]] == list(expected)
    for row in document["questions"]:
        assert {name: row[name] for name in expected[row["question_id"]]} == expected[row["question_id"]]
    assert document["questions"][0]["context"] == "[Msg_1] User_1: the plan is on\nline two"
    report = document["report"]
    statuses = [row["status"] for row in expected.values()]
    verdicts = [row["verdict"] for row in expected.values() if row["verdict"]]
    assert (report["total"], report["judged"], report["failed"], report["pending"]) == (
        len(expected), statuses.count("judged"), statuses.count("failed"), statuses.count("pending"))
    assert (report["correct"], report["incorrect"], report["unclear"]) == (
        verdicts.count("correct"), verdicts.count("incorrect"), verdicts.count("unclear"))
    assert report["accuracy"] == verdicts.count("correct") / len(verdicts)
    assert report["strict_accuracy"] == verdicts.count("correct") / len(expected)
    assert report["failures_by_error"] == {"APITimeoutError": 1} and report["status"] == "diagnostic"


def test_html_escapes_corpus_and_model_text_and_loads_nothing(tmp_path):
    outcomes = {f"q{NASTY}": ("temporal", "failed:judge"), "q2": ("temporal", "correct"), "q3": ("multi_hop", "incorrect")}
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        append_run(ledger, "R", outcomes, text=NASTY, gold=NASTY, answer=NASTY, context=f"[Msg_1] {NASTY}")
    result = invoke("export", "R", "--format", "html", "--out", "r.html")
    assert result.exit_code == 0, result.output
    page = Path("r.html").read_text(encoding="utf-8")
    assert "<script" not in page.lower()
    assert page.count(NASTY_ESCAPED) >= 10  # question, gold, answer, context, ids, failure message
    parsed = parse(page)
    assert not {"script", "link", "img", "iframe", "object", "embed", "base"} & set(parsed.tags)
    assert any(NASTY in text for text in parsed.text), "the text must read back exactly once unescaped"
    assert not [name for name, _ in parsed.attributes if name.startswith("on")]
    assert set(re.findall(r"https?://[^\s\"'<>)]+", page)) <= {"http://www.w3.org/2000/svg"}
    assert "@import" not in page and "url(" not in page
    assert "default-src 'none'" in page


def test_html_shows_scorecard_conditions_chart_failures_and_every_question(tmp_path):
    outcomes = {"t1": ("temporal", "correct"), "t2": ("temporal", "incorrect"), "m1": ("multi_hop", "failed:answer"),
                "m2": ("multi_hop", "unclear"), "a1": ("abstention", "pending")}
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        append_run(ledger, "R", outcomes)
        report = report_of(fold(ledger, "R"))
    assert invoke("export", "R", "--out", "r.html").exit_code == 0
    page = Path("r.html").read_text(encoding="utf-8")
    text = " ".join(parse(page).text)
    for condition in report.conditions:
        assert condition.name in text and condition.reason in text
    assert report.status.upper() in text and report.ledger_head in text and report.fingerprint in text
    # one bar per kind with something judged (abstention has nothing judged: no bar, "n/a")
    assert re.findall(r'<rect class="bar" data-kind="([^"]+)"', page) == ["multi_hop", "temporal"]
    assert "APITimeoutError · 1" in text and "timed out on m1" in text
    for qid in outcomes:
        assert f'id="q-{qid}"' in page
    assert page.count('class="q v-correct"') == 1 and page.count('class="q v-failed"') == 1
    assert page.count('class="q v-unclear"') == 1 and page.count('class="q v-pending"') == 1
    assert page.count("<details>") == 4  # every recalled question folds its context away


def test_export_errors_exit_2_and_write_nothing(tmp_path):
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        append_run(ledger, "R", {"q1": ("temporal", "correct")})
    unknown = invoke("export", "R", "--format", "json", "--out", "a.json", "--scorer", "nope")
    assert unknown.exit_code == 2 and "no scorer 'nope'" in unknown.output
    guess = invoke("export", "R", "--out", "a.txt")
    assert guess.exit_code == 2 and "--format" in guess.output
    assert not Path("a.json").exists() and not Path("a.txt").exists()
    assert invoke("export", "NOPE", "--out", "a.csv").exit_code == 2


HOSTILE = ("=HYPERLINK(\"http://evil.example\",\"click\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)",
           "\tTAB=1", "\rCR=1", "clear \x1b[2J title \x1b]0;owned\x07 csi \u009b31m bidi \u202e end")
"""Texts a corpus may carry: four formula starts, a tab and a CR before one, and terminal controls."""
FORMULA_CHARACTERS = ("=", "+", "-", "@", "\t", "\r")


def _hostile_release(root: Path) -> None:
    """Rewrite a synthesised release so every question, gold answer and message text is hostile."""
    assert invoke("synth", "groupmem", str(root), "--messages", "60", "--seed", "1").exit_code == 0
    for number, path in enumerate(sorted((root / "questions" / "Synth").glob("*.jsonl"))):
        lines = []
        for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            item = json.loads(line)
            item["question"] = f"{HOSTILE[(number + index) % len(HOSTILE)]} {item['question']} {HOSTILE[-1]}"
            item["answer"] = HOSTILE[(number + index + 1) % len(HOSTILE)] + " " + item["answer"]
            lines.append(json.dumps(item, ensure_ascii=False))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    corpus = next((root / "data" / "final" / "Synth").glob("*.json"))
    channels = json.loads(corpus.read_text(encoding="utf-8"))
    for channel in channels.values():
        for index, message in enumerate(channel):
            message["content"] = HOSTILE[index % len(HOSTILE)] + " " + message["content"]
    corpus.write_text(json.dumps(channels, ensure_ascii=False), encoding="utf-8")


def test_a_hostile_corpus_exported_as_csv_has_no_control_byte_and_no_cell_a_spreadsheet_runs(tmp_path):
    _hostile_release(tmp_path / "rel")
    run_id = real_run(str(tmp_path / "rel"), "bm25-reference")
    assert invoke("export", run_id, "--format", "csv", "--out", "q.csv").exit_code == 0
    raw = Path("q.csv").read_bytes()
    assert not re.search(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]", raw)
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
    cells = [cell for row in rows[1:] for cell in row]
    assert not [cell for cell in cells if cell.startswith(FORMULA_CHARACTERS)]
    # the other side: the hostile texts did reach the export, as text a reader still recognises
    header = rows[0]
    questions = [row[header.index("question")] for row in rows[1:]]
    assert {text[:2] for text in questions} >= {"'=", "'+", "'-", "'@", "'\t"}
    assert any(text.startswith("'\\u000dCR=1") for text in questions)
    assert all(text.endswith("clear \\u001b[2J title \\u001b]0;owned\\u0007 csi \\u009b31m bidi \\u202e end")
               for text in questions)
    golds = [row[header.index("gold")] for row in rows[1:]]
    assert sum(gold.startswith("'") for gold in golds) == 5 and sum("\\u001b[2J" in gold for gold in golds) == 1
