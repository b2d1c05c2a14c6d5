"""Synthetic questions from passages: sampling, generators, quality, import and review.

A *candidate* is a generated question tied to its source chunk, the sentence it came from, the
answer span (character offsets into the chunk text), its form and its quality features and
score. Candidates wait in the ``synthetic_candidates`` table, best first, until a reviewer
accepts them (they become ``source=synthetic`` queries with a top-grade judgment by
``generator``) or rejects them with a reason.

Reading a passage: ``passage`` (prose, code, tables, option lists, headings, signatures; wrapped
lines joined), ``text`` (sentences), ``subject`` (what a question names), ``spans`` (answer
spans). Generators: ``offline`` (rules: ``reference`` for reference-text structure, ``clauses``
and ``facts`` for sentences, ``words``) and ``llm`` (chat API with a critic); ``forms`` (how-to,
what/why, comparison, keyword and the team's mix); ``importers`` reads LlamaIndex and Ragas
question sets. Whatever wrote a question, ``rubric`` judges its form, ``features`` and
``quality_model`` score it, ``batches`` records a run (resumable) and ``review`` stores,
lists, accepts and rejects; ``settings`` holds the team's floor, mix and LLM settings.
"""

# How passages are sampled (``labeling.synthetic.sampling``); here so that the command line can
# list them without importing the sampler.
STRATEGIES = ("random", "document", "segment")

from labeling.lazy_names import facade  # noqa: E402  (after the package constants)

# The public names the app's pages import; each module is imported on first use.
__getattr__, __all__ = facade(__name__, {
    "batches": "labeling.synthetic.batches",
    "calibration": "labeling.synthetic.calibration",
    "forms": "labeling.synthetic.forms",
    "quality_model": "labeling.synthetic.quality_model",
    "review": "labeling.synthetic.review",
    "sampling": "labeling.synthetic.sampling",
    "settings": "labeling.synthetic.settings",
})
