"""Machine judging: a model server grades query-chunk pairs (``machine_judge``), people audit a
sample of them (``audit_sample``), and from that audit come the machine labels' agreement with
people (``machine_agreement``), the prediction-powered estimates of each measure
(``machine_estimates``, ``corrected_scores``) and the pairs worth sending to a judge
(``machine_pairs``)."""

from labeling.lazy_names import facade

# The public names the app's pages import; each module is imported on first use.
__getattr__, __all__ = facade(__name__, {
    "audit_sample": "labeling.machine_judging.audit_sample",
    "judge_prompts": "labeling.machine_judging.judge_prompts",
    "machine_agreement": "labeling.machine_judging.machine_agreement",
    "machine_estimates": "labeling.machine_judging.machine_estimates",
    "machine_judge": "labeling.machine_judging.machine_judge",
    "machine_pairs": "labeling.machine_judging.machine_pairs",
})
