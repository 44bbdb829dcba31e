"""A run as one self-contained file a third party checks offline: `export RUN --bundle FILE [--sign KEY]`.

A bundle is one JSON document holding everything needed to re-fold the run's report with nothing
else at hand: the run's event rows exactly as stored (payload, hashes, links), every blob they
name, the cached responses they recorded, and, for a reader's convenience, what those events say
about the release (its files and manifest SHA-256) and the provider evidence of each segment, with
the pins the exporting package checked the release against, and the run's head.

What a bundle says is never taken on trust by `verify FILE` (`orchestration.bundle_check`): the rows
are copied into an empty ledger that re-hashes and re-links every one from the genesis of the run,
the release and evidence sections must be the ones the events record, and the report is folded
again by the verifier's own package, under its own pins.

**What the signature covers.** `--sign KEY` signs one statement, canonical JSON of the bundle
format, the run id, the head (the hash of the run's last event, which chains every event and, by
their digests, every blob) and the SHA-256 of the pins the bundle carries. A whole-file rewrite
that changes one event and re-chains the rest is consistent on its own, and `verify` alone cannot
see it; its head is no longer the signed one. The signer's public key travels in the bundle only as
information: an attacker who re-signs the rewrite with a key of their own makes a valid signature,
so who signed is the verifier's choice (`--signer PUBKEY`, the key they got from the author), and
without it `verify` says the bundle's author is unchecked.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict

from benchledger import __version__
from benchledger.adapters.benchmarks.registry import benchmark_for_run
from benchledger.clock import now_iso
from benchledger.ledger.copies import CopiedRow, RunCopy
from benchledger.ledger.events import Endpoint, ReleaseFile
from benchledger.ledger.recorder import EventReader
from benchledger.projections.releases import manifest_sha256
from benchledger.projections.state import RunState, fold_run
from benchledger.signing import SigningKey

__all__ = ["BUNDLE_FORMAT", "Bundle", "BundleSignature", "Pin", "SegmentEvidence", "make_bundle", "statement",
           "pins_of", "pins_sha256", "release_of", "evidence_of"]

BUNDLE_FORMAT: Literal["benchledger-bundle/1"] = "benchledger-bundle/1"


class Pin(BaseModel):
    """What the exporting package pins for one official file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sha256: str
    bytes: int | None = None
    source: str
    """Where the file is published (`github.com/<owner>/<repo> @ <commit>`, a hub dataset)."""


class SegmentEvidence(BaseModel):
    """Where one segment of the run sent its model calls, as the runner's machine recorded it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    segment: str
    endpoint: Endpoint | None


class BundleSignature(BaseModel):
    """An Ed25519 signature over `statement` (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    algorithm: Literal["ed25519"] = "ed25519"
    public_key: str
    """The signer's public key (PEM): information only, never what the signature is checked against
    when the verifier names a key."""
    fingerprint: str
    """SHA-256 of the public key's 32 raw bytes."""
    statement: str
    """The exact bytes signed (UTF-8 JSON)."""
    value: str
    """The signature, base64."""


class Bundle(BaseModel):
    """One run, self-contained; see the module docstring."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["benchledger-bundle/1"] = BUNDLE_FORMAT
    run_id: str
    head: str
    """Hash of the run's last event."""
    exported_by: str
    """The package that wrote the bundle (`benchledger <version>`)."""
    exported_at: str
    rows: tuple[CopiedRow, ...]
    blobs: dict[str, str]
    """digest -> the blob's bytes, base64."""
    responses: tuple[tuple[str, str, str, str, str, str, str], ...] = ()
    """The guarded response cache rows the run's events recorded."""
    release: tuple[ReleaseFile, ...]
    """The release files the run read, as its start recorded them."""
    release_manifest_sha256: str
    pins: dict[str, Pin]
    """release path -> what the exporting package pins for it."""
    provider_evidence: tuple[SegmentEvidence, ...]
    signature: BundleSignature | None = None

    def run_copy(self) -> RunCopy:
        blobs = [(digest, base64.b64decode(body, validate=True)) for digest, body in sorted(self.blobs.items())]
        return RunCopy(self.run_id, list(self.rows), blobs, list(self.responses), [])


def pins_of(benchmark_name: str) -> dict[str, Pin]:
    """The pins the installed package declares for a benchmark's official files, by release path."""
    benchmark = benchmark_for_run(benchmark_name)
    table = benchmark.pin_table() if benchmark is not None else None
    pins = {pin.path: Pin(sha256=pin.sha256, bytes=pin.bytes, source=f"{pin.origin} @ {pin.revision}")
            for pin in (table.pins() if table is not None else ()) if pin.role == "release"}
    return dict(sorted(pins.items()))


def _canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def pins_sha256(pins: Mapping[str, Pin]) -> str:
    return hashlib.sha256(_canonical({path: pin.model_dump() for path, pin in pins.items()})).hexdigest()


def statement(run_id: str, head: str, pins: Mapping[str, Pin]) -> bytes:
    """The bytes a bundle's signature covers."""
    return _canonical({"format": BUNDLE_FORMAT, "run_id": run_id, "head": head, "pins_sha256": pins_sha256(pins)})


def release_of(state: RunState) -> tuple[ReleaseFile, ...]:
    return tuple(state.started.config.release_files) if state.started is not None else ()


def evidence_of(state: RunState) -> tuple[SegmentEvidence, ...]:
    return tuple(SegmentEvidence(segment=segment.label, endpoint=segment.endpoint) for segment in state.segments)


def make_bundle(reader: EventReader, run_ref: str, *, key: SigningKey | None = None) -> Bundle:
    """The bundle of the run `run_ref` names (read once it verifies), signed with `key` when given."""
    run_id = reader.resolve_run(run_ref)
    copy = reader.run_copy(run_id)
    state = fold_run(run_id, reader.verified_events(run_id))
    release = release_of(state)
    pins = pins_of(state.started.config.benchmark) if state.started is not None else {}
    signature = None
    if key is not None:
        signed = statement(run_id, copy.head, pins)
        signature = BundleSignature(public_key=key.public_pem, fingerprint=key.fingerprint,
                                    statement=signed.decode("utf-8"), value=key.sign(signed))
    return Bundle(run_id=run_id, head=copy.head, exported_by=f"benchledger {__version__}", exported_at=now_iso(),
                  rows=tuple(copy.rows), blobs={d: base64.b64encode(b).decode("ascii") for d, b in copy.blobs},
                  responses=tuple(copy.responses), release=release, release_manifest_sha256=manifest_sha256(release),
                  pins=pins, provider_evidence=evidence_of(state), signature=signature)
