"""The metric guide: definitions, order sensitivity, a chooser of the lead measure, a quiz.

Order sensitivity is read from ``labeling.metrics.measures.KINDS`` (one source of truth with the
engine). The chooser follows the second seed document: start from the failure you cannot
afford, report at the depth your pipeline really uses (k = the chunks passed to the model), and
add NDCG only with graded labels. The knowledge check is the first seed document's.
"""

from __future__ import annotations

from dataclasses import dataclass

from labeling.metrics.measures import KINDS, parse_measure

__all__ = [
    "DEFINITIONS",
    "FAILURES",
    "QUESTIONS",
    "NOT_MEASURED",
    "Definition",
    "Question",
    "Recommendation",
    "check_answer",
    "definitions_table",
    "recommend",
]

NOT_MEASURED = (
    "Retrieval metrics measure whether the right chunks were found and how high they ranked. "
    "They do not measure the generated answer: its faithfulness to the retrieved context and "
    "its correctness need their own checks."
)


@dataclass(frozen=True)
class Definition:
    """One measure family as the guide explains it."""

    kind: str  # key of labeling.metrics.measures.KINDS
    title: str
    example: str  # a measure string the engine accepts
    formula: str  # LaTeX
    relevance: str  # "binary" or "graded"
    use: str

    @property
    def order_sensitive(self) -> bool:
        return KINDS[self.kind].order_sensitive

    @property
    def description(self) -> str:
        return KINDS[self.kind].description


DEFINITIONS: list[Definition] = [
    Definition("P", "Precision@k", "P@5",
               r"\mathrm{P@}k = \frac{|\{\text{relevant in top } k\}|}{k}", "binary",
               "Noise costs: every chunk in the prompt takes tokens and can distract the model."),
    Definition("R", "Recall@k", "R@5",
               r"\mathrm{R@}k = \frac{|\{\text{relevant in top } k\}|}"
               r"{|\{\text{relevant labeled}\}|}", "binary",
               "A miss costs: policy, contract or clinical lookups where an absent chunk changes "
               "the answer. Measured against the labeled set, not the whole corpus."),
    Definition("Success", "Hit rate@k", "Success@5",
               r"\mathrm{Hit@}k = \begin{cases}1 & \text{if } |\{\text{relevant in top } k\}|"
               r" > 0 \\ 0 & \text{otherwise}\end{cases}", "binary",
               "Any single good chunk answers the question (vector search benchmarks)."),
    Definition("RR", "Reciprocal rank (MRR)", "RR",
               r"\mathrm{RR} = \frac{1}{\mathrm{rank}_{\text{first relevant}}}", "binary",
               "The first hit decides: factoid questions, a single-answer assistant, a pipeline "
               "that passes only the top chunk."),
    Definition("AP", "Average precision (MAP)", "AP@10",
               r"\mathrm{AP} = \frac{\sum_{i} \mathrm{P@}i \cdot rel_i}"
               r"{|\{\text{relevant labeled}\}|}", "binary",
               "Several chunks matter and order matters: one score for coverage and order."),
    Definition("nDCG", "nDCG@k", "nDCG@10",
               r"\mathrm{nDCG@}k = \frac{\sum_{i=1}^{k} g_i / \log_2(i+1)}"
               r"{\sum_{i=1}^{k} g^{*}_i / \log_2(i+1)}", "graded",
               "Some chunks are better than others and the list is read in order; needs graded "
               "labels (g = grade, g* = the ideal order's grades)."),
]


def definitions_table() -> list[dict[str, object]]:
    """The selection matrix: one row per measure family (for a sortable table)."""
    return [
        {"measure": d.title, "example": d.example, "relevance": d.relevance,
         "order sensitive": d.order_sensitive, "best use": d.use, "definition": d.description}
        for d in DEFINITIONS
    ]


@dataclass(frozen=True)
class Recommendation:
    """The chooser's advice: a lead measure, supporting measures and why."""

    lead: str
    supporting: tuple[str, ...]
    why: str

    @property
    def measures(self) -> list[str]:
        """Lead first: the value for the dashboard's default measures."""
        return [self.lead, *self.supporting]


