"""Deciding what to do next: the judging budget planner, the CI regression gate (its per-query
values and its non-inferiority verdict) and the tuning loop."""
