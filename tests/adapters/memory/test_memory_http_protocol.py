"""The server's side of the protocol, spoken raw: routes, encoded scopes, error shapes, the token."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx2
import pytest
from benchledger.adapters.memory.http_protocol import ERROR_STATUS, PROTOCOL_VERSION, scope_path
from benchledger.adapters.memory.http_server import MemoryServer
from benchledger.adapters.memory.protocol import MemorySystemError
from benchledger.adapters.memory.registry import available_memories, open_memory
from benchledger.adapters.memory.sqlite_fts import SqliteMemory
from benchledger.testing.memory_contract import SCOPE, contract_corpus

TOKEN = "s3cret-token-value"


@pytest.fixture
def served(tmp_path: Path):
    with MemoryServer(open_memory("sqlite", tmp_path / "store.db")) as server:
        with httpx2.Client(base_url=server.url, timeout=10) as client:
            yield client


@pytest.fixture
def guarded(tmp_path: Path):
    with MemoryServer(open_memory("sqlite", tmp_path / "store.db"), token=TOKEN) as server:
        with httpx2.Client(base_url=server.url, timeout=10) as client:
            yield client


def documents_body(count: int | None = None) -> dict:
    docs = contract_corpus()[:count]
    return {"documents": [json.loads(doc.model_dump_json()) for doc in docs]}


def assert_error(response: httpx2.Response, error_type: str) -> str:
    assert response.status_code == ERROR_STATUS[error_type]
    body = response.json()
    assert set(body) == {"error"} and body["error"]["type"] == error_type
    return body["error"]["message"]


def test_info_names_the_served_system(served: httpx2.Client) -> None:
    info = served.get("/v1/info").json()
    assert info == {"name": "sqlite", "version": available_memories()["sqlite"].version,
                    "protocol": PROTOCOL_VERSION, "model": None}


def test_a_scope_with_colons_and_slashes_travels_as_one_segment(served: httpx2.Client) -> None:
    scope = "benchmark:x/y:Demo:abc"
    path = scope_path(scope, "documents")
    assert path == "/v1/scopes/benchmark%3Ax%2Fy%3ADemo%3Aabc/documents"
    assert served.post(path, json=documents_body(3)).json() == {"new": 3, "documents": 3}
    assert served.get(scope_path(scope, "state")).json() == {"documents": 3, "pending_chunks": 3}
    assert served.get(scope_path(SCOPE, "state")).json() == {"documents": 0, "pending_chunks": 0}


def test_build_extracts_one_batch_per_call_and_reports_what_remains(served: httpx2.Client) -> None:
    served.post(scope_path(SCOPE, "documents"), json=documents_body())
    total = len(contract_corpus())
    first = served.post(scope_path(SCOPE, "build"), json={"batch_size": 3}).json()
    assert len(first["extracted"]) == 3 and first["pending"] == total - 3
    rest = served.post(scope_path(SCOPE, "build"), json={"batch_size": 100}).json()
    assert rest == {"extracted": [f"Msg_{i}" for i in range(3, total)], "pending": 0}
    assert served.post(scope_path(SCOPE, "build"), json={}).json() == {"extracted": [], "pending": 0}


def test_recall_and_purge_round_trip(served: httpx2.Client) -> None:
    served.post(scope_path(SCOPE, "documents"), json=documents_body())
    served.post(scope_path(SCOPE, "build"), json={"batch_size": 100})
    reply = served.post(scope_path(SCOPE, "recall"), json={
        "query": "billing migration freeze", "asking_user": "User_1", "k": 2, "token_budget": None,
        "question_time": "2024-03-02T10:00:00Z"}).json()
    assert [c["rank"] for c in reply["candidates"]] == [1, 2]
    assert reply["candidates"][0]["document"]["doc_id"] in {"Msg_0", "Msg_7"}
    assert served.delete(scope_path(SCOPE)).json() == {"removed": len(contract_corpus())}
    assert served.get(scope_path(SCOPE, "state")).json() == {"documents": 0, "pending_chunks": 0}


@pytest.mark.parametrize("body, field", [
    ({"query": "x", "k": 3, "gold": "leaked"}, "gold"),
    ({"query": "x", "k": -1}, "k"),
    ({"query": "x"}, "k"),
    ({"query": "x", "k": 3, "token_budget": "lots"}, "token_budget"),
])
def test_bad_requests_are_400_and_name_the_field(served: httpx2.Client, body: dict, field: str) -> None:
    message = assert_error(served.post(scope_path(SCOPE, "recall"), json=body), "bad_request")
    assert f"'{field}'" in message


def test_a_document_missing_a_field_or_a_body_that_is_not_json_is_400(served: httpx2.Client) -> None:
    body = documents_body(1)
    del body["documents"][0]["text"]
    assert "documents.0.text" in assert_error(served.post(scope_path(SCOPE, "documents"), json=body), "bad_request")
    assert_error(served.post(scope_path(SCOPE, "documents"), content=b"{not json"), "bad_request")
    assert served.get(scope_path(SCOPE, "state")).json()["documents"] == 0


def test_unknown_routes_and_methods(served: httpx2.Client) -> None:
    assert_error(served.get("/v2/info"), "not_found")
    assert_error(served.get(scope_path(SCOPE, "everything")), "not_found")
    assert_error(served.get(scope_path(SCOPE, "recall")), "method_not_allowed")
    assert_error(served.post("/v1/info", json={}), "method_not_allowed")
    assert served.get("/v1/info").status_code == 200  # the connection is still usable


def test_purge_of_an_unmarked_store_is_409_and_deletes_nothing(served: httpx2.Client, tmp_path: Path) -> None:
    served.post(scope_path(SCOPE, "documents"), json=documents_body())
    conn = sqlite3.connect(tmp_path / "store.db", isolation_level=None)
    conn.execute("PRAGMA application_id = 0")
    conn.close()
    message = assert_error(served.delete(scope_path(SCOPE)), "not_an_evaluation_store")
    assert "nothing was deleted" in message
    assert served.get(scope_path(SCOPE, "state")).json()["documents"] == len(contract_corpus())


def test_a_token_guards_every_route_and_is_never_echoed(guarded: httpx2.Client) -> None:
    for response in (guarded.get("/v1/info"),
                     guarded.get("/v1/info", headers={"Authorization": "Bearer wrong"}),
                     guarded.post(scope_path(SCOPE, "documents"), json=documents_body(),
                                  headers={"Authorization": f"Basic {TOKEN}"})):
        assert_error(response, "unauthorized")
        assert response.headers["WWW-Authenticate"] == "Bearer"
        assert TOKEN not in response.text
    ok = guarded.get(scope_path(SCOPE, "state"), headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.json() == {"documents": 0, "pending_chunks": 0}


class FailingMemory(SqliteMemory):
    """A served system that fails operationally: recall reports it, state crashes."""

    def recall(self, scope, query, **kwargs):
        raise MemorySystemError("index file is corrupt")

    def state(self, scope):
        raise RuntimeError("segfault-ish")


def test_a_failing_system_is_a_500_with_its_error(tmp_path: Path) -> None:
    with MemoryServer(FailingMemory(tmp_path / "store.db")) as server, \
            httpx2.Client(base_url=server.url, timeout=10) as client:
        recall = client.post(scope_path(SCOPE, "recall"), json={"query": "x", "k": 3})
        assert assert_error(recall, "memory_error") == "MemorySystemError: index file is corrupt"
        assert assert_error(client.get(scope_path(SCOPE, "state")), "internal") == "RuntimeError: segfault-ish"
        assert client.get("/v1/info").status_code == 200
