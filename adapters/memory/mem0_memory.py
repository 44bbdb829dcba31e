"""`mem0`: mem0 (mem0ai, the `benchledger[mem0]` extra) on embedded stores, one isolated store per scope.

Each scope gets its own folder beside the evaluation store (`<store>.mem0/<scope digest>/`) holding
mem0's embedded Qdrant (`vector_store: qdrant {path, on_disk}`) and its SQLite history, so scopes
never see each other and a purge removes the folder, after the evaluation-store guard has passed.
The evaluation store itself (a marked SQLite file, `StoredMemory`) keeps what benchledger needs to
answer `state` honestly: the documents ingested and which are still pending.

Ingest stores documents pending; `build` hands them to `Memory.add` in canonical order:

- `infer=false` (the default): one `add(infer=False)` per message; mem0 embeds it and stores it
  verbatim, so a recalled memory is the document itself and comes back as `kind=document`.
- `infer=true`: mem0 asks its model to extract memories (one `json_object` chat call per `add`);
  `granularity` says how much one call sees: `message`, `session` (consecutive messages of one
  channel), or an integer N (up to N consecutive messages of one channel). Every memory extracted
  from a call names the documents that call was given (`metadata.doc_ids`), so a recalled fact is a
  `kind=fact` candidate whose sources are those documents.

mem0's stores are not the evaluation store, so a batch cannot be added to mem0 and marked built
in one transaction. The batch's documents are marked in flight (`mem0_in_flight`, committed) before
`add` and cleared with their pending flags after it; a batch found still in flight when it is built
again (the process was killed, or an `add` failed half way) first has the memories mem0 already
holds for those documents deleted, so a resumed run never recalls a document twice.

Scopes are built concurrently (`concurrent_scopes`): each has its own client, and each client
reaches the proxy on its scope's route, so the run attributes every call to its scope.

Recall is `Memory.search(query, top_k=k, threshold=0)` in the scope, ranked by mem0's score (rounded
to 6 decimals; ties by text), packed to the token budget.

mem0 reaches its model (chat and embeddings) only through benchledger's recording proxy
(`adapters.memory.recording_proxy`), which forwards to `base_url` with the key from `key_env` and
keeps every call for the run's ledger; mem0 itself is given a placeholder key. Without a
`base_url`, benchledger starts its
loopback endpoint in the process (`adapters.models.loopback`: deterministic extraction, WordLlama
embeddings shipped in a wheel), so the whole path runs offline; the run then records the memory's
model as `loopback:<model>`. Telemetry is off (`MEM0_TELEMETRY=False`) before mem0 is imported,
and mem0's own folder (`MEM0_DIR`) is put under the evaluation store rather than the home folder.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import shutil
import threading
from datetime import datetime
from importlib.metadata import PackageNotFoundError, version as installed_version
from pathlib import Path
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.documents import pack_ranked
from benchledger.adapters.memory.granularity import build_batches, groups_of, parse_granularity, whole_groups
from benchledger.adapters.memory.evalstore import purge_scope, require_evaluation_store, transaction
from benchledger.adapters.memory.protocol import Candidate, MemorySystemError, PlannedCalls
from benchledger.adapters.memory.recording_proxy import PLACEHOLDER_KEY, RecordingProxy
from benchledger.adapters.memory.stored import StoredMemory
from benchledger.errors import BadInput
from benchledger.providers import OPENAI_API_KEY_ENV

__all__ = ["Mem0Memory", "MEM0_VERSION"]

try:
    MEM0_VERSION = installed_version("mem0ai")
except PackageNotFoundError as exc:  # the registry lists the system with this error
    raise ImportError("mem0ai is not installed: pip install 'benchledger[mem0]'") from exc

_IN_FLIGHT = "mem0_in_flight"
_BUILD_BATCH = 100
"""Documents per build batch (`build_batch`): an `add` costs a model call or two, so a batch of about
a few sessions is one ChunkExtracted, one progress step and what a crash can lose, not a thousand."""
_USER = "benchledger"
"""mem0 needs an entity id on every call; each scope has a store of its own, so one constant does."""


def _flag(name: str, value: str | bool) -> bool:
    if isinstance(value, bool):
        return value
    if value.lower() in ("true", "1", "yes", "on"):
        return True
    if value.lower() in ("false", "0", "no", "off"):
        return False
    raise BadInput(f"{name} must be true or false, got {value!r}", field=name)


def _option_default(name: str) -> str:
    """A constructor option's default, read from the signature (one place for it)."""
    return str(inspect.signature(Mem0Memory.__init__).parameters[name].default)


