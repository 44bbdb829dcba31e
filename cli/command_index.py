"""Each module of `cli.commands`, a checksum of its source, and the name and help of the commands
it declares, so `benchledger --help` lists them without importing them (`cli.lazy_commands`).

Generated: `python -m benchledger.cli.lazy_commands` writes it again.
"""

INDEX: dict[str, tuple[int, tuple[tuple[str, str, str, bool, bool], ...]]] = {
    'agreement': (3664170348, (
        ('agreement', "Judge agreement of two scorers on one run: agreement rate, Cohen's kappa, the disagreements.", '', False, False),
    )),
    'audit': (941516536, (
        ('audit', "Read a score critically: stress-test the run's judge (never counted in the score).", '', False, False),
    )),
    'benchmarks': (704053098, (
        ('benchmarks', 'List the benchmarks installed (entry points in group benchledger.benchmarks).', '', False, False),
    )),
    'blob': (1314460300, (
        ('blob', 'Print a stored body by its SHA-256 digest (context_hash, raw_hash, prompt hashes in the events).', '', False, False),
    )),
    'check': (3481243191, (
        ('check', 'Check a released benchmark folder: counts, missing files, invalid records.', '', False, False),
    )),
    'check_memory': (4190358412, (
        ('check-memory', 'Run the memory contract against a live HTTP memory server, a fresh scope per test.', '', False, False),
    )),
    'combine': (2198629323, (
        ('combine', "Report several runs of one benchmark together (GroupMemBench: the four domains' total).", '', False, False),
    )),
    'compare': (61021165, (
        ('compare', 'Compare runs of one benchmark: per-kind accuracy with intervals, the official number, tokens and latency per question (dollars with --prices), paired tests against the best (McNemar, Holm-corrected); refused (exit 2) unless the runs are like for like, or --allow-differences.', '', False, False),
    )),
    'conformance': (630522242, (
        ('conformance', "Recompute every official fixture under each DIR with benchledger's own code; exit 1 on any mismatch or on a file no check reads.", '', False, False),
    )),
    'diff': (2516534801, (
        ('diff', 'Compare two runs: configuration differences, then per question (accuracy, or recall for retrieval runs) with B - A, a paired bootstrap 95% CI, and what flipped.', '', False, False),
    )),
    'export': (2378437684, (
        ('export', 'Export runs: one as JSON, CSV or a self-contained HTML page; one or more as a SQLite analysis database; one as a bundle a third party verifies (--bundle).', '', False, False),
    )),
    'fetch': (3765133764, (
        ('fetch', "Download BENCHMARK's release and official prompt sources at their pinned revisions, check every file by SHA-256 against the benchmark's pins, derive the official templates, and lay them out where `run` finds them.", '', False, False),
    )),
    'inspect': (2566800720, (
        ('runs', 'List the runs on the ledger, newest first: configuration, status and score.', '', False, False),
        ('show', "Print a run's report (scorecard, or JSON with --json); with --prices, its model calls in dollars.", '', False, False),
        ('events', "List a run's events in order.", '', False, False),
        ('failures', "List a run's operational failures: stage, question, error, and whether a retry resolved it.", '', False, False),
        ('questions', "List a run's question ids with kind and verdict (status, or recall for a retrieval run).", '', False, False),
        ('question', 'Show one question: recalled context with scores, answer, verdicts and reasons, tokens, timings.', '', False, False),
    )),
    'ledger': (3703434353, (
        ('ledger', 'Set up a ledger: a SQLite file, or a schema on a PostgreSQL server shared by a team.', '', False, False),
    )),
    'memories': (3153837531, (
        ('memories', 'List the memory systems installed (entry points in group benchledger.memory).', '', False, False),
    )),
    'purge': (4148336487, (
        ('purge', 'Purge the memory scopes a run kept; a scope another live run holds is left for it.', '', False, False),
    )),
    'rejudge': (639457567, (
        ('rejudge', "Judge a run's recorded answers again under a new scorer id; the answer model is never called.", '', False, False),
    )),
    'replay': (3091340522, (
        ('replay', 'Re-fold every projection from zero (to any point) and print the report; no model is called.', '', False, False),
    )),
    'resume': (2090556278, (
        ('resume', 'Continue an interrupted run: re-check the corpus, re-prepare if the memory lost it, run what is missing.', '', False, False),
    )),
    'retrieval': (2598764638, (
        ('retrieval', 'Score how well a memory system recalls the released evidence (no answer or judge model).', '', False, False),
    )),
    'run': (2643537657, (
        ('run', 'Run a released benchmark against a memory system and record every stage.', '', False, False),
    )),
    'serve_memory': (4034783522, (
        ('serve-memory', 'Serve an installed memory system over HTTP for `run --memory http --memory-url URL`.', '', False, False),
    )),
    'sweep': (1342962018, (
        ('sweep', 'Run a matrix of benchmarks x memory systems x models x epochs, each cell an ordinary run.', '', False, False),
    )),
    'synth': (2708999527, (
        ('synth', 'Write synthetic benchmark releases for scale tests and offline demos.', '', False, False),
    )),
    'transfer': (4175755567, (
        ('push', 'Copy a run of this ledger into another (verified on both sides, hashes kept).', '', False, False),
        ('pull', 'Copy a run of another ledger into this one (verified on both sides, hashes kept).', '', False, False),
    )),
    'verify': (2605433407, (
        ('verify', "Check schema, hash chain, blobs, cached responses and saved views; exit 1 naming the first bad seq. Given a bundle FILE (`export RUN --bundle FILE`), check it offline and print its report again. With --against-source or --spot-check N, check what the run's machine saw against the official source or the provider, and append the check to the run (never in its score); a bundle FILE is verified first, then its run copied into the ledger, where the check is recorded.", '', False, False),
    )),
    'view': (2973507152, (
        ('view', 'Browse the ledger in Datasette, read-only: documented tables, views over the events, canned queries.', '', False, False),
    )),
    'worker': (1480883805, (
        ('worker', 'Run cells of sweeps queued with `sweep run FILE --queue` on this PostgreSQL ledger, one at a time.', '', False, False),
    )),
}
