"""`benchledger view` is bounded: what one request, or many at once, may cost the server.

A served ledger of a real demo run is sent, sequentially and then all at once from many threads,
the requests that once took a view process past 24 GB: SQLite building a gigabyte blob, a
recursive CTE of megabyte rows, a cross join sorted at random, JSON of control characters (six bytes
each once escaped), a facet over the payload column, a streamed CSV, and every documented view and
canned query at its largest page. Each is answered or refused (400 with the reason, 503 when too
many are in flight), the server still serves its front door afterwards, and its peak resident
memory (VmHWM from /proc) stays under `PEAK_RSS_BYTES`. The limits themselves are checked on both
sides here too: a result just under the byte budget is returned, one just over is refused; a body
one byte over `zlib_text`'s limit is cut and says so. A non-loopback `--host` is refused without
`--expose`, and with it every page needs the one-time login.
"""

from __future__ import annotations

import concurrent.futures
import http.cookiejar
import json
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import zlib
from pathlib import Path

import pytest

from benchledger.orchestration.browse_limits import (
    CELL_BYTES, PEAK_RSS_BYTES, RESULT_BYTES, ResultTooLarge, connect_bounded,
)
from benchledger.projections.ledger_sql import CANNED_QUERIES, PAYLOAD_VIEWS, ZLIB_TEXT_MAX_BYTES, zlib_text
from ledger_cli import invoke

pytestmark = pytest.mark.slow
MiB = 1024 * 1024
_ROWS = "with recursive c(x) as (select 1 union all select x + 1 from c) "
_HUNDRED = "with recursive c(x) as (select 1 union all select x + 1 from c where x < 100) "
HOSTILE = {
    "gigabyte blob": f"select zeroblob({900 * MiB})",
    "gigabyte random": f"select length(randomblob({900 * MiB}))",
    "megabyte rows": _ROWS + "select printf('%.*c', 1000000, 'x') from c limit 5000",
    "escaped rows": _ROWS + "select printf('%.*c', 1000000, char(1)) from c limit 50",
    "one huge concat": _HUNDRED + "select group_concat(printf('%.*c', 100000, 'x')) from c",
    "random cross join": "select * from events a, events b, events c order by random()",
}


@pytest.fixture(scope="module")
def ledger(tmp_path_factory) -> Path:
    pytest.importorskip("datasette", reason="benchledger view needs the view extra: pip install -e '.[view]'")
    path = tmp_path_factory.mktemp("bounds") / "runs.db"
    assert invoke("--ledger", str(path), "run", "groupmem", "--demo").exit_code == 0
    return path


