"""`provider_endpoint` as the pure fold it is: counted answers and verdicts from a provider's API over
verified TLS, on both sides of every boundary (scheme, host, port, certificate, the chain's root
store, the address the host resolved to, a proxy, role), labelled as attested evidence."""

from __future__ import annotations

import pytest
from events_factory import GROUPMEM_CONDITIONS as CONDITIONS, OPENAI_TLS, PROVIDER, config, stored, stream

from benchledger.ledger.events import Endpoint, Judged, ScorerStarted, ServerCertificate
from benchledger.projections.report import build_report
from benchledger.providers import PROVIDER_API_HOSTS, provider_of

CERT = ServerCertificate(sha256="cd" * 32, subject="CN=openrouter.ai", issuer="CN=R11")
OUTCOMES = {"q1": ("temporal", "correct"), "q2": ("multi_hop", "incorrect")}


def _condition(events):
    report = build_report("r", stored(events), conditions=CONDITIONS)
    return {c.name: c for c in report.conditions}["provider_endpoint"], report


def test_a_provider_over_verified_tls_meets_it_and_the_whole_stream_is_publishable(shared_data):
    from benchledger.adapters.benchmarks.groupmem.loader import read_questions

    planned = read_questions(shared_data / "groupmembench", "Finance").questions
    condition, report = _condition(stream({q.question_id: (q.kind, "correct") for q in planned}, planned=planned))
    assert condition.met and "OpenAI at https://api.openai.com/v1 (certificate CN=api.openai.com" in condition.reason
    assert report.publishable  # a run meeting every condition, the provider's certificate recorded


@pytest.mark.parametrize("base_url, certificate, reason", [
    ("http://127.0.0.1:8900/v1", None,
     "answers came from http://127.0.0.1:8900/v1, not a provider's API over verified TLS: what model answered "
     "cannot be known"),
    ("https://127.0.0.1:8443/v1", CERT, "not a provider's API"),
    ("http://api.openai.com/v1", None, "not a provider's API"),        # plain HTTP to the right host
    ("https://api.openai.com:8443/v1", CERT, "not a provider's API"),  # another port
    ("https://api.openai.com.evil.example/v1", CERT, "not a provider's API"),
    ("https://10.0.0.5/v1", CERT, "not a provider's API"),              # a private address
    ("https://openrouter.ai/api/v1", None, "no verified server certificate recorded"),
])
def test_anything_else_is_diagnostic_with_one_reason(base_url, certificate, reason):
    endpoint = Endpoint(base_url=base_url, api_key_env="OPENAI_API_KEY", certificate=certificate)
    condition, report = _condition(stream(OUTCOMES, cfg=config(base_url=base_url, endpoint=endpoint)))
    assert not condition.met and reason in condition.reason and not report.publishable
    assert condition.reason.count("came from") == 1


def test_openrouter_with_its_certificate_meets_it():
    tls = OPENAI_TLS.model_copy(update={"host": "openrouter.ai"})
    endpoint = Endpoint(base_url="https://openrouter.ai/api/v1", api_key_env="OPENROUTER_API_KEY", certificate=CERT,
                        tls=tls)
    condition, _ = _condition(stream(OUTCOMES, cfg=config(base_url=endpoint.base_url, endpoint=endpoint)))
    assert condition.met and "OpenRouter at https://openrouter.ai/api/v1" in condition.reason
    assert condition.attested and "chain to C=US, O=Google Trust Services LLC, CN=GTS Root R4 in certifi" \
        in condition.reason


LOOPBACK = "api.openai.com resolved to 127.0.0.1, a loopback address on the runner's machine"
UNTRUSTED = ("its certificate chain does not verify against the shipped root store (certifi 2026.10.19): "
             "unable to get local issuer certificate (issuer CN=Totally Trusted Root CA)")
PROXIED = "the environment sends calls to api.openai.com through the proxy http://10.0.0.1:3128"


@pytest.mark.parametrize("update, reason", [
    ({"trusted": False, "problems": (UNTRUSTED,)}, UNTRUSTED),
    ({"address": "127.0.0.1", "addresses": ("127.0.0.1",), "problems": (LOOPBACK,)}, LOOPBACK),
    ({"proxy": "http://10.0.0.1:3128", "problems": (PROXIED,)}, PROXIED),
    ({"trusted": False}, "its chain did not verify"),
])
def test_the_probes_evidence_against_openais_host_is_diagnostic_with_its_reason(update, reason):
    endpoint = PROVIDER.model_copy(update={"tls": OPENAI_TLS.model_copy(update=update)})
    condition, report = _condition(stream(OUTCOMES, cfg=config(endpoint=endpoint)))
    assert not condition.met and not report.publishable and condition.attested
    assert condition.reason == f"answers came from https://api.openai.com/v1, and {reason}"


def test_a_certificate_recorded_before_the_chain_was_checked_is_not_enough():
    condition, _ = _condition(stream(OUTCOMES, cfg=config(endpoint=PROVIDER.model_copy(update={"tls": None}))))
    assert not condition.met and "the runner's own trusted CAs, which its environment can change" in condition.reason


def test_the_scorecard_labels_the_condition_as_the_runners_evidence():
    from benchledger.projections.scorecard import render_scorecard

    _, report = _condition(stream(OUTCOMES))
    lines = [line for line in render_scorecard(report).splitlines() if "provider_endpoint" in line]
    assert lines == [line for line in lines if "provider_endpoint (evidence recorded by the runner's machine):" in line]
    assert len(lines) == 1


def test_verdicts_of_a_rejudge_on_loopback_are_named_as_verdicts():
    events = stream(OUTCOMES)
    loopback = Endpoint(base_url="http://127.0.0.1:9/v1", api_key_env="OPENAI_API_KEY")
    events += [ScorerStarted(scorer_id="s2", judge_model="gpt-5", protocol="reference", endpoint=loopback,
                             prompt_hash=events[4].prompt_hash)]
    events += [Judged(question_id=qid, scorer_id="s2", verdict="correct", model="gpt-5") for qid in OUTCOMES]
    report = build_report("r", stored(events), conditions=CONDITIONS, scorer_id="s2")
    condition = {c.name: c for c in report.conditions}["provider_endpoint"]
    assert not condition.met and condition.reason.startswith("verdicts came from http://127.0.0.1:9/v1")
    # the run's own scorer, asked at the provider, still meets it
    own = build_report("r", stored(events), conditions=CONDITIONS, scorer_id="s1")
    assert {c.name: c for c in own.conditions}["provider_endpoint"].met


def test_offline_models_ask_no_endpoint():
    cfg = config(agent_model="offline-extractive", judge_model="offline-lexical", offline_models=True,
                 endpoint=None)
    condition, _ = _condition(stream(OUTCOMES, cfg=cfg))
    assert condition.met and condition.reason == "no counted answer or verdict asked a model endpoint"


def test_the_hosts_live_in_one_place():
    assert set(PROVIDER_API_HOSTS) == {"api.openai.com", "openrouter.ai"}
    assert provider_of(None) == "OpenAI" and provider_of("https://OPENROUTER.ai/api/v1") == "OpenRouter"
    assert provider_of("https://user:pw@api.openai.com/v1") is None
    assert PROVIDER.certificate is not None
