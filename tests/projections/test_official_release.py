"""`official_release` as the pure fold it is: each benchmark's release pins, on both sides.

Streams are made with `events_factory`; what a run recorded of the files it read is set on
`RunConfig.release_files` the way `orchestration/releases.py` records it (fetched files carry
their source, revision and the hash the source published; files given by path only their hash).
"""

from __future__ import annotations

from events_factory import config, groupmem_release, stored, stream

from benchledger.adapters.benchmarks.locomo.publishable import CONDITIONS as LOCOMO
from benchledger.adapters.benchmarks.locomo.source import RELEASE_SHA256
from benchledger.adapters.benchmarks.longmemeval.publishable import CONDITIONS as LONGMEMEVAL
from benchledger.adapters.benchmarks.memora.publishable import CONDITIONS as MEMORA
from benchledger.adapters.benchmarks.memora.source import release_pins
from benchledger.ledger.events import ReleaseFile
from benchledger.projections.releases import NOT_FETCHED, manifest_sha256, release_line
from benchledger.projections.report import build_report
from benchledger.projections.scorecard import render_scorecard
from benchledger.adapters.benchmarks.groupmem.publishable import CONDITIONS as GROUPMEM


def _condition(events, conditions):
    report = build_report("r", stored(events), conditions=conditions)
    return {c.name: c for c in report.conditions}["official_release"], report


def _questions(n: int, kind: str = "single_hop") -> dict:
    return {f"q{i}": (kind, "correct") for i in range(n)}


def _locomo(files, n=1986):
    return stream(_questions(n), cfg=config(benchmark="LoCoMo", subset="locomo10", protocol="official",
                                            release_files=files))


def test_locomo_release_pinned_whole_and_nothing_else():
    official = (ReleaseFile(path="locomo10.json", sha256=RELEASE_SHA256, bytes=2_805_274),)
    met, report = _condition(_locomo(official), LOCOMO)
    assert met.met and f"locomo10.json sha256 {RELEASE_SHA256} (given by path, not fetched)" in met.reason
    assert f"  release locomo10.json sha256 {RELEASE_SHA256}" in render_scorecard(report)
    # the pin holds whatever the file is called, and a fetched copy says where it came from
    fetched = (official[0].model_copy(update={"path": "mine.json", "origin": "github.com/snap-research/LoCoMo",
                                              "revision": "3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376",
                                              "published": f"pinned sha256 {RELEASE_SHA256}"}),)
    met, _ = _condition(_locomo(fetched), LOCOMO)
    assert met.met and "fetched from github.com/snap-research/LoCoMo @ 3eb6f2c585f5" in met.reason
    edited = (official[0].model_copy(update={"sha256": "0" * 64}),)
    unmet, _ = _condition(_locomo(edited), LOCOMO)
    assert not unmet.met and unmet.reason == (f"locomo10.json is not the official LoCoMo file "
                                              f"(SHA-256 000000000000…, pinned {RELEASE_SHA256[:12]}…)")
    partial, _ = _condition(_locomo(official, n=48), LOCOMO)
    assert not partial.met and partial.reason == "48 of 1,986 LoCoMo questions"


def test_a_run_that_recorded_no_release_files_is_not_the_official_release():
    unmet, _ = _condition(_locomo(()), LOCOMO)
    assert not unmet.met and "recorded no release files" in unmet.reason


def _longmemeval(files, n=500):
    return stream(_questions(n, "temporal-reasoning"), cfg=config(benchmark="LongMemEval", subset="longmemeval_s",
                                                                  protocol="official", release_files=files))


