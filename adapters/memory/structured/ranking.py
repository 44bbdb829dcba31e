"""Ranking for the structured memory: BM25F over analysed turns, then structure-aware rescoring.

`ScopeIndex` is built once per scope from the rows `build` extracted (`IndexedDoc`), so a query
only walks the postings of its own terms. Term weights are BM25F: each field (the words of the
turn, the description of an attached image, the words of the neighbouring turns) has its own
length normalisation and weight, and the weighted frequencies share one saturation.

A query is then rescored with what the corpus structure says, each step switchable through
`RankingOptions` so the ablation bench can measure what it adds:

- pseudo relevance feedback: the strongest terms of the first hits are added to the query
  (RM3-style, at a fraction of the weight of the original terms);
- neighbour smoothing: a turn inherits part of the best score of the turns just before or after
  it in its channel (decaying with distance) and of the message it replies to, because an answer
  often lacks the words of the question it answers;
- speakers: a question naming a participant favours that participant's own turns, and a
  first-person question favours the asking user's own messages;
- time: a question asking "when" favours turns that date something; a question naming a date
  favours turns from that time, the more so the more of day, month and year agree;
- conversation stretches: a turn gains with the total score of its channel (and topic, when the
  release gives one), since evidence clusters in the session that is about the question;
- decisions: a question about what was decided favours turns marked as decision points.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from benchledger.adapters.memory.structured.analysis import analyze, question_intent, stem, tokenize
from benchledger.adapters.memory.structured.temporal import date_closeness, dates_named

__all__ = ["RankingOptions", "IndexedDoc", "ScopeIndex"]


@dataclass(frozen=True)
class RankingOptions:
    """Every idea of the ranking, on by default; the bench switches them off one at a time."""

    stemming: bool = True
    image_field: bool = True
    context_field: bool = True
    feedback: bool = True
    channel_grouping: bool = True
    neighbour_smoothing: bool = True
    speaker_match: bool = True
    asker_match: bool = True
    time_cues: bool = True
    date_match: bool = True
    decision_match: bool = True
    k1: float = 1.2
    b: float = 0.75
    image_weight: float = 0.5
    context_weight: float = 0.15
    feedback_docs: int = 5
    feedback_terms: int = 10
    feedback_weight: float = 0.3
    smoothing_weight: float = 0.3
    speaker_boost: float = 0.6
    asker_boost: float = 0.3
    time_boost: float = 0.4
    date_boost: float = 0.8
    decision_boost: float = 0.3
    neighbour_window: int = 2
    neighbour_decay: float = 0.5
    group_weight: float = 0.5


@dataclass(frozen=True)
class IndexedDoc:
    """What build extracts from one document: analysed fields and the structure ranking uses."""

    doc_id: str
    channel: str
    position: int
    author: str | None
    reply_to: str | None
    timestamp: datetime | None
    is_decision: bool
    has_time_cue: bool
    topic: str | None
    text_terms: tuple[str, ...]
    image_terms: tuple[str, ...] = ()
    raw_words: tuple[str, ...] = field(default=(), compare=False)
    """Unstemmed content words, used when stemming is switched off."""


class ScopeIndex:
    """An in-memory BM25F index of one scope, plus its neighbour and author tables."""

    def __init__(self, docs: list[IndexedDoc], options: RankingOptions = RankingOptions()) -> None:
        self.options = options
        self.docs = sorted(docs, key=lambda d: (d.position, d.doc_id))
        self._slot = {d.doc_id: i for i, d in enumerate(self.docs)}
        self._neighbours = self._link_neighbours()
        self._authors = self._author_names()
        self._postings = self._weigh_terms()

    # -- build -----------------------------------------------------------------------------------

    def _terms(self, doc: IndexedDoc) -> tuple[str, ...]:
        return doc.text_terms if self.options.stemming else doc.raw_words

    def _link_neighbours(self) -> list[dict[int, float]]:
        """slot -> {linked slot: closeness}: turns nearby in the channel, and reply links."""
        opts = self.options
        by_channel: dict[str, list[int]] = defaultdict(list)
        for slot, doc in enumerate(self.docs):
            by_channel[doc.channel].append(slot)
        links: list[dict[int, float]] = [{} for _ in self.docs]

        def link(a: int, b: int, closeness: float) -> None:
            if a != b:
                links[a][b] = max(links[a].get(b, 0.0), closeness)
                links[b][a] = max(links[b].get(a, 0.0), closeness)

        for slots in by_channel.values():
            for distance in range(1, opts.neighbour_window + 1):
                for before, after in zip(slots, slots[distance:]):
                    link(before, after, opts.neighbour_decay ** (distance - 1))
        for slot, doc in enumerate(self.docs):
            parent = self._slot.get(doc.reply_to or "")
            if parent is not None:
                link(slot, parent, 1.0)
        return links

    def _author_names(self) -> dict[str, set[str]]:
        """Lowercase name word -> authors it can name ("caroline", "user_3", "user", "3"...)."""
        names: dict[str, set[str]] = defaultdict(set)
        for doc in self.docs:
            if doc.author:
                for word in tokenize(doc.author) + [doc.author.lower()]:
                    names[word].add(doc.author)
        # A word shared by many authors ("user") names nobody in particular.
        return {w: a for w, a in names.items() if len(a) <= 2}

    def _fields(self, slot: int) -> list[tuple[tuple[str, ...], float]]:
        opts, doc = self.options, self.docs[slot]
        fields = [(self._terms(doc), 1.0)]
        if opts.image_field:
            fields.append((doc.image_terms if opts.stemming else (), opts.image_weight))
        if opts.context_field:
            context = tuple(t for n, closeness in self._neighbours[slot].items() if closeness == 1.0
                            for t in self._terms(self.docs[n]))
            fields.append((context, opts.context_weight))
        return fields

    def _weigh_terms(self) -> dict[str, list[tuple[int, float]]]:
        opts = self.options
        per_doc = [self._fields(slot) for slot in range(len(self.docs))]
        field_count = max((len(f) for f in per_doc), default=0)
        avg_len = [max(1.0, sum(len(f[i][0]) for f in per_doc) / max(1, len(per_doc)))
                   for i in range(field_count)]
        doc_freq: Counter[str] = Counter()
        weighted_tf: list[dict[str, float]] = []
        for fields in per_doc:
            tf: dict[str, float] = defaultdict(float)
            for i, (terms, weight) in enumerate(fields):
                norm = 1 - opts.b + opts.b * len(terms) / avg_len[i]
                for term, count in Counter(terms).items():
                    tf[term] += weight * count / norm
            weighted_tf.append(tf)
            doc_freq.update(tf.keys())
        total = len(self.docs)
        self.idf = {t: math.log(1 + (total - n + 0.5) / (n + 0.5)) for t, n in doc_freq.items()}
        postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for slot, tf in enumerate(weighted_tf):
            for term, value in tf.items():
                postings[term].append((slot, self.idf[term] * value / (opts.k1 + value)))
        return dict(postings)

    # -- query -----------------------------------------------------------------------------------

    def query_terms(self, query: str) -> tuple[Counter[str], set[str]]:
        """Query term weights, and the authors the query names."""
        named: set[str] = set()
        if self.options.speaker_match:
            for word in tokenize(query):
                named |= self._authors.get(word, set())
        terms = analyze(query, stemmed=self.options.stemming)
        return Counter(terms), named

    def _lexical(self, weights: dict[str, float]) -> dict[int, float]:
        scores: dict[int, float] = defaultdict(float)
        for term, weight in weights.items():
            for slot, value in self._postings.get(term, ()):
                scores[slot] += weight * value
        return scores

    def _feedback(self, weights: dict[str, float], scores: dict[int, float]) -> dict[str, float]:
        opts = self.options
        top = sorted(scores, key=scores.__getitem__, reverse=True)[: opts.feedback_docs]
        if not top:
            return weights
        best = scores[top[0]]
        mass: dict[str, float] = defaultdict(float)
        for slot in top:
            terms = self._terms(self.docs[slot]) + self.docs[slot].image_terms
            counts = Counter(terms)
            for term, count in counts.items():
                if term not in weights:
                    mass[term] += (scores[slot] / best) * count / len(terms) * self.idf.get(term, 0)
        if not mass:
            return weights
        chosen = sorted(mass, key=mass.__getitem__, reverse=True)[: opts.feedback_terms]
        peak = mass[chosen[0]]
        expanded = dict(weights)
        for term in chosen:
            expanded[term] = opts.feedback_weight * mass[term] / peak
        return expanded

    def _smooth(self, scores: dict[int, float]) -> dict[int, float]:
        gamma = self.options.smoothing_weight
        smoothed = dict(scores)
        for slot, score in scores.items():
            for other, closeness in self._neighbours[slot].items():
                smoothed[other] = max(smoothed.get(other, 0.0),
                                      scores.get(other, 0.0) + gamma * closeness * score)
        return smoothed

    def _group(self, slot: int) -> tuple[str, str]:
        """The stretch of conversation a turn belongs to: its channel, and topic when known."""
        doc = self.docs[slot]
        return doc.channel, doc.topic or ""

    def rank(self, query: str, asking_user: str | None = None) -> list[tuple[int, float]]:
        """(slot, score) for every matching document, best first."""
        opts = self.options
        counts, named = self.query_terms(query)
        for author in named:
            for word in tokenize(author):
                counts.pop(stem(word) if opts.stemming else word, None)
        weights = {t: float(c) for t, c in counts.items()}
        scores = self._lexical(weights)
        if opts.feedback:
            scores = self._lexical(self._feedback(weights, scores))
        if opts.channel_grouping:
            totals: dict[tuple[str, str], float] = defaultdict(float)
            for slot, score in scores.items():
                totals[self._group(slot)] += score
            peak = max(totals.values(), default=1.0) or 1.0
            scores = {slot: score * (1 + opts.group_weight * totals[self._group(slot)] / peak)
                      for slot, score in scores.items()}
        if opts.neighbour_smoothing:
            scores = self._smooth(scores)
        intent = question_intent(query)
        dates = dates_named(query) if opts.date_match else []
        for slot in scores:
            doc = self.docs[slot]
            boost = 1.0
            if named and doc.author in named:
                boost += opts.speaker_boost
            if opts.asker_match and intent.first_person and asking_user and doc.author == asking_user:
                boost += opts.asker_boost
            if opts.time_cues and intent.asks_when and doc.has_time_cue:
                boost += opts.time_boost
            if dates and doc.timestamp:
                boost += opts.date_boost * date_closeness(doc.timestamp, dates)
            if opts.decision_match and intent.asks_decision and doc.is_decision:
                boost += opts.decision_boost
            scores[slot] *= boost
        return sorted(scores.items(), key=lambda item: (-item[1], item[0]))
