"""The ledger: the append-only, hash-chained event store, and nothing above it.

`benchledger.ledger.recorder` holds the store's interfaces (`EventWriter`, `EventReader`,
`ResponseCacheStore`, `Recorder`) and `CacheEntry`; `benchledger.ledger.store.Ledger` is the
facade over the SQLite implementations (`writer`, `reader`, the guarded response cache in
`cache`, the run's writer lock in `writer_lock`). `benchledger.ledger.events` holds the typed
events; `verify`, `chain`, `blobs`, `references`, `mapper`, `migrations` and `connection` what
they say. The store imports only the bottom layer (`benchledger.errors`, `benchledger.clock`,
`benchledger.values`, `benchledger.text`); runs are orchestrated in `benchledger.orchestration`,
and folds over the events live in `benchledger.projections`.
"""
