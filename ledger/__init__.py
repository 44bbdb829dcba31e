"""The ledger: the append-only, hash-chained event store, and nothing above it.

`benchledger.ledger.events` holds the typed events; `benchledger.ledger.store` the SQLite store
(writer and reader); `verify`, `chain`, `blobs`, `mapper` and `migrations` what they say. The
store imports only the bottom layer (`benchledger.errors`, `benchledger.clock`,
`benchledger.values`); runs are orchestrated in `benchledger.orchestration`, and folds over the
events live in `benchledger.projections`.
"""
