"""``manage.py revel_recurring_plan``: the plan as a table, then exactly that plan applied."""

from __future__ import annotations

import datetime as dt
import os
import re
import shlex
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from revel_recurring.instants import describe_instant
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.lifecycle import create_recurring_series
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import VIENNA, occurrences

pytestmark = pytest.mark.django_db

ZONE = "Europe/Vienna"


def _next_tuesday() -> dt.datetime:
    # The command runs on the real clock: the class starts on the coming Tuesday.
    today = timezone.now().astimezone(VIENNA).date()
    day = today + dt.timedelta(days=(1 - today.weekday()) % 7 or 7)
    return dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA)


def tue_thu_class(*, window_weeks: int = 4) -> EventSeries:
    """Tuesdays and Thursdays 18:30 Vienna from the coming Tuesday, first window generated."""
    start = _next_tuesday()
    return create_recurring_series(
        name="Evening class",
        rule_data={
            "frequency": "WEEKLY",
            "weekdays": [1, 3],
            "dtstart": start,
            "timezone": ZONE,
        },
        template_data={"title": "Evening class", "ends_at": start + dt.timedelta(hours=1)},
        generation_window_weeks=window_weeks,
        auto_publish=True,
    )


def book(event: Event, places: int) -> None:
    Seat.objects.create(event=event, label="Row 1", quantity=10, booked=places)


def run(*args: str) -> str:
    out = StringIO()
    call_command("revel_recurring_plan", *args, stdout=out)
    return out.getvalue()


