"""Machine judging: a model server grades query-chunk pairs (``machine_judge``), people audit a
sample of them (``audit_sample``), and from that audit come the machine labels' agreement with
people (``machine_agreement``), the prediction-powered estimates of each measure
(``machine_estimates``, ``corrected_scores``) and the pairs worth sending to a judge
(``machine_pairs``)."""
