"""The ledger: the append-only, hash-chained event store, and nothing above it.

`benchledger.ledger.recorder` holds the store's interfaces (`EventWriter`, `EventReader`,
`ResponseCacheStore`, `Recorder`) and `CacheEntry`; `benchledger.ledger.store.Ledger` is the
facade over one implementation of each (`writer`, `reader`, the guarded response cache in
`cache`), written once against `backend.LedgerConnection` for both databases: a SQLite file
(`connection`, `sqlite_connection`, `migrations`, the run's file lock in `writer_lock`) or a
schema on a PostgreSQL server shared by a team (`pg_connection`, `pg_schema`, `pg_store`).
`chain` and `walk` are the hash chains and their checks, `verify` the whole check, `copies` and
`transfer` copying a run between ledgers; `benchledger.ledger.events` holds the typed events;
`blobs`, `references`, `mapper`, `tails` and `urls` what they say. The store imports only the
bottom layer (`benchledger.errors`, `benchledger.clock`, `benchledger.values`, `benchledger.text`,
`benchledger.redaction`); runs are orchestrated in `benchledger.orchestration`, and folds over
the events live in `benchledger.projections`.
"""