def section(text: str, title: str) -> list[str]:
    """The rows under ``title: N`` up to the next blank line, stripped."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{title}: "))
    rows = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        rows.append(line.strip())
    assert int(lines[start].rsplit(": ", 1)[1]) == len(rows) - (
        1 if rows and rows[0].startswith("date") else 0
    )
    return rows


def plan_hash(text: str) -> str:
    match = re.search(r"^Plan hash: ([0-9a-f]{64})$", text, re.MULTILINE)
    assert match, text
    return match.group(1)


def display(event: Event) -> str:
    return describe_instant(event.starts_at, ZONE)


def test_plan_lists_stay_drift_with_bookings_and_new_dates_and_writes_nothing() -> None:
    series = tue_thu_class()
    dates = occurrences(series)
    tuesdays = [e for e in dates if e.starts_at.astimezone(VIENNA).weekday() == 1]
    thursdays = [e for e in dates if e.starts_at.astimezone(VIENNA).weekday() == 3]
    book(thursdays[0], 3)
    book(thursdays[1], 1)

    # A week more: its dates are new (each Thursday moves to its week's Monday, so the
    # Mondays of the weeks held are no new dates).
    text = run(series.slug, "--set", "weekdays=0,1", "--set", "generation_window_weeks=5")

    assert "Rule: Every week on Monday and Tuesday at 18:30 (Europe/Vienna)" in text
    assert "Changes: generation_window_weeks, weekdays" in text
    assert "Generation cursor: resets" in text
    stay = section(text, "Stay")
    assert [row.split("  ")[0] for row in stay[1:]] == [display(e) for e in tuesdays]
    drift = section(text, "Drift (no longer fit the rule)")
    assert drift[0].split() == ["date", "bookings", "modified", "id", "fate"]
    assert re.split(r"\s{2,}", drift[1])[:4] == [
        display(thursdays[0]),
        "3 bookings",
        "-",
        str(thursdays[0].pk),
    ]
    assert re.split(r"\s{2,}", drift[2])[:4] == [
        display(thursdays[1]),
        "1 booking",
        "-",
        str(thursdays[1].pk),
    ]
    assert re.split(r"\s{2,}", drift[3])[1:3] == ["-", "-"]
    # Each Thursday but the first moves to its week's Monday (the first week's Monday
    # comes before the start).
    fates = [re.split(r"\s{2,}", row)[4] for row in drift[1:]]
    assert [fate.startswith("moves to Mon ") for fate in fates] == [
        index > 0 for index in range(len(thursdays))
    ]
    new = section(text, "New (created on apply)")
    assert new  # the Monday and Tuesday of the week added, as far as the window reaches
    assert all(row.startswith(("Mon ", "Tue ")) for row in new)
    assert len(new) <= 3  # the week added (Mon, Tue), the Monday beside the booked Thursday
    assert section(text, "Skipped (excluded dates of the new rule)") == []
    assert occurrences(series) == dates
    assert EventSeries.objects.get(pk=series.pk).recurrence_rule.weekdays == [1, 3]


def test_printed_command_line_applies_the_plan_keeping_booked_dates() -> None:
    series = tue_thu_class()
    thursdays = [e for e in occurrences(series) if e.starts_at.astimezone(VIENNA).weekday() == 3]
    book(thursdays[0], 2)
    text = run(str(series.pk), "--set", "weekdays=0,1")
    line = next(line for line in text.splitlines() if "--apply" in line)
    words = shlex.split(line)
    assert words[:4] == ["python", "manage.py", "revel_recurring_plan", str(series.pk)]
    assert words[4:] == ["--set", "weekdays=0,1", "--apply", plan_hash(text)]

    done = run(*words[3:], "--cancel-drift", "unbooked")

    assert "Applied to Evening class: weekdays changed; generation cursor reset." in done
    # Each Thursday but the first moves to its week's Monday (the first week's Monday
    # comes before the start): the same rows, nothing cancelled, nothing new.
    after = {e.pk: e for e in Event.objects.filter(pk__in=[t.pk for t in thursdays])}
    assert section(done, "Moved") == [
        f"{display(e)}  to {display(after[e.pk])}" for e in thursdays[1:]
    ]
    assert {after[e.pk].starts_at.astimezone(VIENNA).weekday() for e in thursdays[1:]} == {0}
    assert section(done, "Cancelled") == []
    assert section(done, "Created") == []
    assert section(done, "Kept because booked") == [f"{display(thursdays[0])}  2 bookings"]
    assert after[thursdays[0].pk].starts_at == thursdays[0].starts_at
    assert {e.state for e in after.values()} == {"on_sale"}
    assert EventSeries.objects.get(pk=series.pk).recurrence_rule.weekdays == [0, 1]


def test_apply_without_cancel_drift_leaves_drift_and_names_it() -> None:
    series = tue_thu_class(window_weeks=2)
    thursdays = [e for e in occurrences(series) if e.starts_at.astimezone(VIENNA).weekday() == 3]
    text = run(str(series.pk), "--set", "weekdays=0,1")

    done = run(str(series.pk), "--set", "weekdays=0,1", "--apply", plan_hash(text))

    assert section(done, "Cancelled") == []
    # The Thursdays move to their weeks' Mondays, but the first: it has none to go to.
    assert [row.split("  ")[0] for row in section(done, "Moved")] == [
        display(e) for e in thursdays[1:]
    ]
    left = section(done, "Drifted dates left as they are (cancel them with --cancel-drift)")
    assert left == [f"{display(thursdays[0])}  -"]
    assert Event.objects.filter(series=series, state="called_off").count() == 0


def test_outdated_hash_prints_the_fresh_plan_and_fails() -> None:
    series = tue_thu_class()
    tuesdays = [e for e in occurrences(series) if e.starts_at.astimezone(VIENNA).weekday() == 1]
    stale = plan_hash(run(str(series.pk), "--set", "weekdays=0,1"))
    # Another organiser cancels the first Tuesday in between.
    cancel_occurrence(series, tuesdays[0].starts_at)
    out = StringIO()

    with pytest.raises(CommandError, match=f"Plan {stale} is outdated") as caught:
        call_command(
            "revel_recurring_plan",
            str(series.pk),
            "--set",
            "weekdays=0,1",
            "--apply",
            stale,
            "--cancel-drift",
            "all",
            stdout=out,
        )

    text = out.getvalue()
    assert "Evening class changed since that plan was made; nothing was applied." in text
    fresh = plan_hash(text)
    assert fresh != stale
    assert fresh in str(caught.value)
    assert [re.split(r"\s{2,}", row) for row in section(text, "Stay")[1:]] == [
        [display(e), "-", "-", str(e.pk)] for e in tuesdays[1:]
    ]
    assert EventSeries.objects.get(pk=series.pk).recurrence_rule.weekdays == [1, 3]
    assert Event.objects.filter(series=series, state="called_off").count() == 1
    run(str(series.pk), "--set", "weekdays=0,1", "--apply", fresh)
    assert EventSeries.objects.get(pk=series.pk).recurrence_rule.weekdays == [0, 1]


def test_several_fields_of_each_type() -> None:
    series = tue_thu_class()
    until = (_next_tuesday() + dt.timedelta(weeks=2)).isoformat()

    text = run(
        str(series.pk),
        "--set",
        "interval=2",
        "--set",
        f"until={until}",
        "--set",
        "generation_window_weeks=6",
        "--set",
        "frequency=weekly",
    )

    assert "Changes: generation_window_weeks, interval, until" in text
    assert "Every 2 weeks on Tuesday and Thursday at 18:30 (Europe/Vienna), until" in text
    assert "Window: 6 weeks" in text
    cleared = run(str(series.pk), "--set", "until=", "--set", "count=")
    assert "Changes: none (the rule, window and extra dates are already so)" in cleared


def test_a_cancelled_date_shows_as_skipped() -> None:
    series = tue_thu_class()
    first = occurrences(series)[0]
    cancel_occurrence(series, first.starts_at)

    text = run(str(series.pk), "--set", "weekdays=1")

    assert section(text, "Skipped (excluded dates of the new rule)") == [
        f"{display(first)}  cancelled"
    ]


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("weekdays=mon", r"--set weekdays: 'mon' is not a whole number \(a comma list"),
        ("weekdays=0,9", r"weekdays: .*"),
        ("interval=two", "--set interval: 'two' is not a whole number"),
        ("interval=", "--set interval: give a value"),
        (
            "until=2027-01-01T00:00",
            "--set until=2027-01-01T00:00: The date and time has no UTC offset",
        ),
        ("dtstart=soon", "--set dtstart=soon: Not a date and time"),
        ("colour=red", "--set colour: not a field you can change; use frequency, interval"),
        ("weekdays", "--set 'weekdays': write it as name=value"),
        ("frequency=HOURLY", "frequency: "),
        ("timezone=Mars/Base", "timezone: "),
        ("generation_window_weeks=0", "generation_window_weeks: "),
        (
            "extra_dates=2030-01-05T11:00:00+01:00,2030-01-05",
            "--set extra_dates=2030-01-05: The date and time has no UTC offset",
        ),
        ("extra_dates=2020-01-04T11:00:00Z", "extra_dates: Sat 4 Jan 2020 12:00 .* in the past"),
    ],
)
def test_bad_settings_name_the_field(setting: str, message: str) -> None:
    series = tue_thu_class(window_weeks=1)
    with pytest.raises(CommandError, match=message):
        run(str(series.pk), "--set", setting)


def test_unknown_series_duplicate_setting_and_bad_mode_are_errors() -> None:
    series = tue_thu_class(window_weeks=1)
    with pytest.raises(CommandError, match="No series has the id or slug '424242'"):
        run("424242")
    with pytest.raises(CommandError, match="No series has the id or slug 'nope'"):
        run("nope")
    with pytest.raises(CommandError, match="--set weekdays: given twice"):
        run(str(series.pk), "--set", "weekdays=0", "--set", "weekdays=1")
    with pytest.raises(CommandError, match="--cancel-drift: choose one of none, unbooked, all"):
        run(str(series.pk), "--cancel-drift", "some")
    with pytest.raises(CommandError, match="plan_hash: Give the hash"):
        run(str(series.pk), "--apply", " ")


def test_a_date_moved_by_hand_is_flagged_and_kept() -> None:
    series = tue_thu_class()
    thursday = next(e for e in occurrences(series) if e.starts_at.astimezone(VIENNA).weekday() == 3)
    thursday.starts_at += dt.timedelta(hours=1)
    thursday.save()
    text = run(str(series.pk), "--set", "weekdays=0,1")
    drift = [re.split(r"\s{2,}", row) for row in section(text, "Drift (no longer fit the rule)")]
    assert [display(thursday), "-", "yes", str(thursday.pk)] in [row[:4] for row in drift]

    done = run(
        str(series.pk), "--set", "weekdays=0,1", "--apply", plan_hash(text), "--cancel-drift", "all"
    )

    assert section(done, "Kept because moved or edited by hand") == [display(thursday)]
    thursday.refresh_from_db()
    assert thursday.state == "on_sale"


def test_a_bad_setting_from_the_shell_is_one_line() -> None:
    # Through manage.py's own entry point; the value is read before any query.
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "PYTHONPATH": str(root)}
    env.pop("DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "-m", "django", "revel_recurring_plan", "7", "--set", "until=2027-03-01"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "CommandError: --set until=2027-03-01: The date and time has no UTC offset; add one, "
        "such as 2027-03-01T00:00:00Z or 2027-03-01T00:00:00+01:00."
    ]


def test_extra_dates_are_set_as_a_comma_list_planned_applied_and_cleared() -> None:
    series = tue_thu_class()
    saturday = (_next_tuesday() + dt.timedelta(days=4)).replace(hour=11, minute=0)
    later = saturday + dt.timedelta(weeks=10)  # beyond the window: stored, not created yet
    setting = f"extra_dates={saturday.isoformat()},{later.isoformat()}"

    text = run(str(series.pk), "--set", setting)

    assert "Changes: extra_dates" in text
    assert section(text, "New (created on apply)") == [describe_instant(saturday, ZONE)]
    assert section(text, "Drift (no longer fit the rule)") == []
    done = run(str(series.pk), "--set", setting, "--apply", plan_hash(text))
    assert "Applied to Evening class: extra_dates changed; generation cursor reset." in done
    assert section(done, "Created") == [describe_instant(saturday, ZONE)]
    assert EventSeries.objects.get(pk=series.pk).extra_date_instants == {saturday, later}

    event = Event.objects.get(series=series, starts_at=saturday)
    book(event, 2)
    cleared = run(str(series.pk), "--set", "extra_dates=")
    drift = [re.split(r"\s{2,}", row) for row in section(cleared, "Drift (no longer fit the rule)")]
    assert [row[:4] for row in drift[1:]] == [
        [describe_instant(saturday, ZONE), "2 bookings", "-", str(event.pk)]
    ]
    kept = run(
        str(series.pk),
        "--set",
        "extra_dates=",
        "--apply",
        plan_hash(cleared),
        "--cancel-drift",
        "unbooked",
    )
    assert section(kept, "Kept because booked") == [
        f"{describe_instant(saturday, ZONE)}  2 bookings"
    ]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == []
    event.refresh_from_db()
    assert event.state == "on_sale"
