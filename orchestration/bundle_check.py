"""`verify FILE`: a bundle checked and its report re-folded from the bundle alone, offline.

`check_bundle` copies the bundle's rows into an empty ledger in a temporary folder (nothing is
written where it runs), which re-hashes every row and re-links it to the one before from the
run's genesis, re-hashes every blob and checks the store's rules, as `push`/`pull` do; `verify`
then checks the run there (keys, first-wins, seal, cached responses) and its head must be the
one the bundle names. The release and provider-evidence sections must be what the events record
(they are a convenience, never a second source). The report is folded again by the installed
package, so `official_release` is judged against the verifier's own pins; the bundle's pins are
compared with them and the difference said.

Then who made it (see `orchestration.bundle` for what the signature covers): with `--signer
PUBKEY` the signature must be that key's over this run and this head; with none, a signature is
checked against the key the bundle carries and the author is said to be unchecked, and an
unsigned bundle is said to be unsigned. `--expect-head H` pins the head a reader was given.
Every refusal is one line (`CheckFailed`, exit 1).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from benchledger import __version__
from benchledger.errors import BadInput, BenchledgerError, CheckFailed
from benchledger.json_input import GiB, load_file
from benchledger.ledger.store import Ledger
from benchledger.orchestration.bundle import Bundle, evidence_of, pins_of, pins_sha256, release_of, statement
from benchledger.orchestration.recorded import recorded_run
from benchledger.orchestration.reports import refold_views
from benchledger.projections.releases import manifest_sha256
from benchledger.projections.report import Report
from benchledger.projections.state import fold_run
from benchledger.signing import check_signature, fingerprint

__all__ = ["CheckedBundle", "check_bundle", "read_bundle", "is_bundle", "MAX_BUNDLE_BYTES"]

MAX_BUNDLE_BYTES = 2 * GiB
"""The largest bundle read (2 GiB): a whole LongMemEval-S run with its contexts is far below."""


@dataclass(frozen=True)
class CheckedBundle:
    report: Report
    checked: list[str]
    """What was checked, one line each, in the order it was."""


def is_bundle(path: Path) -> bool:
    """Whether `verify` is given a FILE rather than a RUN: a file by that name exists (a run id or
    prefix never names one in practice; `verify ./RUN` would, and is then read as a bundle)."""
    return path.is_file()


def read_bundle(path: Path) -> Bundle:
    """The bundle in `path`, or BadInput naming the file and the first field that is wrong."""
    value, _ = load_file(path, limit=MAX_BUNDLE_BYTES)  # size and depth bounded, one line on refusal
    try:
        return Bundle.model_validate(value)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(the document)"
        raise BadInput(f"not a benchledger bundle ({first['msg']})", file=str(path), field=where) from None


def _signer_line(bundle: Bundle, signer: bytes | None) -> str:
    """What the signature says about who made the bundle, or CheckFailed."""
    signed = statement(bundle.run_id, bundle.head, bundle.pins)
    signature = bundle.signature
    if signature is None:
        if signer is not None:
            raise CheckFailed(f"the bundle is unsigned, so it is not signed by the key you named "
                              f"(sha256 {fingerprint(signer)[:16]}…)")
        return "unsigned: nothing in the bundle says who made it (its author is unchecked)"
    if signature.statement.encode("utf-8") != signed:
        raise CheckFailed(f"the signature covers another statement than this bundle's run, head {bundle.head[:16]}… "
                          "and pins: the bundle was changed after it was signed")
    if signer is not None:
        if fingerprint(signer) != signature.fingerprint or not check_signature(signer, signed, signature.value):
            raise CheckFailed(f"the signature is not by the key you named (sha256 {fingerprint(signer)[:16]}…); "
                              f"the bundle names key sha256 {signature.fingerprint[:16]}…")
        return f"signed: Ed25519 by the key you named (sha256 {signature.fingerprint[:16]}…) over run, head and pins"
    from benchledger.signing import public_key_from_pem

    carried = public_key_from_pem(signature.public_key.encode("ascii"), where="the bundle", field="signature")
    if fingerprint(carried) != signature.fingerprint or not check_signature(carried, signed, signature.value):
        raise CheckFailed("the signature does not verify against the key the bundle carries")
    return (f"signed by key sha256 {signature.fingerprint[:16]}…, which the bundle itself carries: anyone can "
            "sign with a key of their own, so who made it is unchecked; pass --signer PUBKEY, the author's key")


def _pins_line(bundle: Bundle, benchmark: str) -> str:
    own = pins_of(benchmark)
    if pins_sha256(own) == pins_sha256(bundle.pins):
        return f"pins: the bundle's {len(own)} pins for {benchmark} are this package's (official_release uses them)"
    differ = sorted(set(own) ^ set(bundle.pins) | {p for p in set(own) & set(bundle.pins) if own[p] != bundle.pins[p]})
    return (f"pins: the bundle's pins for {benchmark} differ from this package's in {len(differ)} file(s) "
            f"({', '.join(differ[:3])}); official_release above uses this package's")


def check_bundle(path: Path, *, expect_head: str | None = None, signer: bytes | None = None) -> CheckedBundle:
    """Check the bundle in `path` and fold its report (see the module docstring); CheckFailed if it fails."""
    bundle = read_bundle(path)
    if expect_head is not None and bundle.head != expect_head:
        raise CheckFailed(f"the bundle's head is {bundle.head}, not the expected {expect_head}")
    with tempfile.TemporaryDirectory(prefix="benchledger-bundle-") as folder:
        with Ledger.open(Path(folder) / "bundle.db") as ledger:
            try:
                ledger.writer.copy_in(bundle.run_copy())
            except BenchledgerError as err:
                raise CheckFailed(f"the bundle's events do not check: {err}") from None
            result = ledger.reader.verify(bundle.run_id, refold=refold_views)
            if not result.ok:
                raise CheckFailed(f"the bundle's run does not verify: {result.problem}")
            if result.head != bundle.head:
                raise CheckFailed(f"the bundle names head {bundle.head}, and its events end at {result.head}")
            state = fold_run(bundle.run_id, ledger.reader.verified_events(bundle.run_id))
            release = release_of(state)
            if release != bundle.release or manifest_sha256(release) != bundle.release_manifest_sha256:
                raise CheckFailed("the bundle's release section is not what its events record")
            if evidence_of(state) != bundle.provider_evidence:
                raise CheckFailed("the bundle's provider evidence is not what its events record")
            report = recorded_run(ledger.reader, bundle.run_id).report()
    assert state.started is not None
    checked = [
        f"events: {result.checked} of run {bundle.run_id} re-hashed and re-linked from the run's genesis to head "
        f"{bundle.head} (schema, keys, store rules, blobs, cached responses), in an empty ledger",
        f"release: {len(release)} files, manifest sha256 {bundle.release_manifest_sha256[:16]}…, and the provider "
        f"evidence of {len(bundle.provider_evidence)} segment(s): as the events record them",
        _pins_line(bundle, state.started.config.benchmark),
        f"head: {'the one you expected' if expect_head else 'not pinned (pass --expect-head H, the head you were given)'}",
        _signer_line(bundle, signer),
        f"report: folded again from the bundle alone by benchledger {__version__} (exported by "
        f"{bundle.exported_by} at {bundle.exported_at})",
    ]
    return CheckedBundle(report=report, checked=checked)
