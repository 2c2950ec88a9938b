"""``manage.py revel_recurring_generate``."""

from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from tests.factories import make_series, occurrences

pytestmark = pytest.mark.django_db


def test_generates_all_series_with_progress_and_summary() -> None:
    first, second = make_series(name="First"), make_series(name="Second")
    out = StringIO()
    call_command("revel_recurring_generate", stdout=out)
    text = out.getvalue()
    assert "[1/2] First: 8 created (total 8)" in text
    assert "[2/2] Second: 8 created (total 16)" in text
    assert "2 series processed, 16 occurrences created, 0 failed." in text
    assert len(occurrences(first)) == len(occurrences(second)) == 8


def test_dry_run_writes_nothing() -> None:
    series = make_series()
    out = StringIO()
    call_command("revel_recurring_generate", "--dry-run", stdout=out)
    assert "8 would be created" in out.getvalue()
    assert out.getvalue().count("would create ") == 8
    assert occurrences(series) == []


def test_selected_series_and_until() -> None:
    chosen, other = make_series(name="Chosen"), make_series(name="Other")
    until = (timezone.now() + dt.timedelta(weeks=12)).isoformat()
    call_command(
        "revel_recurring_generate", "--series", str(chosen.pk), "--until", until, stdout=StringIO()
    )
    assert len(occurrences(chosen)) == 12
    assert occurrences(other) == []


def test_unknown_series_is_a_clear_error() -> None:
    with pytest.raises(CommandError, match="No active series with a rule has id 424242"):
        call_command("revel_recurring_generate", "--series", "424242")


@pytest.mark.parametrize(
    ("value", "message"),
    [("next tuesday", "not an ISO 8601"), ("2027-01-01T00:00", "needs a UTC offset")],
)
def test_bad_until_is_a_clear_error(value: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("revel_recurring_generate", "--until", value)


def test_until_beyond_the_maximum_fails_the_series() -> None:
    make_series()
    until = (timezone.now() + dt.timedelta(weeks=60)).isoformat()
    err = StringIO()
    with pytest.raises(CommandError, match="1 series failed"):
        call_command("revel_recurring_generate", "--until", until, stdout=StringIO(), stderr=err)
    assert "REVEL_RECURRING_MAX_WINDOW_WEEKS" in err.getvalue()
