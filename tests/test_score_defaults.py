"""The dashboard's defaults stored in the workspace, and timestamps as people read them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from labeling import readable_times
from labeling.errors import ScorecardError
from labeling.evaluation.inputs import score_defaults
from labeling.evaluation.inputs.score_controls import DEFAULT_K, DEFAULT_MEASURES


def test_defaults_are_stored_with_who_and_when(make_workspace) -> None:
    db = make_workspace("demo")
    assert score_defaults.score_defaults(db) == score_defaults.ScoreDefaults(
        DEFAULT_MEASURES, DEFAULT_K)
    stored = score_defaults.set_score_defaults(db, ["nDCG@5", "AP@5", "R@20"], by=" ada ")
    again = score_defaults.score_defaults(db)
    assert again == stored
    assert (again.measures, again.k, again.set_by) == (("nDCG@k", "AP@k", "R@20"), 5, "ada")
    assert datetime.fromisoformat(again.set_at).tzinfo is not None
    assert again.shown() == "nDCG@5, AP@5, R@20"


def test_bad_defaults_are_refused_and_nothing_is_written(make_workspace) -> None:
    db = make_workspace("demo")
    with pytest.raises(ScorecardError):
        score_defaults.set_score_defaults(db, ["nDCG@5", "Bogus@3"], by="ada")
    with pytest.raises(ScorecardError):
        score_defaults.set_score_defaults(db, [], by="ada")
    assert score_defaults.score_defaults(db).set_at is None


NOW = datetime(2026, 5, 9, 14, 30, tzinfo=UTC)


@pytest.mark.parametrize(("stamp", "zone", "shown"), [
    ("2026-05-09T14:29:40+00:00", None, "just now"),
    ("2026-05-09T14:18:00+00:00", None, "12 minutes ago"),
    ("2026-05-09T12:02:00+00:00", None, "today 12:02"),
    ("2026-05-09T12:02:00", None, "today 12:02"),  # no zone: UTC
    ("2026-05-09T12:02:00+00:00", "Europe/Berlin", "today 14:02"),
    ("2026-05-08T09:15:00+00:00", None, "yesterday 09:15"),
    ("2026-05-06T09:15:00+00:00", None, "3 days ago"),
    ("2026-04-01T09:15:00+00:00", None, "2026-04-01"),
    ("2026-05-09T23:30:00+00:00", "Europe/Berlin", "2026-05-10"),  # tomorrow there
    ("not a time", None, "not a time"),
    (None, None, ""),
])
def test_readable_times(stamp, zone, shown) -> None:
    assert readable_times.readable(stamp, zone, now=NOW) == shown


def test_exact_time_for_the_tooltip() -> None:
    assert readable_times.exact("2026-05-09T12:02:00.123+00:00") == "2026-05-09T12:02:00+00:00"
    assert readable_times.exact("2026-05-09T12:02:00+00:00", "Europe/Berlin") == (
        "2026-05-09T12:02:00+00:00 (2026-05-09 14:02:00 Europe/Berlin)")
    assert readable_times.exact("2026-05-09T12:02:00+00:00", "Nowhere/Else").endswith("+00:00")
