"""Synthetic questions from passages: sampling, generators, quality signals, import and review.

A *candidate* is a generated question tied to its source chunk, the sentence it came from and
the answer span (character offsets into the chunk text). Candidates wait in the
``synthetic_candidates`` table until a reviewer accepts (they become ``source=synthetic``
queries with a top-grade judgment by ``generator``) or rejects them with a reason.

Generators: ``offline`` (rules; its parts ``words``, ``clauses`` and ``facts``) and ``llm``;
``importers`` reads LlamaIndex and Ragas question sets. Whatever wrote a question, ``rubric``
judges its form.
"""

# How passages are sampled (``labeling.synthetic.sampling``); here so that the command line can
# list them without importing the sampler.
STRATEGIES = ("random", "document", "segment")
