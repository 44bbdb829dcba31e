"""Hand-made event streams for projection tests: a run described in a few lines."""

from __future__ import annotations

from types import SimpleNamespace

from benchledger.adapters.benchmarks.groupmem.publishable import CONDITIONS
from benchledger.adapters.benchmarks.groupmem.source import DOMAINS, HUB_DATASET, PINS
from benchledger.ledger.events import (
    ChainCertificate, CorpusFingerprinted, Endpoint, Failed, Judged, Provenance, QuestionAnswered, QuestionsPlanned, ReleaseFile,
    RunConfig, RunFinished, RunStarted, ScopeVerified, ScorerStarted, ServerCertificate,
    TlsEvidence,
)
from benchledger.pins import Pin, PinTable
from benchledger.projections.publishable import condition_name
from benchledger.projections.releases import official_release
from benchledger.settings import RunSettings, Selection
from benchledger.values import Question as PlannedQuestion

__all__ = ["config", "stream", "stored", "groupmem_release", "GROUPMEM_CONDITIONS", "PROVIDER", "OPENAI_TLS"]

OPENAI_TLS = TlsEvidence(
    host="api.openai.com", port=443, addresses=("162.159.140.245",), address="162.159.140.245",
    chain=(ChainCertificate(sha256="ab" * 32, subject="CN=api.openai.com",
                            issuer="C=US, O=Google Trust Services, CN=WE1"),
           ChainCertificate(sha256="cd" * 32, subject="C=US, O=Google Trust Services, CN=WE1",
                            issuer="C=US, O=Google Trust Services LLC, CN=GTS Root R4"),
           ChainCertificate(sha256="ef" * 32, subject="C=US, O=Google Trust Services LLC, CN=GTS Root R4",
                            issuer="C=US, O=Google Trust Services LLC, CN=GTS Root R4")),
    root_store="certifi 2026.10.19", trusted=True)
"""What a probe of OpenAI's API records: a public address, a chain ending in the shipped root store."""
PROVIDER = Endpoint(base_url=None, api_key_env="OPENAI_API_KEY", certificate=ServerCertificate(
    sha256="ab" * 32, subject="CN=api.openai.com", issuer="C=US, O=Google Trust Services, CN=WE1"), tls=OPENAI_TLS)
"""The openai SDK's default endpoint (OpenAI's API) with the certificate and chain a probe verified there."""

HUB_SHA256 = "e" * 64
"""The SHA-256 of the made-up corpus file of a made-up GroupMemBench stream."""


def _corpus(domain: str) -> str:
    return f"data/final/{domain}/synthetic_domain_channels_rolevariants_{domain}.json"


def groupmem_release(domain: str) -> tuple[ReleaseFile, ...]:
    """The release of a GroupMemBench domain as a run records it: the question sets and prompts at their
    pins (given by path), and the corpus fetched from the hub (its hash the made-up HUB_SHA256)."""
    pinned = tuple(ReleaseFile(path=pin.path, sha256=pin.sha256, bytes=pin.bytes) for pin in PINS.pins()
                   if pin.path.startswith((f"questions/{domain}/", "prompts/")))
    corpus = ReleaseFile(path=_corpus(domain), sha256=HUB_SHA256, bytes=1000, origin=f"huggingface.co/datasets/{HUB_DATASET}",
                         revision="c" * 40, published=f"hub sha256 {HUB_SHA256}",
                         url=f"https://huggingface.co/datasets/{HUB_DATASET}/resolve/{'c' * 40}/{_corpus(domain)}")
    return (corpus, *pinned)


_TEST_PINS = PinTable("GroupMemBench", tuple(entry for entry in PINS if isinstance(entry, Pin)) + tuple(
    Pin(_corpus(domain), HUB_SHA256, 1000, f"huggingface.co/datasets/{HUB_DATASET}", "c" * 40, _corpus(domain),
        "the tests: the made-up corpus of the made-up streams") for domain in DOMAINS))
GROUPMEM_CONDITIONS = tuple(official_release("GroupMemBench", _TEST_PINS) if condition_name(check) == "official_release"
                            else check for check in CONDITIONS)
"""GroupMemBench's conditions with the corpus of these streams pinned, as if a public source stated its
SHA-256: the package's own table has no corpus pin, so no GroupMemBench stream can be publishable under
`CONDITIONS`. Tests of the other conditions fold with these, to have a publishable stream to break."""


