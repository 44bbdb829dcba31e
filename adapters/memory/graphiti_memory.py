"""`graphiti`: Graphiti (graphiti-core, the `benchledger[graphiti]` extra) on embedded Kuzu, one database per scope.

Each scope gets its own Kuzu database beside the evaluation store
(`<store>.graphiti/<scope digest>/graph.kuzu`): Graphiti's `group_id` did not isolate scopes on
Kuzu when tried, one database per scope does, and a purge removes the folder after the
evaluation-store guard. The evaluation store (a marked SQLite file, `StoredMemory`) keeps the
documents, their pending flags, and which ingested documents each Graphiti episode holds
(`graphiti_episodes`), so a recalled fact can name its sources.

`build` adds the pending documents as episodes (`add_episode`, one per message, per session run or
per N messages of a channel: `granularity`), each `"author: text"` line as Graphiti's message
convention, at the document's time. Graphiti asks its model for `json_schema` answers per prompt
(entities, edges, deduplication). Recall asks for the scope's edges by cosine similarity of their
fact to the question (`search_` with a cosine-only edge search, no minimum score: Kuzu's full-text
search returned nothing here, and the default 0.6 floor dropped every fact under the shipped
embeddings), ranked by Graphiti's reciprocal-rank score; a candidate is a `fact` whose sources are
the documents of the episodes the edge came from, and whose time is the edge's `valid_at`.

Scopes are built concurrently (`concurrent_scopes`): every scope's coroutines run on one event loop
in a thread of its own, outside the store's lock, and each scope's clients reach the proxy on that
scope's route, so its calls are attributed to it. A batch holds at most `build_batch` documents and
never ends inside an episode's group.

Graphiti reaches its model only through benchledger's recording proxy, like mem0 (see
`adapters.memory.mem0_memory`); without `base_url` the loopback endpoint serves it offline.
Telemetry is off (`GRAPHITI_TELEMETRY_ENABLED=false`) before graphiti-core is imported.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import threading
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version as installed_version
from pathlib import Path
from typing import Any

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.documents import pack_ranked
from benchledger.adapters.memory.evalstore import purge_scope, require_evaluation_store
from benchledger.adapters.memory.granularity import groups_of, parse_granularity, whole_groups
from benchledger.adapters.memory.protocol import Candidate, MemorySystemError
from benchledger.adapters.memory.recording_proxy import PLACEHOLDER_KEY, RecordingProxy
from benchledger.adapters.memory.stored import StoredMemory
from benchledger.errors import BadInput
from benchledger.providers import OPENAI_API_KEY_ENV

__all__ = ["GraphitiMemory", "GRAPHITI_VERSION"]

try:
    GRAPHITI_VERSION = installed_version("graphiti-core")
except PackageNotFoundError as exc:  # the registry lists the system with this error
    raise ImportError("graphiti-core is not installed: pip install 'benchledger[graphiti]'") from exc

_EPISODES = "graphiti_episodes"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def kuzu_problem(module_version: str, distribution_version: str | None) -> str | None:
    """Why the `kuzu` module cannot be Graphiti's Kuzu, or None when it is the installed distribution.

    Another package can ship a top-level `kuzu` of its own (cognee's wheels carry a shim that loads
    its Ladybug fork), overwriting Kuzu's files while pip still lists Kuzu as installed; Graphiti
    then fails deep inside with "function CREATE_FTS_INDEX is not defined".
    """
    if distribution_version is None:
        return "kuzu is not installed: pip install 'benchledger[graphiti]'"
    if module_version != distribution_version:
        return (f"the kuzu module reports version {module_version}, not the installed Kuzu {distribution_version}: "
                f"another package replaced its files (cognee ships a kuzu shim): "
                f"pip install --force-reinstall --no-deps kuzu=={distribution_version}")
    return None


def _require_real_kuzu() -> None:
    import kuzu

    try:
        distribution: str | None = installed_version("kuzu")
    except PackageNotFoundError:
        distribution = None
    if (problem := kuzu_problem(str(getattr(kuzu, "__version__", "unknown")), distribution)) is not None:
        raise BadInput(f"graphiti cannot run: {problem}", field="memory")


class GraphitiMemory(StoredMemory):
    """Graphiti over one embedded Kuzu database per scope (see module docstring)."""

    name = "graphiti"
    version = GRAPHITI_VERSION
    documents_table = "graphiti_documents"
    concurrent_scopes = True
    """One Kuzu database and one Graphiti per scope, all driven by one event loop outside the store's lock."""
    build_batch = 20
    """Graphiti makes several model calls per episode: one ChunkExtracted (and a crash's loss) per few episodes."""

    def __init__(self, store_path: Path | str, *, granularity: str = "message", llm_model: str = "gpt-4.1-nano",
                 embedder_model: str = "text-embedding-3-small", embedding_dims: str | int = "256",
                 base_url: str | None = None, key_env: str = OPENAI_API_KEY_ENV) -> None:
        _require_real_kuzu()  # before the store is made: nothing is written for a run that cannot start
        self.granularity = parse_granularity(str(granularity))
        if not str(embedding_dims).isdigit():
            raise BadInput(f"embedding_dims must be a positive integer, got {embedding_dims!r}", field="embedding_dims")
        self.embedding_dims = int(embedding_dims)
        self.llm_model, self.embedder_model = llm_model, embedder_model
        if base_url is not None and not os.environ.get(key_env):
            raise BadInput(f"--memory-base-url needs a key: environment variable {key_env} is not set",
                           field="memory-key-env")
        super().__init__(store_path)
        self.root = self.store_path.with_suffix(".graphiti")
        self._loopback: Any = None
        if base_url is None:
            from benchledger.adapters.models.loopback import LoopbackOpenAI

            self._loopback = LoopbackOpenAI(keep_bodies=False).start()
        upstream: str = self._loopback.base_url if self._loopback is not None else str(base_url)
        self.model_calls = RecordingProxy(upstream, key_env=None if self._loopback is not None else key_env,
                                          shown_upstream="loopback" if self._loopback is not None else None)
        """Every call Graphiti makes to its model goes through this proxy; the run drains it onto the ledger."""
        self.model = f"loopback:{llm_model}" if self._loopback is not None else llm_model
        # One loop in its own thread runs every scope's coroutines: the scopes the run prepares at
        # once wait on the same loop, so their model calls overlap there.
        self._loop = asyncio.new_event_loop()
        self._loop_thread = threading.Thread(target=self._loop.run_forever, name="graphiti-loop", daemon=True)
        self._loop_thread.start()
        self._graphs: dict[str, Any] = {}
        self._graphs_lock = threading.Lock()

    def _setup(self) -> None:
        self._conn.execute(f'CREATE TABLE IF NOT EXISTS "{_EPISODES}" (scope TEXT NOT NULL, uuid TEXT NOT NULL, '
                           "doc_ids TEXT NOT NULL, PRIMARY KEY (scope, uuid))")

    # -- graphiti ---------------------------------------------------------------------------

    def _scope_dir(self, scope: str) -> Path:
        return self.root / hashlib.sha256(scope.encode()).hexdigest()[:24]

    def _graph(self, scope: str) -> Any:
        with self._graphs_lock:
            if scope not in self._graphs:
                self._graphs[scope] = self._open_graph(scope)
            return self._graphs[scope]

    def _open_graph(self, scope: str) -> Any:
        os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
        import warnings

        from graphiti_core import Graphiti
        from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
        from graphiti_core.driver.kuzu_driver import KuzuDriver
        from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
        from graphiti_core.llm_client.config import LLMConfig
        from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

        folder = self._scope_dir(scope)
        folder.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():  # "the Kuzu backend is deprecated": known, and the embedded store asked for
            warnings.simplefilter("ignore", DeprecationWarning)
            driver = KuzuDriver(db=str(folder / "graph.kuzu"))
        _create_fulltext_indexes(driver)
        route = self.model_calls.route(scope)  # this scope's calls, told apart from other scopes'
        config = LLMConfig(base_url=route, api_key=PLACEHOLDER_KEY, model=self.llm_model,
                           small_model=self.llm_model)
        graph = Graphiti(graph_driver=driver, llm_client=OpenAIGenericClient(config),
                         embedder=OpenAIEmbedder(OpenAIEmbedderConfig(
                             base_url=route, api_key=PLACEHOLDER_KEY,
                             embedding_model=self.embedder_model, embedding_dim=self.embedding_dims)),
                         cross_encoder=OpenAIRerankerClient(config=config))
        return graph

    def _run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def _release(self, scope: str) -> None:
        with self._graphs_lock:
            graph = self._graphs.pop(scope, None)
        if graph is not None:
            try:
                graph.driver.db.close()
            except Exception:  # already closed: nothing to release
                pass

    # -- StoredMemory hooks -----------------------------------------------------------------

    def _extract_unlocked(self, scope: str, documents: list[Document]) -> list[tuple[str, list[str]]]:
        """Add the batch's episodes in order; returns (episode uuid, its doc_ids) for each."""
        from graphiti_core.nodes import EpisodeType

        graph = self._graph(scope)
        episodes = []
        for group in groups_of(documents, self.granularity):
            body = "\n".join(f"{doc.author or 'unknown'}: {doc.text}" for doc in group)
            try:
                added = self._run(graph.add_episode(
                    name=group[0].doc_id, episode_body=body, source_description=group[0].channel or "message",
                    reference_time=group[0].timestamp or _EPOCH, source=EpisodeType.message))
            except Exception as exc:  # the model, the graph: operational, never a wrong answer
                raise MemorySystemError(f"graphiti add_episode failed: {type(exc).__name__}: {exc}") from exc
            episodes.append((added.episode.uuid, [doc.doc_id for doc in group]))
        return episodes

    def _record_extracted(self, scope: str, batch: list[tuple[int, str, str]], outcome: object) -> None:
        assert isinstance(outcome, list)
        self._conn.executemany(f'INSERT OR REPLACE INTO "{_EPISODES}" (scope, uuid, doc_ids) VALUES (?, ?, ?)',
                               [(scope, uuid, json.dumps(doc_ids)) for uuid, doc_ids in outcome])

    def _whole_groups(self, documents: list[Document]) -> int:
        return whole_groups(documents, self.granularity)

    def _purge(self, scope: str) -> int:
        require_evaluation_store(self._conn, action="purge")  # before the folder, not after
        self._release(scope)
        if self._scope_dir(scope).exists():
            shutil.rmtree(self._scope_dir(scope))
        return purge_scope(self._conn, scope, tables=[self.documents_table, _EPISODES])

    # -- recall -----------------------------------------------------------------------------

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        if k <= 0 or self.state(scope).documents == 0:
            return []
        from graphiti_core.search.search_config import EdgeReranker, EdgeSearchConfig, EdgeSearchMethod, SearchConfig

        config = SearchConfig(edge_config=EdgeSearchConfig(search_methods=[EdgeSearchMethod.cosine_similarity],
                                                           reranker=EdgeReranker.rrf, sim_min_score=-1.0), limit=k)
        try:
            found = self._run(self._graph(scope).search_(query, config=config))
        except Exception as exc:
            raise MemorySystemError(f"graphiti search failed: {type(exc).__name__}: {exc}") from exc
        with self._lock:
            episodes = {uuid: tuple(json.loads(ids)) for uuid, ids in self._conn.execute(
                f'SELECT uuid, doc_ids FROM "{_EPISODES}" WHERE scope = ?', (scope,))}
        drafts = []
        for edge, score in zip(found.edges, found.edge_reranker_scores or [0.0] * len(found.edges)):
            sources = tuple(dict.fromkeys(doc_id for uuid in edge.episodes for doc_id in episodes.get(uuid, ())))
            drafts.append(Candidate(rank=1, score=round(float(score), 6), kind="fact", text=edge.fact,
                                    sources=sources, timestamp=edge.valid_at))
        drafts.sort(key=lambda c: (-c.score, c.text, c.sources))
        return pack_ranked(drafts, k=k, token_budget=token_budget)

    def close(self) -> None:
        for scope in list(self._graphs):
            self._release(scope)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._loop_thread.join()
        self._loop.close()
        self.model_calls.close()
        if self._loopback is not None:
            self._loopback.stop()
            self._loopback = None
        super().close()


def _create_fulltext_indexes(driver: Any) -> None:
    """Graphiti's full-text indexes, by hand: its Kuzu driver creates the schema but not these, and
    its dedup queries need them. An index already made (a reopened scope) is left as it is."""
    import kuzu
    from graphiti_core.driver.driver import GraphProvider
    from graphiti_core.graph_queries import get_fulltext_indices

    conn = kuzu.Connection(driver.db)
    try:
        existing = {row[1] for row in _rows(conn.execute("CALL SHOW_INDEXES() RETURN *"))}
        for statement in get_fulltext_indices(GraphProvider.KUZU):
            name = statement.split("'")[3]
            if name not in existing:
                conn.execute(statement)
    finally:
        conn.close()


def _rows(result: Any) -> list[list[Any]]:
    rows = []
    while result.has_next():
        rows.append(result.get_next())
    return rows