def test_longmemeval_must_be_fetched_as_the_hub_published_it():
    sha = "a" * 64
    by_path = (ReleaseFile(path="longmemeval_s_cleaned.json", sha256=sha, bytes=10),)
    unmet, _ = _condition(_longmemeval(by_path), LONGMEMEVAL)
    assert not unmet.met and unmet.reason == f"{NOT_FETCHED} (longmemeval_s_cleaned.json)"
    fetched = (by_path[0].model_copy(update={"origin": "huggingface.co/datasets/xiaowu0162/longmemeval-cleaned",
                                             "revision": "b" * 40, "published": f"hub sha256 {sha}"}),)
    met, _ = _condition(_longmemeval(fetched), LONGMEMEVAL)
    assert met.met and "fetched from huggingface.co/datasets/xiaowu0162/longmemeval-cleaned @ bbbbbbbbbbbb" in met.reason
    # a receipt whose published hash is not the bytes read does not count as fetched
    other = (fetched[0].model_copy(update={"published": "hub sha256 " + "c" * 64}),)
    assert not _condition(_longmemeval(other), LONGMEMEVAL)[0].met
    few, _ = _condition(_longmemeval(fetched, n=3), LONGMEMEVAL)
    assert not few.met and few.reason == "3 of 500 LongMemEval questions"


def _memora(files):
    return stream(_questions(3, "remembering"), cfg=config(benchmark="Memora", subset="weekly", protocol="official",
                                                          release_files=files))


def test_memora_reads_exactly_the_split_at_its_pins():
    split = {path.removeprefix("data/"): pin for path, pin in release_pins().items() if path.startswith("data/weekly/")}
    whole = tuple(ReleaseFile(path=path, sha256=sha, bytes=size) for path, (sha, size) in sorted(split.items()))
    met, _ = _condition(_memora(whole), MEMORA)
    assert met.met and f"{len(whole):,} files" in met.reason and manifest_sha256(whole) in met.reason
    personas = sorted({f.path.split("/")[1] for f in whole})
    two = tuple(f for f in whole if f.path.split("/")[1] in personas[:2])
    unmet, _ = _condition(_memora(two), MEMORA)
    assert not unmet.met and unmet.reason == f"2 of {len(personas)} Memora personas of the weekly split"
    edited = (whole[0].model_copy(update={"sha256": "1" * 64}), *whole[1:])
    unmet, _ = _condition(_memora(edited), MEMORA)
    assert not unmet.met and unmet.reason.startswith(f"{whole[0].path} is not the official Memora file")
    stray = (*whole, ReleaseFile(path="weekly/made_up/conversations/session_0001.json", sha256="2" * 64, bytes=1))
    unmet, _ = _condition(_memora(stray), MEMORA)
    assert not unmet.met and "weekly/made_up/conversations/session_0001.json is not a file" in unmet.reason


def test_groupmem_corpus_fetched_and_question_sets_pinned():
    outcomes = {"q1": ("temporal", "correct")}
    met, _ = _condition(stream(outcomes), GROUPMEM)
    assert met.met
    renamed = tuple(f.model_copy(update={"origin": None, "revision": None, "published": None})
                    if f.path.startswith("data/") else f for f in groupmem_release("Finance"))
    unmet, _ = _condition(stream(outcomes, cfg=config(release_files=renamed)), GROUPMEM)
    assert not unmet.met and unmet.reason.startswith(NOT_FETCHED)
    edited = tuple(f.model_copy(update={"sha256": "3" * 64}) if f.path.endswith("temporal.jsonl") else f
                   for f in groupmem_release("Finance"))
    unmet, _ = _condition(stream(outcomes, cfg=config(release_files=edited)), GROUPMEM)
    assert not unmet.met and unmet.reason.startswith("questions/Finance/temporal.jsonl is not the official")


def test_the_release_line_names_what_a_third_party_needs():
    assert release_line(()) == "not recorded (the run predates release pinning)"
    files = groupmem_release("Finance")
    line = release_line(files)
    assert line.startswith(f"{len(files)} files") and f"manifest sha256 {manifest_sha256(files)}" in line
    assert "fetched from huggingface.co/datasets/kimperyang/GroupMemBench @ cccccccccccc" in line
    assert f"({len(files) - 1} file(s) given by path)" in line