# Failure that costs most -> label shown to people.
FAILURES: dict[str, str] = {
    "miss": "A miss: a relevant chunk never reaches the model",
    "noise": "Noise: irrelevant chunks fill the context window",
    "first_hit": "The first hit: one good answer is enough, and it must come first",
    "order": "Order across the list: several chunks matter and are read in order",
}


def recommend(failure: str, k: int, graded_labels: bool = True) -> Recommendation:
    """The lead measure for the failure that costs most, at depth ``k`` (chunks given to the
    model). Without graded labels the "order" failure leads with AP instead of nDCG."""
    if k < 1:
        raise ValueError("k must be at least 1 (the number of chunks passed to the model)")
    at = f"the depth your pipeline uses (k = {k} chunks passed to the model)"
    if failure == "miss":
        rec = Recommendation(f"R@{k}", (f"Success@{k}", f"RR@{k}"),
                             f"A missed chunk is the expensive error: lead with recall at {at}.")
    elif failure == "noise":
        rec = Recommendation(f"P@{k}", (f"R@{k}",),
                             f"Each chunk costs context and can distract: lead with precision "
                             f"at {at}, and watch recall so precision is not bought with misses.")
    elif failure == "first_hit":
        rec = Recommendation(f"RR@{k}", (f"Success@{k}",),
                             "Success depends on the first hit: lead with reciprocal rank (its "
                             f"mean is MRR), cut at {at}, as a hit below it never reaches the "
                             "model.")
    elif failure == "order":
        if graded_labels:
            rec = Recommendation(f"nDCG@{k}", (f"AP@{k}", f"R@{k}"),
                                 f"Several chunks matter and order matters: lead with nDCG at "
                                 f"{at}; your graded labels let it reward the best chunks first.")
        else:
            rec = Recommendation(f"AP@{k}", (f"R@{k}",),
                                 f"Several chunks matter and order matters: lead with MAP at "
                                 f"{at}; invest in graded labels to move to nDCG.")
    else:
        raise ValueError(f"unknown failure {failure!r}; known: {', '.join(FAILURES)}")
    for name in rec.measures:
        parse_measure(name)  # every advice is a measure the engine computes
    return rec


@dataclass(frozen=True)
class Question:
    """A knowledge-check question with its options, answer and explanations."""

    key: str
    text: str
    options: tuple[str, ...]
    answer: int  # index into options
    if_right: str
    if_wrong: str


QUESTIONS: list[Question] = [
    Question(
        "swap",
        "You swap the documents at rank 2 and rank 5 of a retrieval list. Which metrics change?",
        ("Precision@5 and Recall@5", "MAP and NDCG", "Hit Rate@5 only"),
        1,
        "MAP and NDCG are order sensitive: moving documents between ranks changes them. "
        "Precision, Recall and Hit Rate only count what is inside the top K, whatever its order.",
        "Precision and Recall are order-insensitive inside the top K, and so is Hit Rate. Think "
        "about which metrics look at positions.",
    ),
    Question(
        "factoid",
        "Your RAG application gives a single definitive answer to factoid questions. Which "
        "metric should you prioritise?",
        ("Mean Reciprocal Rank (MRR)", "Recall@K", "Normalized Discounted Cumulative Gain (NDCG)"),
        0,
        "MRR fits navigational and single-answer retrieval, where only the rank of the first "
        "correct hit matters.",
        "Recall measures coverage of every relevant document, which is too broad here, and NDCG "
        "needs graded labels. For single-answer lookups the rank of the first hit is what counts.",
    ),
]


def check_answer(question_key: str, option: int) -> tuple[bool, str]:
    """Whether ``option`` (an index) answers the question, and the explanation to show."""
    question = next((q for q in QUESTIONS if q.key == question_key), None)
    if question is None:
        raise ValueError(f"unknown question {question_key!r}")
    if not 0 <= option < len(question.options):
        raise ValueError(f"option {option} out of range for {question_key!r}")
    right = option == question.answer
    return right, question.if_right if right else question.if_wrong
