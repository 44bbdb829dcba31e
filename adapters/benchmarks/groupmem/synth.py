"""A deterministic synthetic GroupMemBench release, for scale tests and offline demos.

Plan per domain: a team of twelve users with roles, five work channels plus a noise channel,
five phases over the timeline, and `messages` message slots in strictly increasing time (so
msg_node order, time order and canonical order agree). A random sample of slots carries facts,
each backing one question whose gold answer appears verbatim in a message:

- knowledge_update: a setting, later replaced in a reply marked as a decision (gold = new value);
- temporal: a due date ("YYYY-MM-DD");
- multi_hop: which squad owns a migration, and, in another message, where that squad reviews;
- user_implicit: "I will deliver X" by one user, asked back by the same user in the first person;
- term_ambiguity: one term used in two senses with two dates; the question names the sense;
- abstention: questions about components no message ever mentions.

The other slots are chatter (some replying to recent messages in the same channel, a few marked
as decisions) and noise. All randomness comes from `random.Random(f"{seed}:{domain}")`, and the
writer is byte-stable, so one seed gives identical bytes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from benchledger.adapters.benchmarks.groupmem import synth_text as vocab
from benchledger.adapters.benchmarks.groupmem.files import check_domain
from benchledger.adapters.benchmarks.groupmem.schema import ABSTENTION_GOLD, KINDS
from benchledger.adapters.benchmarks.groupmem.write import write_corpus, write_prompts, write_questions
from benchledger.errors import BadInput

__all__ = ["MIN_MESSAGES", "SynthDomain", "SynthSummary", "synthesize_groupmem"]

MIN_MESSAGES = 20
_START = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


class SynthDomain(BaseModel):
    model_config = ConfigDict(frozen=True)

    domain: str
    messages: int
    channels: int
    questions: dict[str, int]


class SynthSummary(BaseModel):
    """What `synthesize_groupmem` wrote."""

    model_config = ConfigDict(frozen=True)

    out_dir: str
    seed: int
    domains: tuple[SynthDomain, ...]


class _Domain:
    """Builds one domain: fact messages placed into slots, then filler around them."""

    def __init__(self, domain: str, messages: int, seed: int) -> None:
        self.rng = random.Random(f"{seed}:{domain}")
        self.count = messages
        self.users = [(f"User_{i + 1}", role) for i, role in enumerate(vocab.ROLES)]
        self.per_kind = max(1, min(40, messages // 100))
        self.slots: dict[int, dict] = {}
        self.questions: dict[str, list[dict]] = {kind: [] for kind in KINDS}
        self.components: list[str] = []
        self.times = self._timeline()

    def _timeline(self) -> list[datetime]:
        times, current = [], _START
        for _ in range(self.count):
            current += timedelta(minutes=self.rng.randint(1, 25), seconds=self.rng.randint(0, 59))
            times.append(current)
        return times

    def _component(self) -> str:
        n = len(self.components)
        rounds, word = divmod(n, len(vocab.COMPONENT_WORDS))
        name = f"{vocab.COMPONENT_WORDS[word]}-{rounds + 1}"
        self.components.append(name)
        return name

    def _ask(self, kind: str, text: str, gold: str, user: str | None = None) -> None:
        items = self.questions[kind]
        items.append({"id": f"{kind}_{len(items) + 1}", "question": text, "answer": gold,
                      "asking_user_id": user or self.rng.choice(self.users)[0]})

    def _place(self, slot: int, content: str, *, channel: str | None = None,
               author: tuple[str, str] | None = None, reply_to: int | None = None,
               decision: bool = False) -> None:
        self.slots[slot] = {"content": content, "channel": channel or self.rng.choice(vocab.CHANNELS),
                            "author": author or self.rng.choice(self.users),
                            "reply_to": reply_to, "decision": decision}

    def _date(self, slot: int) -> str:
        return (self.times[slot] + timedelta(days=self.rng.randint(3, 30))).strftime("%Y-%m-%d")

    def plan_facts(self) -> None:
        rng, k = self.rng, self.per_kind
        free = rng.sample(range(self.count), 8 * k)
        pairs = [sorted(free[i:i + 2]) for i in range(0, 6 * k, 2)]
        singles = free[6 * k:]
        for i in range(k):
            comp = self._component()
            name, fmt, values = vocab.SETTINGS[i % len(vocab.SETTINGS)]
            old, new = (fmt.format(n=v) for v in rng.sample(values, 2))
            first, later = pairs[i]
            self._place(first, f"Let's set the {name} for {comp} to {old}.")
            self._place(later, f"Change of plan for {comp}: the {name} is now {new} instead of {old}.",
                        channel=self.slots[first]["channel"], reply_to=first, decision=True)
            self._ask("knowledge_update", f"What is the current {name} for {comp}?", new)
        for i in range(k):
            comp, squad = self._component(), f"{vocab.SQUADS[i % len(vocab.SQUADS)]}-{i + 1}"
            room = f"{vocab.ROOMS[i % len(vocab.ROOMS)]} {i // len(vocab.ROOMS) + 1}"
            own, meet = pairs[k + i]
            self._place(own, f"Ownership update: the {comp} migration belongs to the {squad} squad.",
                        decision=True)
            self._place(meet, f"The {squad} squad holds its design reviews in {room}.")
            self._ask("multi_hop", f"Where does the squad that owns the {comp} migration hold its "
                                   "design reviews?", room)
        for i in range(k):
            comp = self._component()
            term, label_a, sense_a, label_b, sense_b = vocab.TERM_SENSES[i % len(vocab.TERM_SENSES)]
            slot_a, slot_b = pairs[2 * k + i]
            date_a, date_b = self._date(slot_a), self._date(slot_b)
            while date_b == date_a:
                date_b = self._date(slot_b)
            self._place(slot_a, f"For {comp}, the {term} ({sense_a}) happens on {date_a}.",
                        channel="backend")
            self._place(slot_b, f"For {comp}, the {term} ({sense_b}) is on {date_b}.",
                        channel="design")
            label, gold = (label_a, date_a) if rng.random() < 0.5 else (label_b, date_b)
            self._ask("term_ambiguity", f"On what date (YYYY-MM-DD) is the {comp} {term}, in the "
                                        f"{label}?", gold)
        for i in range(k):
            comp, artifact, slot = self._component(), rng.choice(vocab.ARTIFACTS), singles[i]
            due = self._date(slot)
            self._place(slot, f"The {artifact} for {comp} is due {due}.")
            self._ask("temporal", f"What is the deadline (YYYY-MM-DD) for the {artifact} for {comp}?",
                      due)
        for i in range(k):
            comp, deliverable, slot = self._component(), rng.choice(vocab.DELIVERABLES), singles[k + i]
            author = rng.choice(self.users)
            self._place(slot, f"I will deliver {deliverable} for {comp} by "
                              f"{rng.choice(_WEEKDAYS)}.", author=author)
            self._ask("user_implicit", f"What did I commit to deliver for {comp}?", deliverable,
                      user=author[0])
        for i in range(k):
            absent = f"{vocab.ABSENT_WORDS[i % len(vocab.ABSENT_WORDS)]}-{i + 1}"
            text = rng.choice((f"What is the retry limit for {absent}?",
                               f"Which squad owns the {absent} migration?",
                               f"What is the deadline (YYYY-MM-DD) for the runbook draft for {absent}?"))
            self._ask("abstention", text, ABSTENTION_GOLD)

    def messages_by_channel(self) -> dict[str, list[dict]]:
        rng = self.rng
        channels: dict[str, list[dict]] = {name: [] for name in (*vocab.CHANNELS, vocab.NOISE_CHANNEL)}
        recent: dict[str, list[int]] = {name: [] for name in channels}
        for slot in range(self.count):
            fact = self.slots.get(slot)
            noise = fact is None and rng.random() < 0.12
            if fact is None:
                channel = vocab.NOISE_CHANNEL if noise else rng.choice(vocab.CHANNELS)
                author = rng.choice(self.users)
                decision = not noise and rng.random() < 0.03
                comp = rng.choice(self.components)
                if noise:
                    content = rng.choice(vocab.NOISE)
                elif decision:
                    content = f"Decision: {comp} stays behind the feature flag until Hardening."
                else:
                    content = rng.choice(vocab.CHATTER).format(
                        comp=comp, channel=channel, user=rng.choice(self.users)[0],
                        topic=rng.choice(vocab.TOPICS[channel]))
                reply = (rng.choice(recent[channel][-5:])
                         if recent[channel] and rng.random() < 0.35 else None)
                fact = {"content": content, "channel": channel, "author": author,
                        "reply_to": reply, "decision": decision}
            channel = fact["channel"]
            channels[channel].append({
                "msg_node": f"Msg_{slot + 1}", "content": fact["content"],
                "author": fact["author"][0], "role": fact["author"][1],
                "timestamp": self.times[slot].strftime("%Y-%m-%dT%H:%M:%SZ"),
                "reply_to": None if fact["reply_to"] is None else f"Msg_{fact['reply_to'] + 1}",
                "phase_name": vocab.PHASES[slot * len(vocab.PHASES) // self.count],
                "topic": rng.choice(vocab.TOPICS[channel]),
                "is_noise": noise, "is_decision_point": fact["decision"],
            })
            recent[channel].append(slot)
        return channels


def synthesize_groupmem(out_dir: Path, *, messages: int, domains: Sequence[str] = ("Synth",),
                        seed: int = 0) -> SynthSummary:
    """Write a synthetic release (messages per domain) under `out_dir`; same seed, same bytes."""
    if isinstance(messages, bool) or not isinstance(messages, int) or messages < MIN_MESSAGES:
        raise BadInput(f"must be an integer of at least {MIN_MESSAGES}, got {messages!r}",
                       field="messages")
    if isinstance(domains, str) or not domains:
        raise BadInput("give at least one domain name", field="domains")
    out_dir = Path(out_dir)
    written = []
    for domain in dict.fromkeys(domains):
        check_domain(domain)
        builder = _Domain(domain, messages, seed)
        builder.plan_facts()
        channels = builder.messages_by_channel()
        write_corpus(out_dir, domain, channels)
        write_questions(out_dir, domain, builder.questions)
        written.append(SynthDomain(domain=domain, messages=messages, channels=len(channels),
                                   questions={k: len(v) for k, v in builder.questions.items()}))
    write_prompts(out_dir, vocab.AGENT_PROMPT, vocab.JUDGE_PROMPT)
    return SynthSummary(out_dir=str(out_dir), seed=seed, domains=tuple(written))
