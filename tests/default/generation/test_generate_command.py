"""``manage.py revel_recurring_generate``."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from revel_recurring.context import replacing_template
from revel_recurring.instants import describe_instant
from revel_recurring.rules import format_instant
from tests.hosts.testapp.models import Event
from tests.support.factories import VIENNA, make_series, occurrences

pytestmark = pytest.mark.django_db


def test_generates_all_series_with_progress_and_summary() -> None:
    first, second = make_series(name="First"), make_series(name="Second")
    out = StringIO()
    call_command("revel_recurring_generate", stdout=out)
    text = out.getvalue()
    assert "[1/2] First: 8 created (total 8)" in text
    assert "[2/2] Second: 8 created (total 16)" in text
    assert (
        "Series processed: 2, skipped (no template): 0, failed: 0. Occurrences created: 16." in text
    )
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


def test_an_until_before_the_cursor_keeps_the_cursor() -> None:
    series = make_series(name="Chosen")
    ahead = timezone.now() + dt.timedelta(weeks=12)
    call_command(
        "revel_recurring_generate",
        "--series",
        str(series.pk),
        "--until",
        ahead.isoformat(),
        stdout=StringIO(),
    )
    series.refresh_from_db()
    cursor = series.last_generated_until
    out = StringIO()
    call_command(
        "revel_recurring_generate",
        "--series",
        str(series.pk),
        "--until",
        "2020-02-01T00:00Z",
        stdout=out,
    )
    assert "0 created" in out.getvalue()
    series.refresh_from_db()
    assert series.last_generated_until == cursor
    assert len(occurrences(series)) == 12


def test_unknown_series_is_a_clear_error() -> None:
    with pytest.raises(CommandError, match="No active series with a rule has id 424242"):
        call_command("revel_recurring_generate", "--series", "424242")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("next tuesday", "Not a date and time; give one in ISO 8601"),
        ("2027-01-01T00:00", "has no UTC offset"),
        ("2027-03-01", "such as 2027-03-01T00:00:00Z or 2027-03-01T00:00:00"),
        ("2027-13-45T00:00Z", "Not a date and time; give one in ISO 8601"),
        ("3000-01-01T00:00Z", "Out of range"),
    ],
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


def test_until_without_offset_from_the_shell_is_one_line() -> None:
    # Through manage.py's own entry point (run_from_argv), where an error raised
    # while parsing arguments used to print a traceback.
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "PYTHONPATH": str(root)}
    env.pop("DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "-m", "django", "revel_recurring_generate", "--until", "2027-03-01"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "CommandError: --until '2027-03-01': The date and time has no UTC offset; add one, "
        "such as 2027-03-01T00:00:00Z or 2027-03-01T00:00:00+01:00."
    ]


def _tomorrow_evening() -> dt.datetime:
    # The command runs on the real clock; start the series just ahead of it.
    tomorrow = timezone.now().astimezone(VIENNA) + dt.timedelta(days=1)
    return tomorrow.replace(hour=18, minute=30, second=0, microsecond=0)


def test_dry_run_shows_the_local_time_in_the_rule_zone() -> None:
    series = make_series(dtstart=_tomorrow_evening(), window_weeks=3)
    out = StringIO()

    call_command("revel_recurring_generate", "--dry-run", stdout=out)

    lines = [line.strip() for line in out.getvalue().splitlines() if "would create" in line]
    assert len(lines) == 3
    for line in lines:
        local, utc = line.removeprefix("would create ").split(" = ")
        instant = dt.datetime.fromisoformat(utc)
        assert utc.endswith("Z")
        assert local == describe_instant(instant, "Europe/Vienna")
        assert " 18:30 (Europe/Vienna)" in local
    assert occurrences(series) == []


def test_verbosity_two_lists_what_was_created() -> None:
    series = make_series(
        window_weeks=2,
        dtstart=timezone.now().replace(microsecond=0).astimezone(VIENNA) + dt.timedelta(days=1),
    )
    out = StringIO()

    call_command("revel_recurring_generate", verbosity=2, stdout=out)
    quiet = StringIO()
    call_command("revel_recurring_generate", stdout=quiet)

    created = [line.strip() for line in out.getvalue().splitlines() if "    created " in line]
    expected = [
        f"created {describe_instant(e.starts_at, 'Europe/Vienna')} = {format_instant(e.starts_at)}"
        for e in occurrences(series)
    ]
    assert created == expected
    assert "    created " not in quiet.getvalue()


def test_a_series_without_template_is_reported_as_skipped() -> None:
    ok, orphan = make_series(name="Fine"), make_series(name="Orphan")
    with replacing_template(orphan.pk):
        Event.objects.filter(series=orphan).delete()
    out = StringIO()

    call_command("revel_recurring_generate", stdout=out)

    text = out.getvalue()
    assert "Orphan: skipped, the series has no template" in text
    assert (
        "Series processed: 2, skipped (no template): 1, failed: 0. Occurrences created: 8." in text
    )
    assert len(occurrences(ok)) == 8
