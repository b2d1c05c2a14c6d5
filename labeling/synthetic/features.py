"""The quality features of a candidate question, each in [0, 1] (``critic`` in [-0.5, 0.5]).

- ``specificity``: the mean BM25 IDF over the workspace's chunks of the question's three
  rarest content words, divided by the IDF of a word found in one chunk (1 = words as rare as
  words get here; common words like "file" or "option" score low);
- ``top3``: 1 when BM25 over the workspace ranks the source passage in the top 3 for the
  question (specific: few passages answer it), else 0; ``reciprocal_rank``: 1/rank in the top
  ``k`` (0 beyond);
- ``standalone``: 1 when the question names what it asks about (the passage's topic from its
  title, or a code-like name) and points at nothing it does not name; 0.5 when it names
  nothing; 0 when it says "it", "this option", "the function" and the like;
- ``grammar``: 1 minus 0.5 per rubric or grammar objection (at least 0);
- ``repeated``: 1 when the paragraph holding the answer appears, normalised, in another chunk
  of the workspace (a repeated paragraph answers the question in many places), else 0;
- ``copy``: the longest run of the question's words found in the source sentence, as a share
  of the question's words, counted from runs of 4 words (a copied sentence with a blank);
- ``structured``: 1 when the question was written from the passage's structure (a NAME
  line, a definition list, a purpose sentence, a signature) or by a model or a person, 0 when
  a rule moved the words of a parsed clause;
- ``concise``: 1 up to 12 words (5 for a keyword query), then 0.1 less a word, at least 0;
- ``whole_answer``: 1 when the answer span ends where a phrase ends in the passage (before a
  full stop, comma, semicolon, colon, a line break or the passage's end), 0 when it stops
  mid-clause ("the address associated" of "the address associated with symbol");
- ``critic``: the LLM critic's score minus 0.5 (0 when there is none);
- the shape features (``forms.SHAPE_FEATURES``): 1 for what the question asks for, a return
  value, a purpose, a behaviour, a how-to, a comparison or a keyword query (all 0 for a fact).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labeling.synthetic import quality
from labeling.synthetic.candidate import Candidate
from labeling.synthetic.forms import SHAPE_FEATURES, shape_features
from labeling.synthetic.rubric import rubric
from labeling.synthetic.subject import DEICTIC_PHRASE, is_named, topic_of
from labeling.synthetic.text import normalise, words
from labeling.workspace import chunk_store

if TYPE_CHECKING:
    import sqlite_utils

FEATURES = ("specificity", "top3", "reciprocal_rank", "standalone", "grammar", "repeated",
            "copy", "structured", "concise", "whole_answer", "critic",
            *SHAPE_FEATURES.values())
QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how is are was were do does did can could should "
    "would will i my me".split()
)


def paragraph_key(text: str) -> str:
    """A hash of a paragraph's normalised words (equal for the same words, spacing aside)."""
    return hashlib.sha1(normalise(text).encode()).hexdigest()[:16]


def paragraphs(text: str) -> list[tuple[int, int]]:
    """Spans of the blank-line separated paragraphs of ``text``."""
    return [(m.start(), m.end()) for m in re.finditer(r"(?:[^\n]|\n(?![ \t]*\n))+", text)
            if m.group().strip()]


@dataclass
class Workspace:
    """What the features need from the workspace, read once per batch."""

    n_chunks: int
    document_frequency: Counter
    paragraph_chunks: Counter  # paragraph key -> chunks holding it
    texts: dict[str, str]
    titles: dict[str, str]
    index: quality.Bm25Index

    @classmethod
    def read(cls, db: sqlite_utils.Database, index: quality.Bm25Index | None = None
             ) -> Workspace:
        rows = chunk_store.imported_chunks(db)
        df: Counter = Counter()
        repeats: Counter = Counter()
        for _, title, text in rows:
            df.update(set(words(f"{title}\n{text}")))
            keys = {paragraph_key(text[a:b]) for a, b in paragraphs(text)
                    if len(text[a:b].split()) >= 4}
            repeats.update(keys)
        return cls(len(rows), df, repeats, {r[0]: r[2] for r in rows},
                   {r[0]: r[1] for r in rows}, index or quality.Bm25Index(db))

    def idf(self, word: str) -> float:
        """BM25's IDF of ``word`` (a word found nowhere counts as found in one chunk)."""
        n, df = self.n_chunks, max(1, self.document_frequency.get(word, 0))
        return math.log(1 + (n - df + 0.5) / (df + 0.5))


