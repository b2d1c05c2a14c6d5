"""Where in a judged text the answer probably is, when the judgment does not say: the sentence
that best matches the query by BM25, if it stands out.

Conventions
- Sentences are ``labeling.synthetic.text.split_sentences`` of the judged text (paragraphs and
  list items never share one; wrapped lines are one sentence).
- Scores are BM25 (bm25s, its defaults: k1 = 1.5, b = 0.75, Lucene IDF) of the query against
  every sentence of every judged text given, so a word common to the whole set weighs little.
  Words are lower-cased letters and digits; English stop words are left out.
- A text's answer is *located* when its best sentence scores above 0 and at least ``MARGIN``
  times its second best (or it is the only sentence that scores): the stated confidence. Then
  the located span is that sentence; otherwise nothing is located.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import bm25s
import numpy as np

from labeling.synthetic.text import split_sentences

MARGIN = 1.5
_WORDS = re.compile(r"[^\W_]+")
_STOPWORDS = frozenset(
    "a an and are as at be by can do does for from get how i if in into is it its not of on or "
    "should so that the their then there these they this to was what when where which who why "
    "will with you your".split())


@dataclass(frozen=True)
class Located:
    """A located answer: ``start``/``end`` in the judged text (end exclusive); the best and the
    second best score (0 when the text has one sentence)."""

    start: int
    end: int
    best: float
    second: float


def words(text: str) -> list[str]:
    """The words BM25 counts: lower case, stop words left out."""
    return [w for w in _WORDS.findall(text.lower()) if w not in _STOPWORDS]


def locate_answers(
    queries: Sequence[str], texts: Sequence[str], margin: float = MARGIN
) -> list[Located | None]:
    """For each (query, judged text) pair at the same position, the located answer or None."""
    sentences = [split_sentences(text) for text in texts]
    owner = np.repeat(np.arange(len(texts)), [len(s) for s in sentences])
    corpus = [words(text[a:b]) or ["\x00"] for text, spans in zip(texts, sentences, strict=True)
              for a, b in spans]
    if not corpus:
        return [None] * len(texts)
    index = bm25s.BM25()
    index.index(corpus, show_progress=False)
    vocabulary = index.vocab_dict
    out: list[Located | None] = []
    scores_of: dict[str, np.ndarray] = {}
    for position, (query, spans) in enumerate(zip(queries, sentences, strict=True)):
        if query not in scores_of:
            known = [w for w in words(query) if w in vocabulary]
            scores_of[query] = (index.get_scores(known) if known
                                else np.zeros(len(corpus), dtype=np.float32))
        scores = scores_of[query][owner == position]
        out.append(_pick(spans, scores, margin))
    return out


def _pick(spans: list[tuple[int, int]], scores: np.ndarray, margin: float) -> Located | None:
    if len(scores) == 0:
        return None
    order = np.argsort(-scores, kind="stable")
    best = float(scores[order[0]])
    second = float(scores[order[1]]) if len(order) > 1 else 0.0
    if best <= 0 or (second > 0 and best < margin * second):
        return None
    start, end = spans[order[0]]
    return Located(start, end, best, second)