def config(**overrides) -> RunConfig:
    """A RunConfig; overrides may name RunConfig, RunSettings or Selection fields alike (any other
    name is a field of the benchmark's own selection, such as Memora's `split`)."""
    base = dict(benchmark="GroupMemBench", subset="Finance", corpus_path="/c", memory="sqlite", endpoint=PROVIDER,
                memory_version="1", agent_model="gpt-5", judge_model="gpt-5", offline_models=False,
                protocol="reference", k=10,
                prompt_hashes={"agent_system": "c2019778844ba90e854d80bf25a9a0a316c50538acb9c12ce6dd070b7013865d",
                               "judge_system": "abcd96fd2df5eff8d4d32d516da7d84847478a03928d39456f54770657966fc1"})
    base.update(overrides)
    settings = {name: base.pop(name) for name in list(base) if name in RunSettings.model_fields
                and name not in RunConfig.model_fields}
    settings.setdefault("memory_store", "/m/sqlite.sqlite")
    selection = {name: base.pop(name) for name in list(base) if name in Selection.model_fields
                 or name not in RunConfig.model_fields}  # a benchmark's own selection fields (split, personas)
    for name in ("agent_model", "judge_model"):
        settings.setdefault(name, None if base[name].startswith("offline-") else base[name])
    if base["benchmark"] == "GroupMemBench":
        selection.setdefault("domain", base["subset"])
        base.setdefault("release_files", groupmem_release(base["subset"]))
    return RunConfig(**base, settings=RunSettings(**settings), selection=Selection(**selection))


def stored(events) -> list:
    """Wrap events like stored rows (seq, position, hash) so projections can fold them."""
    return [SimpleNamespace(event=e, seq=i, position=i, hash=f"h{i}") for i, e in enumerate(events, start=1)]


def stream(outcomes: dict[str, tuple[str, str]], *, cfg: RunConfig | None = None, finished: bool = True,
           documents: int = 100, available: int = 100, planned: tuple[PlannedQuestion, ...] | None = None,
           scopes: dict[str, int] | None = None, scorer: dict | None = None, kinds_available: tuple[str, ...] = (),
           verdict_model: str | None = None, available_questions: int | None = None) -> list:
    """outcomes: question_id -> (kind, "correct" | "incorrect" | "unclear" | "failed:<stage>" | "pending").

    `planned` replaces the made-up questions (e.g. with a released question set); `scopes` names
    several scopes (scope key -> documents, e.g. one per LoCoMo conversation) instead of one of
    `documents`; `scorer` overrides fields of the run's ScorerStarted (an official method, judges);
    `verdict_model` is the model the verdicts report (default: the run's judge);
    `available_questions` is how many questions the release holds (default: as many as planned)."""
    cfg = cfg or config()
    planned = planned or tuple(
        PlannedQuestion(question_id=q, kind=k, text=f"q {q}", gold="g") for q, (k, _) in outcomes.items())
    scopes = scopes or {"default": documents}
    events = [
        RunStarted(config=cfg, provenance=Provenance(package_version="t", python="3.11")),
        QuestionsPlanned(questions=planned, available=len(planned) if available_questions is None
                         else available_questions, kinds_available=kinds_available),
        CorpusFingerprinted(fingerprint="f" * 64, adapter_version="a", scopes={key: f"s-{key}" for key in scopes},
                            expected_documents=dict(scopes),
                            documents_available=available if len(scopes) == 1 else sum(scopes.values())),
        *(ScopeVerified(scope_key=key, scope=f"s-{key}", documents=n, pending_chunks=0, expected_documents=n, ok=True)
          for key, n in scopes.items()),
        ScorerStarted(**{"scorer_id": "s1", "judge_model": cfg.judge_model, "protocol": cfg.settings.protocol or "",
                         "prompt_hash": cfg.prompt_hashes.get("judge_system", ""), **(scorer or {})}),
    ]
    verdict_model = verdict_model or cfg.judge_model
    for qid, (_, outcome) in outcomes.items():
        if outcome == "pending":
            continue
        if outcome.startswith("failed:"):
            stage = outcome.split(":", 1)[1]
            if stage == "judge":
                events.append(QuestionAnswered(question_id=qid, answer="a", abstained=False, model=cfg.agent_model,
                                               raw_hash="r"))
            events.append(Failed(stage=stage, question_id=qid, scorer_id="s1" if stage == "judge" else None,
                                 error_class="APIError", message="boom"))
            continue
        events.append(QuestionAnswered(question_id=qid, answer="a", abstained=False, model=cfg.agent_model,
                                       raw_hash="r"))
        events.append(Judged(question_id=qid, scorer_id="s1", verdict=outcome, model=verdict_model))
    if finished:
        events.append(RunFinished(status="completed"))
    return events