def specificity(question: str, space: Workspace) -> float:
    content = [w for w in words(question) if w not in quality.STOPWORDS]
    if not content or space.n_chunks < 2:
        return 0.0
    top = sorted((space.idf(w) for w in set(content)), reverse=True)[:3]
    return min(1.0, (sum(top) / len(top)) / space.idf("\0"))


def standalone(question: str, title: str | None) -> float:
    """See the module docstring."""
    if DEICTIC_PHRASE.search(re.sub(r"\b(the (value|file))\b", "", question)):
        return 0.0
    topic = topic_of(title)
    named = topic is not None and topic.name.lower() in question.lower()
    body = question.rstrip("?").split()[1:]
    if named or any(is_named(w) for w in body):
        return 1.0
    return 0.5


def copy_share(question: str, sentence: str) -> float:
    """See the module docstring."""
    q = [w for w in words(question) if w not in QUESTION_WORDS]
    s = words(sentence)
    if not q or not s:
        return 0.0
    best = 0
    for i in range(len(q)):
        for j in range(len(s)):
            k = 0
            while i + k < len(q) and j + k < len(s) and q[i + k] == s[j + k]:
                k += 1
            best = max(best, k)
    return best / len(q) if best >= 4 else 0.0


def whole_answer(candidate: Candidate, text: str) -> float:
    """See the module docstring."""
    if candidate.answer_end is None:
        return 0.0
    rest = text[candidate.answer_end:].lstrip(" \t)]\"'\u2019\u201d")
    return 1.0 if not rest or rest[0] in ".;:,!?\n" or rest.startswith(
        ("- ", "\u2013 ", "\u2014 ")) else 0.0


def concise(question: str, form: str = "") -> float:
    """See the module docstring."""
    limit = 5 if form == "keyword" else 12
    return round(max(0.0, 1 - 0.1 * max(0, len(question.split()) - limit)), 4)


def repeated(candidate: Candidate, space: Workspace) -> float:
    text = space.texts.get(candidate.chunk_id, "")
    at = candidate.answer_start
    if at is None:
        return 0.0
    for a, b in paragraphs(text):
        if a <= at < b:
            return 1.0 if space.paragraph_chunks.get(paragraph_key(text[a:b]), 0) > 1 else 0.0
    return 0.0


def paragraph_of(candidate: Candidate, text: str) -> str | None:
    """The key of the paragraph holding the candidate's answer (None without a span)."""
    if candidate.answer_start is None:
        return None
    for a, b in paragraphs(text):
        if a <= candidate.answer_start < b:
            return paragraph_key(text[a:b])
    return None


def compute(candidates: Sequence[Candidate], space: Workspace, k: int = 10
            ) -> list[tuple[dict[str, float], quality.RoundTrip]]:
    """The features of each candidate and its BM25 round trip."""
    trips = space.index.round_trip([c.question for c in candidates],
                                   [c.chunk_id for c in candidates], k)
    out = []
    for cand, trip in zip(candidates, trips, strict=True):
        problems = cand.problems if cand.problems is not None else rubric(cand.question)
        values = {
            "specificity": round(specificity(cand.question, space), 4),
            "top3": 1.0 if trip.rank is not None and trip.rank <= 3 else 0.0,
            "reciprocal_rank": round(1 / trip.rank, 4) if trip.rank else 0.0,
            "standalone": standalone(cand.question, space.titles.get(cand.chunk_id)),
            "grammar": max(0.0, 1 - 0.5 * len(problems)),
            "repeated": repeated(cand, space),
            "copy": round(copy_share(cand.question, cand.sentence), 4),
            "structured": 1.0 if cand.structured else 0.0,
            "concise": concise(cand.question, cand.form),
            "whole_answer": whole_answer(cand, space.texts.get(cand.chunk_id, "")),
            "critic": round(cand.critic - 0.5, 4) if cand.critic is not None else 0.0,
            **shape_features(cand.question, cand.form),
        }
        out.append((values, trip))
    return out
