"""`official_release` as the pure fold it is: each benchmark's pin table, on both sides.

Streams are made with `events_factory`; what a run recorded of the files it read is set on
`RunConfig.release_files` the way `orchestration/releases.py` records it (a fetched file carries the
receipt's record: source, revision, URL, what it was checked against; a file given by path only its
hash). The record is shown and never counts: only the hash against the package's pin table does.
"""

from __future__ import annotations

from events_factory import GROUPMEM_CONDITIONS, HUB_SHA256, config, groupmem_release, stored, stream

from benchledger.adapters.benchmarks.groupmem.publishable import CONDITIONS as GROUPMEM
from benchledger.adapters.benchmarks.locomo.publishable import CONDITIONS as LOCOMO
from benchledger.adapters.benchmarks.locomo.source import PINS as LOCOMO_PINS
from benchledger.adapters.benchmarks.longmemeval.publishable import CONDITIONS as LONGMEMEVAL
from benchledger.adapters.benchmarks.longmemeval.source import PINS as LONGMEMEVAL_PINS
from benchledger.adapters.benchmarks.longmemeval_v2.publishable import CONDITIONS as LONGMEMEVAL_V2
from benchledger.adapters.benchmarks.memora.publishable import CONDITIONS as MEMORA
from benchledger.adapters.benchmarks.memora.source import PINS as MEMORA_PINS
from benchledger.ledger.events import ReleaseFile
from benchledger.projections.releases import NO_PIN, manifest_sha256, release_line
from benchledger.projections.report import build_report
from benchledger.projections.scorecard import render_scorecard

LOCOMO_PIN = LOCOMO_PINS.pin("locomo10.json")


def _condition(events, conditions):
    report = build_report("r", stored(events), conditions=conditions)
    return {c.name: c for c in report.conditions}["official_release"], report


def _questions(n: int, kind: str = "single_hop") -> dict:
    return {f"q{i}": (kind, "correct") for i in range(n)}


def _locomo(files, n=1986):
    return stream(_questions(n), cfg=config(benchmark="LoCoMo", subset="locomo10", protocol="official",
                                            release_files=files))


def test_locomo_release_pinned_whole_and_nothing_else():
    official = (ReleaseFile(path="locomo10.json", sha256=LOCOMO_PIN.sha256, bytes=LOCOMO_PIN.bytes),)
    met, report = _condition(_locomo(official), LOCOMO)
    assert met.met and f"locomo10.json sha256 {LOCOMO_PIN.sha256} (given by path, not fetched)" in met.reason
    assert f"  release locomo10.json sha256 {LOCOMO_PIN.sha256}" in render_scorecard(report)
    # the pin holds whatever the file is called, and a fetched copy says where it came from
    fetched = (official[0].model_copy(update={"path": "mine.json", "origin": "github.com/snap-research/LoCoMo",
                                              "revision": "3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376",
                                              "published": f"pinned sha256 {LOCOMO_PIN.sha256}"}),)
    met, _ = _condition(_locomo(fetched), LOCOMO)
    assert met.met and "fetched from github.com/snap-research/LoCoMo @ 3eb6f2c585f5" in met.reason
    edited = (official[0].model_copy(update={"sha256": "0" * 64}),)
    unmet, _ = _condition(_locomo(edited), LOCOMO)
    assert not unmet.met and unmet.reason == (f"locomo10.json is not the official LoCoMo file "
                                              f"(SHA-256 000000000000…, pinned {LOCOMO_PIN.sha256[:12]}…)")
    # a receipt that vouches for the other bytes, as a hand-written one would, changes nothing
    vouched = (edited[0].model_copy(update={"origin": "github.com/snap-research/LoCoMo", "revision": "3" * 40,
                                            "published": f"pinned sha256 {'0' * 64}"}),)
    assert _condition(_locomo(vouched), LOCOMO)[0].reason == unmet.reason
    partial, _ = _condition(_locomo(official, n=48), LOCOMO)
    assert not partial.met and partial.reason == "48 of 1,986 LoCoMo questions"


def test_a_run_that_recorded_no_release_files_is_not_the_official_release():
    unmet, _ = _condition(_locomo(()), LOCOMO)
    assert not unmet.met and "recorded no release files" in unmet.reason


def _longmemeval(files, n=500):
    return stream(_questions(n, "temporal-reasoning"), cfg=config(benchmark="LongMemEval", subset="longmemeval_s",
                                                                  protocol="official", release_files=files))


