"""Judging: the labeling queue and pooling, consensus of several annotators, agreement and
adjudication, keyboard shortcuts, the blind rule for what one sees of others' grades, corpus
search, the judging guideline, pace and where a session stands."""

from labeling.lazy_names import facade

# The public names the app's pages import; each module is imported on first use.
__getattr__, __all__ = facade(__name__, {
    "agreement": "labeling.judging.agreement",
    "corpus_search": "labeling.judging.corpus_search",
    "guideline": "labeling.judging.guideline",
    "hit_context": "labeling.judging.hit_context",
    "label_sources": "labeling.judging.label_sources",
    "pooling": "labeling.judging.pooling",
    "queue": "labeling.judging.queue",
    "shortcuts": "labeling.judging.shortcuts",
    "standing": "labeling.judging.standing",
    "visibility": "labeling.judging.visibility",
})