class Mem0Memory(StoredMemory):
    """mem0 over an embedded Qdrant and a SQLite history per scope (see module docstring)."""

    name = "mem0"
    version = MEM0_VERSION
    documents_table = "mem0_documents"
    concurrent_scopes = True
    """Each scope has its own mem0 client and embedded stores; `add` runs outside the store's lock."""

    def __init__(self, store_path: Path | str, *, infer: str | bool = "false", granularity: str = "message",
                 llm_model: str = "gpt-4.1-nano", embedder_model: str = "text-embedding-3-small",
                 embedding_dims: str | int = "256", base_url: str | None = None,
                 key_env: str = OPENAI_API_KEY_ENV) -> None:
        self.infer = _flag("infer", infer)
        self.granularity = parse_granularity(str(granularity))
        if not str(embedding_dims).isdigit():
            raise BadInput(f"embedding_dims must be a positive integer, got {embedding_dims!r}", field="embedding_dims")
        self.embedding_dims = int(embedding_dims)
        self.llm_model, self.embedder_model, self.key_env = llm_model, embedder_model, key_env
        super().__init__(store_path)
        self.root = self.store_path.with_suffix(".mem0")
        self._loopback: Any = None
        if base_url is None:
            from benchledger.adapters.models.loopback import LoopbackOpenAI

            self._loopback = LoopbackOpenAI(keep_bodies=False).start()
        elif not os.environ.get(key_env):
            raise BadInput(f"--memory-base-url needs a key: environment variable {key_env} is not set",
                           field="memory-key-env")
        upstream: str = self._loopback.base_url if self._loopback is not None else str(base_url)
        self.model_calls = RecordingProxy(
            upstream,
            key_env=None if self._loopback is not None else key_env,
            shown_upstream="loopback" if self._loopback is not None else None)
        """Every call mem0 makes to its model goes through this proxy; the run drains it onto the ledger."""
        self.base_url = self.model_calls.base_url
        self.model = f"loopback:{llm_model}" if self._loopback is not None else llm_model
        """The memory's own model, as a run records it (`RunConfig.memory_model`)."""
        self._clients: dict[str, Any] = {}
        self._clients_lock = threading.Lock()
        self.build_batch = _BUILD_BATCH

    @classmethod
    def planned_calls(cls, options: Mapping[str, object], scopes: Iterable[Sequence[Document]], *,
                      questions: int, batch_size: int) -> list[PlannedCalls]:
        """The calls a run would make on a fresh store, as mem0 2.2.1's `add` and `search` make them.

        `infer=true`: each `add` (one per group `_extract` forms in each build batch) is one chat call
        and at least one embedding call (the new messages, searched against the existing memories),
        then one per hundred memories the model extracted (mem0's OpenAI embedder sends 100 texts a
        call), so the embeddings have no upper bound before the model replies. `infer=false`: one
        embedding per message. Each recall's `search` embeds the question once. Tokens are not said: mem0's
        extraction prompt carries up to ten retrieved memories and the scope's last ten messages,
        which depend on what its model extracted before."""
        def option(name: str) -> str:
            return str(options.get(name, _option_default(name)))

        infer, granularity = _flag("infer", option("infer")), parse_granularity(option("granularity"))
        llm, embedder = option("llm_model"), option("embedder_model")
        messages = adds = 0
        for documents in scopes:
            ordered = sorted(documents, key=lambda doc: doc.position)  # the build's order (stable: arrival)
            messages += len(ordered)
            size = min(batch_size, _BUILD_BATCH)
            adds += sum(len(groups_of(batch, granularity)) for batch in build_batches(ordered, size, granularity))
        planned = [PlannedCalls("build", "chat", llm, adds, adds),
                   PlannedCalls("build", "embeddings", embedder, adds, None)] if infer else \
            [PlannedCalls("build", "embeddings", embedder, messages, messages)]
        return [*(p for p in planned if p.calls), *([PlannedCalls("recall", "embeddings", embedder, questions,
                                                                   questions)] if questions else [])]

    # -- mem0 -------------------------------------------------------------------------------

    def _scope_dir(self, scope: str) -> Path:
        return self.root / hashlib.sha256(scope.encode()).hexdigest()[:24]


    def _client(self, scope: str) -> Any:
        with self._clients_lock:
            if scope in self._clients:
                return self._clients[scope]
            folder = self._scope_dir(scope)
            folder.mkdir(parents=True, exist_ok=True)
            os.environ["MEM0_TELEMETRY"] = "False"
            os.environ.setdefault("MEM0_DIR", str(self.root / ".mem0"))
            from mem0 import Memory

            key = PLACEHOLDER_KEY  # the proxy puts the real key on the outgoing request
            route = self.model_calls.route(scope)  # this scope's calls, told apart from other scopes'
            client = Memory.from_config({
                "vector_store": {"provider": "qdrant", "config": {
                    "collection_name": "benchledger", "path": str(folder / "qdrant"), "on_disk": True,
                    "embedding_model_dims": self.embedding_dims}},
                "llm": {"provider": "openai", "config": {
                    "model": self.llm_model, "openai_base_url": route, "api_key": key, "temperature": 0}},
                "embedder": {"provider": "openai", "config": {
                    "model": self.embedder_model, "openai_base_url": route, "api_key": key,
                    "embedding_dims": self.embedding_dims}},
                "history_db_path": str(folder / "history.db"),
            })
            self._clients[scope] = client
            return client

    def _release(self, scope: str) -> None:
        with self._clients_lock:
            client = self._clients.pop(scope, None)
        if client is not None:
            _close(client)

    # -- StoredMemory hooks -----------------------------------------------------------------

    def _setup(self) -> None:
        self._conn.execute(f'CREATE TABLE IF NOT EXISTS "{_IN_FLIGHT}" (scope TEXT NOT NULL, doc_id TEXT NOT NULL, '
                           "PRIMARY KEY (scope, doc_id))")

    def _extract_unlocked(self, scope: str, documents: list[Document]) -> None:
        client = self._client(scope)
        doc_ids = [doc.doc_id for doc in documents]
        with self._lock, transaction(self._conn):
            interrupted = {row[0] for row in self._conn.execute(
                f'SELECT doc_id FROM "{_IN_FLIGHT}" WHERE scope = ?', (scope,))} & set(doc_ids)
            self._conn.executemany(f'INSERT OR IGNORE INTO "{_IN_FLIGHT}" (scope, doc_id) VALUES (?, ?)',
                                   [(scope, doc_id) for doc_id in doc_ids])
        try:
            if interrupted:
                _forget(client, interrupted)
            if not self.infer:
                for doc in documents:
                    client.add([_message(doc)], user_id=_USER, infer=False, metadata={"doc_ids": [doc.doc_id]})
                return
            for group in groups_of(documents, self.granularity):
                client.add([_message(doc) for doc in group], user_id=_USER, infer=True,
                           metadata={"doc_ids": [doc.doc_id for doc in group]})
        except (MemorySystemError, BadInput):
            raise
        except Exception as exc:  # mem0's LLMError, VectorStoreError, a refused endpoint: operational
            raise MemorySystemError(f"mem0 add failed: {type(exc).__name__}: {exc}") from exc

    def _record_extracted(self, scope: str, batch: list[tuple[int, str, str]], outcome: object) -> None:
        self._conn.executemany(f'DELETE FROM "{_IN_FLIGHT}" WHERE scope = ? AND doc_id = ?',
                               [(scope, doc_id) for _, doc_id, _ in batch])

    def _whole_groups(self, documents: list[Document]) -> int:
        return whole_groups(documents, self.granularity if self.infer else "message")

    def _purge(self, scope: str) -> int:
        require_evaluation_store(self._conn, action="purge")  # before the folder, not after
        self._release(scope)
        if self._scope_dir(scope).exists():
            shutil.rmtree(self._scope_dir(scope))
        return purge_scope(self._conn, scope, tables=[self.documents_table, _IN_FLIGHT])

    # -- recall -----------------------------------------------------------------------------

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        if k <= 0 or self.state(scope).documents == 0:
            return []
        try:
            found = self._client(scope).search(query, top_k=k, filters={"user_id": _USER}, threshold=0.0)
        except Exception as exc:
            raise MemorySystemError(f"mem0 search failed: {type(exc).__name__}: {exc}") from exc
        results = found.get("results", []) if isinstance(found, dict) else found
        with self._lock:
            stored = {doc.doc_id: doc for _, doc in self._documents.built(scope)}
        drafts = [self._candidate(hit, stored) for hit in results]
        drafts.sort(key=lambda c: (-c.score, c.text, c.sources))
        return pack_ranked(drafts, k=k, token_budget=token_budget)

    def _candidate(self, hit: dict, stored: dict[str, Document]) -> Candidate:
        text = str(hit.get("memory", ""))
        named = tuple(dict.fromkeys(str(d) for d in (hit.get("metadata") or {}).get("doc_ids", [])))
        # Rounded: the embedded Qdrant scores a fresh insert and the same vector read back from disk
        # a few ulps apart, and a reopened store must recall exactly what it did.
        score = round(float(hit.get("score") or 0.0), 6)
        if not self.infer and len(named) == 1 and named[0] in stored and stored[named[0]].text == text:
            return Candidate.of_document(1, score, stored[named[0]])
        return Candidate(rank=1, score=score, kind="fact", text=text, sources=named)

    def close(self) -> None:
        for scope in list(self._clients):
            self._release(scope)
        self.model_calls.close()
        if self._loopback is not None:
            self._loopback.stop()
            self._loopback = None
        super().close()


def _message(doc: Document) -> dict[str, str]:
    message = {"role": "user", "content": doc.text}
    if doc.author:
        message["name"] = doc.author
    return message


def _forget(client: Any, doc_ids: set[str]) -> None:
    """Delete the memories mem0 holds for these documents (left by a batch that never finished)."""
    found = client.get_all(filters={"user_id": _USER}, top_k=10_000_000)
    for hit in found.get("results", []) if isinstance(found, dict) else found:
        if doc_ids & set((hit.get("metadata") or {}).get("doc_ids", [])):
            client.delete(hit["id"])


def _close(client: Any) -> None:
    """Release the embedded Qdrant's lock and the history connection (mem0 has no close of its own)."""
    for closer in (lambda: client.vector_store.client.close(), lambda: client.db.close()):
        try:
            closer()
        except Exception:  # already closed, or this version keeps it elsewhere: nothing to release
            pass
