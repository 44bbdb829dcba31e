"""One module per command family; each exposes `COMMANDS`, registered by `cli.main`."""