def test_longmemeval_is_official_at_its_pins_however_it_arrived():
    pin = LONGMEMEVAL_PINS.pin("longmemeval_s_cleaned.json")
    by_path = (ReleaseFile(path="longmemeval_s_cleaned.json", sha256=pin.sha256, bytes=pin.bytes),)
    met, _ = _condition(_longmemeval(by_path), LONGMEMEVAL)
    assert met.met and "(given by path, not fetched)" in met.reason
    # other bytes, fetched from a hub that published exactly those bytes: the pin refuses them
    other = "a" * 64
    fetched = (by_path[0].model_copy(update={"sha256": other, "origin": "huggingface.co/datasets/x/longmemeval-cleaned",
                                             "revision": "b" * 40, "published": f"hub sha256 {other}"}),)
    unmet, _ = _condition(_longmemeval(fetched), LONGMEMEVAL)
    assert not unmet.met and unmet.reason.startswith("longmemeval_s_cleaned.json is not the official LongMemEval file")
    # a file of the release the table does not know is never checked
    stray = (ReleaseFile(path="longmemeval_s.json", sha256=pin.sha256, bytes=pin.bytes),)
    unmet, _ = _condition(_longmemeval(stray), LONGMEMEVAL)
    assert not unmet.met and unmet.reason == f"no pin for longmemeval_s.json: {NO_PIN}"
    few, _ = _condition(_longmemeval(by_path, n=3), LONGMEMEVAL)
    assert not few.met and few.reason == "3 of 500 LongMemEval questions"


def test_longmemeval_v2_has_no_pins_so_no_fetch_makes_it_official():
    sha = "d" * 64
    fetched = tuple(ReleaseFile(path=name, sha256=sha, bytes=10, origin="huggingface.co/datasets/xiaowu0162/longmemeval-v2",
                                revision="e" * 40, published=f"hub sha256 {sha}")
                    for name in ("questions.jsonl", "trajectories.jsonl", "haystacks/lme_v2_small.json"))
    events = stream(_questions(3, "static-state-recall"), cfg=config(
        benchmark="LongMemEval-V2", subset="web", protocol="official", release_files=fetched), available_questions=3)
    unmet, _ = _condition(events, LONGMEMEVAL_V2)
    assert not unmet.met
    assert unmet.reason == f"no pin for questions.jsonl: {NO_PIN} (and 2 more file(s) without a pin)"


def _memora(files):
    return stream(_questions(3, "remembering"), cfg=config(benchmark="Memora", subset="weekly", protocol="official",
                                                          release_files=files))


def test_memora_reads_exactly_the_split_at_its_pins():
    whole = tuple(ReleaseFile(path=pin.path, sha256=pin.sha256, bytes=pin.bytes) for pin in MEMORA_PINS.pins()
                  if pin.path.startswith("weekly/"))
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


def test_groupmem_corpus_has_no_pin_and_its_question_sets_are_pinned():
    outcomes = {"q1": ("temporal", "correct")}
    corpus = "data/final/Finance/synthetic_domain_channels_rolevariants_Finance.json"
    unmet, _ = _condition(stream(outcomes), GROUPMEM)
    assert not unmet.met and unmet.reason == f"no pin for {corpus}: {NO_PIN}"
    # a receipt's record of any kind ("hub git-blob <anything>") is not a pin
    blob = tuple(f.model_copy(update={"published": "hub git-blob 0000"}) if f.path == corpus else f
                 for f in groupmem_release("Finance"))
    assert _condition(stream(outcomes, cfg=config(release_files=blob)), GROUPMEM)[0].reason == unmet.reason
    # with the corpus pinned (the tests' own table), the same stream is official, by path or fetched
    met, _ = _condition(stream(outcomes), GROUPMEM_CONDITIONS)
    assert met.met
    by_path = tuple(f.model_copy(update={"origin": None, "revision": None, "published": None, "url": None})
                    for f in groupmem_release("Finance"))
    assert _condition(stream(outcomes, cfg=config(release_files=by_path)), GROUPMEM_CONDITIONS)[0].met
    other = tuple(f.model_copy(update={"sha256": "f" * 64, "published": f"hub sha256 {'f' * 64}"}) if f.path == corpus
                  else f for f in groupmem_release("Finance"))
    unmet, _ = _condition(stream(outcomes, cfg=config(release_files=other)), GROUPMEM_CONDITIONS)
    assert not unmet.met and unmet.reason.startswith(f"{corpus} is not the official GroupMemBench file")
    edited = tuple(f.model_copy(update={"sha256": "3" * 64}) if f.path.endswith("temporal.jsonl") else f
                   for f in groupmem_release("Finance"))
    unmet, _ = _condition(stream(outcomes, cfg=config(release_files=edited)), GROUPMEM)
    assert not unmet.met and unmet.reason.startswith("questions/Finance/temporal.jsonl is not the official")
    assert HUB_SHA256 not in unmet.reason


def test_the_release_line_names_what_a_third_party_needs():
    assert release_line(()) == "not recorded (the run predates release pinning)"
    files = groupmem_release("Finance")
    line = release_line(files)
    assert line.startswith(f"{len(files)} files") and f"manifest sha256 {manifest_sha256(files)}" in line
    assert "fetched from huggingface.co/datasets/kimperyang/GroupMemBench @ cccccccccccc" in line
    assert f"({len(files) - 1} file(s) given by path)" in line and "not the source's own host" not in line
    # a --hub of one's own shows, with the host the bytes actually came from
    mirrored = tuple(f.model_copy(update={"url": f.url.replace("https://huggingface.co", "http://127.0.0.1:8123")})
                     if f.url else f for f in files)
    assert "through http://127.0.0.1:8123, not the source's own host" in release_line(mirrored)
    copied = tuple(f.model_copy(update={"url": "file:///home/me/groupmem"}) for f in files)
    assert release_line(copied).endswith("copied from /home/me/groupmem")