def _start(ledger: Path, *extra: str) -> tuple[subprocess.Popen, str, str]:
    process = subprocess.Popen([sys.executable, "-m", "benchledger.cli.main", "--ledger", str(ledger), "view",
                                "--port", "0", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.search(r"read-only at (http://[^/\s]+)/ledger", line)
    assert match, (line, process.stderr.read() if process.poll() is not None else "")
    return process, match.group(1), line


@pytest.fixture(scope="module")
def served(ledger):
    process, base, _ = _start(ledger)
    yield base, process.pid
    process.terminate()
    process.wait(timeout=30)


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def _sql(base: str, sql: str, fmt: str = "json") -> str:
    return f"{base}/ledger.{fmt}?" + urllib.parse.urlencode({"sql": sql, "_size": "max"})


def _peak_rss(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) * 1024


def test_each_hostile_query_is_refused_with_its_reason(served):
    base, _ = served
    answers = {name: _get(_sql(base, sql)) for name, sql in HOSTILE.items()}
    for name in ("gigabyte blob", "gigabyte random", "one huge concat"):
        status, body = answers[name]
        assert status == 400 and b"string or blob too big" in body, (name, status, body[:200])
    for name in ("megabyte rows", "escaped rows"):
        status, body = answers[name]
        assert status == 400 and f"over the view's {RESULT_BYTES // MiB} MiB limit".encode() in body, name
    status, body = answers["random cross join"]
    assert status == 400 and b"interrupted" in body.lower(), body[:200]


def test_a_result_just_under_the_budget_is_served_and_just_over_is_refused(ledger):
    conn = connect_bounded(ledger)
    cell = 1000 * 1000
    fits = (RESULT_BYTES - 16 * 8) // cell  # rows of one cell each, 16 bytes of overhead per cell
    rows = conn.execute(_ROWS + f"select printf('%.*c', {cell}, 'x') from c limit {fits}").fetchall()
    assert len(rows) == fits
    with pytest.raises(ResultTooLarge):
        conn.execute(_ROWS + f"select printf('%.*c', {cell}, 'x') from c limit {fits + 1}").fetchall()
    escaped = RESULT_BYTES // 6 // 2  # two rows of control characters, each six bytes in JSON
    with pytest.raises(ResultTooLarge):
        conn.execute(_ROWS + f"select printf('%.*c', {escaped + 1000}, char(1)) from c limit 2").fetchmany(5)
    assert len(conn.execute(_ROWS + f"select printf('%.*c', {escaped // 2}, char(1)) from c limit 2").fetchall()) == 2
    assert len(conn.execute(f"select zeroblob({CELL_BYTES})").fetchone()[0]) == CELL_BYTES
    with pytest.raises(Exception, match="too big"):
        conn.execute(f"select zeroblob({CELL_BYTES + 1})").fetchone()
    conn.close()


def test_zlib_text_inflates_up_to_its_limit_and_says_where_it_cut():
    assert CELL_BYTES > ZLIB_TEXT_MAX_BYTES + 1024  # the cut text and its note fit in one cell
    assert zlib_text(zlib.compress(b"a" * ZLIB_TEXT_MAX_BYTES)) == "a" * ZLIB_TEXT_MAX_BYTES
    over = zlib_text(zlib.compress(b"a" * (ZLIB_TEXT_MAX_BYTES + 1)))
    assert over.startswith("a" * ZLIB_TEXT_MAX_BYTES) and over.endswith("reads the whole body]")
    bomb = zlib.compress(b"\0" * (512 * MiB))  # half a gigabyte in about half a megabyte
    assert len(bomb) < MiB and len(zlib_text(bomb)) < ZLIB_TEXT_MAX_BYTES + 100
    assert zlib_text(zlib.compress(b"a" * 1000)[:-8]) is None  # a cut-off stream stays unreadable


def test_many_heavy_requests_at_once_stay_under_the_memory_ceiling(served):
    base, pid = served
    urls = [_sql(base, sql, fmt) for sql in HOSTILE.values() for fmt in ("json", "csv")]
    urls += [_sql(base, _ROWS + f"select printf('%.*c', 1000000, 'y') from c limit 7 -- {i}") for i in range(24)]
    urls += [_sql(base, _ROWS + f"select printf('%.*c', 600000, char(1)) from c limit 2 -- {i}") for i in range(24)]
    urls += [f"{base}/ledger/{view.name}.json?_size=max" for view in PAYLOAD_VIEWS]
    urls += [f"{base}/ledger/{view.name}?_size=max" for view in PAYLOAD_VIEWS]
    urls += [f"{base}/ledger/{name}.json?_size=max" for name in CANNED_QUERIES]
    urls += [f"{base}/ledger/events?_facet=payload&_facet=type&_size=max",
             f"{base}/ledger/events.csv?_stream=on&_size=max", f"{base}/ledger/blobs.json?_size=max"]
    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(_get, urls * 2))
    statuses = [status for status, _ in answers]
    odd = [(status, url, body[:300]) for (status, body), url in zip(answers, urls * 2) if status not in (200, 400, 503)]
    assert not odd, odd
    assert statuses.count(200) > 0 and statuses.count(400) > 0
    status, body = _get(f"{base}/ledger/runs.json")
    assert status == 200 and json.loads(body)["rows"], "the view should still serve after the storm"
    peak = _peak_rss(pid)
    assert peak < PEAK_RSS_BYTES, f"peak {peak // MiB} MiB over the stated {PEAK_RSS_BYTES // MiB} MiB"


def test_a_non_loopback_host_needs_expose_and_then_a_login(ledger):
    refused = invoke("--ledger", str(ledger), "view", "--host", "0.0.0.0", "--port", "0")
    assert refused.exit_code == 2
    [line] = refused.output.strip().splitlines()
    assert "--expose" in line and "gold answer" in line and str(ledger) in line

    process, base, _ = _start(ledger, "--host", "0.0.0.0", "--expose")
    try:
        said = process.stdout.readline()
        login_file = Path(re.search(r"the URL in (\S+) ", said).group(1))
        assert login_file.stat().st_mode & 0o777 == 0o600 and "token=" not in said
        url = login_file.read_text().strip().replace("0.0.0.0", "127.0.0.1")
        local = base.replace("0.0.0.0", "127.0.0.1")
        assert _get(f"{local}/ledger/runs.json")[0] == 403
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        assert _get(url.replace("token=", "token=0"))[0] == 403  # a wrong token logs nobody in
        opener.open(url, timeout=30).read()
        with opener.open(f"{local}/ledger/runs.json", timeout=30) as response:
            assert response.status == 200 and json.loads(response.read())["rows"]
        assert _get(url)[0] == 403  # the link is spent
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
    [warning] = [line for line in stderr.splitlines() if line.startswith("warning:")]
    assert "exposes every run, prompt, reply and gold answer" in warning
    assert not login_file.exists()
