"""The token budget is the harness's rule: a memory server that ignores it is held to it, and the cut is counted.

A real `MemoryServer` (sqlite) behind a scripted loopback remote that drops the budget from every
recall request, so the server answers its full top k. The run over it must keep exactly what the same
system keeps in-process under the same budget (the protocol's prefix), record on each recall what it
cut (counted here from the replies the remote really sent), and say so on the scorecard and in
`question`; a memory that keeps to the budget has nothing cut and no such line.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
from click.testing import CliRunner

from benchledger.adapters.memory.http_server import MemoryServer
from benchledger.adapters.memory.protocol import estimate_tokens
from benchledger.adapters.memory.registry import open_memory
from benchledger.cli.main import cli
from benchledger.ledger.store import Ledger
from conftest import MINI
from scripted_remote import Remote

BUDGET = 100


def _ignoring_budget(remote: Remote, upstream: str, replies: dict[str, list[str]]):
    """Forward every recall with its budget removed; keep each reply's candidate texts by query."""
    client = httpx2.Client(timeout=10)

    def script(method: str, path: str, body: bytes):
        if not path.endswith("/recall"):
            return None
        request = {**json.loads(body), "token_budget": None}
        reply = client.post(upstream + path, json=request)
        replies[request["query"]] = [c["text"] for c in reply.json()["candidates"]]
        return reply.status_code, reply.content

    remote.script = script
    return client


def _run(ledger: Path, *memory_args: str) -> dict:
    out = ledger.with_suffix(".json")
    result = CliRunner().invoke(cli, ["--ledger", str(ledger), "run", "groupmem", str(MINI), "--domain", "Demo",
                                      "--token-budget", str(BUDGET), *memory_args, "--out", str(out)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def _recalls(ledger: Path, run_id: str) -> dict:
    with Ledger.open(ledger) as opened:
        return {e.event.question_id: e.event for e in opened.reader.events(run_id, types=["ContextRecalled"])}


def test_a_server_over_budget_is_cut_to_the_budget_and_the_cut_is_counted(tmp_path: Path) -> None:
    replies: dict[str, list[str]] = {}
    with MemoryServer(open_memory("sqlite", tmp_path / "served.db")) as served, Remote(upstream=served.url) as remote:
        client = _ignoring_budget(remote, served.url, replies)
        try:
            over = _run(tmp_path / "over.db", "--memory", "http", "--memory-url", remote.url)
        finally:
            client.close()
    keeping = _run(tmp_path / "keeping.db", "--memory", "sqlite")

    recalls, kept_in_process = _recalls(tmp_path / "over.db", over["run_id"]), \
        _recalls(tmp_path / "keeping.db", keeping["run_id"])
    assert recalls and set(recalls) == set(kept_in_process)
    cut_recalls = cut_candidates = cut_tokens = 0
    for qid, event in recalls.items():
        # what the run kept is what the system keeps under the budget itself
        assert [(i.doc_id, i.rank) for i in event.items] == [(i.doc_id, i.rank) for i in kept_in_process[qid].items]
        assert kept_in_process[qid].truncated_candidates == 0
        sent = replies[event.query]
        cut = sent[len(event.items):]
        assert sum(estimate_tokens(text) for text in sent[:len(event.items)]) <= BUDGET
        assert (event.truncated_candidates, event.truncated_tokens) == (len(cut), sum(map(estimate_tokens, cut)))
        cut_recalls += bool(cut)
        cut_candidates += len(cut)
        cut_tokens += sum(map(estimate_tokens, cut))
    assert cut_recalls > 0 and sum(estimate_tokens(t) for texts in replies.values() for t in texts) > BUDGET

    runner = CliRunner()
    card = runner.invoke(cli, ["--ledger", str(tmp_path / "over.db"), "show", over["run_id"]], catch_exceptions=False)
    assert card.exit_code == 0, card.output
    line = (f"  over budget: {cut_recalls} of {len(recalls)} recalls; benchledger cut {cut_candidates} candidates, "
            f"~{cut_tokens:,} tokens")
    assert line in card.output.splitlines() and len(line) <= 80
    plain = runner.invoke(cli, ["--ledger", str(tmp_path / "keeping.db"), "show", keeping["run_id"]],
                          catch_exceptions=False)
    assert plain.exit_code == 0 and "over budget" not in plain.output

    qid, event = next((qid, e) for qid, e in sorted(recalls.items()) if e.truncated_candidates)
    shown = runner.invoke(cli, ["--ledger", str(tmp_path / "over.db"), "question", over["run_id"], qid],
                          catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    assert f"    held to k=10, budget={BUDGET} (estimated tokens of the candidates' text):\n" \
           f"    benchledger cut {event.truncated_candidates} more candidates the memory returned " \
           f"(~{event.truncated_tokens:,} tokens)\n" in shown.output
    as_json = runner.invoke(cli, ["--ledger", str(tmp_path / "over.db"), "question", over["run_id"], qid, "--json"],
                            catch_exceptions=False)
    recalled = json.loads(as_json.output)["recalled"]
    assert (recalled["truncated_candidates"], recalled["truncated_tokens"]) == \
        (event.truncated_candidates, event.truncated_tokens)
