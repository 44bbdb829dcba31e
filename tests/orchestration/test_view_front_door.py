"""The view's front door: `benchledger view` opens on the runs (scores as percentages, status, each
run id a link to its events), accuracy per kind is pivoted (a row per run, a column per kind), and no
canned query or view page scrolls sideways at 1400 px (measured in headless Chromium over the
DevTools protocol, with screenshots kept to look at).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from cdp import evaluate_on_page
from chromium import chromium, screenshot
from ledger_cli import invoke
from conftest import MINI

pytestmark = pytest.mark.slow
SIDEWAYS = ("[document.documentElement.scrollWidth - document.documentElement.clientWidth, "
            "Math.max(0, ...[...document.querySelectorAll('.table-wrapper, table')]"
            ".map(e => e.scrollWidth - e.clientWidth))]")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    pytest.importorskip("datasette", reason="benchledger view needs the view extra: pip install -e '.[view]'")
    folder = tmp_path_factory.mktemp("front")
    ledger = folder / "runs.db"
    reports = []
    for k in ("10", "5"):
        out = folder / f"k{k}.json"
        assert invoke("--ledger", str(ledger), "run", "groupmem", str(MINI), "--domain", "Demo", "--k", k,
                      "--out", str(out)).exit_code == 0
        reports.append(json.loads(out.read_text()))
    process = subprocess.Popen([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(ledger), "view",
                                "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.search(r"read-only at (http://[^/\s]+)/ledger", line)
    assert match, (line, process.stderr.read() if process.poll() is not None else "")
    yield match.group(1), reports
    process.terminate()
    process.wait(timeout=30)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _json(url: str) -> list[dict]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def test_the_home_page_is_the_runs_with_percentages_and_links(served):
    base, (k10, k5) = served
    opener = urllib.request.build_opener(_NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as redirect:
        opener.open(base + "/", timeout=30)
    assert redirect.value.code == 302 and redirect.value.headers["Location"].endswith("/ledger/runs")
    rows = {row["run_id"]: row for row in _json(base + "/ledger/runs.json?_shape=array")}
    assert list(rows) == [k5["run_id"], k10["run_id"]]  # newest first
    for report in (k10, k5):
        row = rows[report["run_id"]]
        assert row["score"] == f"{100 * report['accuracy']:.1f}%" and row["status"] == "completed"
        assert row["k"] == report["k"] and row["failed"] == 0
    with urllib.request.urlopen(base + "/ledger/runs", timeout=30) as response:
        page = response.read().decode()
    assert f'href="/ledger/events?run_id={k5["run_id"]}&amp;_sort=seq"' in page


def test_accuracy_per_kind_is_a_row_per_run_and_a_column_per_kind(served):
    base, reports = served
    rows = {row["run_id"]: row for row in _json(base + "/ledger/accuracy_pivot.json?_shape=array")}
    assert set(rows) == {r["run_id"] for r in reports}
    for report in reports:
        row = rows[report["run_id"]]
        kinds = {name: value for name, value in row.items() if name in report["by_kind"]}
        assert kinds == {kind: f"{100 * tally['accuracy']:.1f}%" for kind, tally in report["by_kind"].items()}


def test_no_page_scrolls_sideways_at_1400_px(served, tmp_path):
    base, (k10, k5) = served
    browser = chromium()
    pages = {"runs": "/ledger/runs", "pivot": "/ledger/accuracy_pivot", "by-kind": "/ledger/accuracy_by_kind",
             "failures": "/ledger/failures_by_error?run_id=",
             "trail": f"/ledger/question_trail?run_id={k10['run_id']}&question_id=temporal_1",
             "flips": f"/ledger/flipped_questions?run_a={k10['run_id']}&run_b={k5['run_id']}",
             "overview": "/ledger/run_overview", "recalls": "/ledger/recalls"}
    for name, path in pages.items():
        document, widest_table = evaluate_on_page(browser, tmp_path / "profile", base + path, SIDEWAYS,
                                                  width=1400, height=1000)
        assert (document, widest_table) == (0, 0), f"{name} scrolls sideways by {max(document, widest_table)} px"
    for name in ("runs", "pivot"):
        screenshot(browser, tmp_path / "profile", base + pages[name], tmp_path / f"{name}.png", 1400, 1000)
        Path(f"/tmp/benchledger-front-{name}.png").write_bytes((tmp_path / f"{name}.png").read_bytes())
