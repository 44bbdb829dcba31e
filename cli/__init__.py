"""The benchledger command line: thin click commands over the library (no SQL here)."""
