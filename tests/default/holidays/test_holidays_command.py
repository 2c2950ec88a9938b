"""``manage.py revel_recurring_holidays``: the dates newer holiday data changes, then applied.

The command runs on the real clock, so the classes start on the coming Monday
(tests.support.factories.holiday_class) and the simulated release adds holidays on the
days of their generated dates.
"""

from __future__ import annotations

import datetime as dt
import re
import shlex
from dataclasses import dataclass
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from revel_recurring.checks import check_holiday_data
from revel_recurring.exceptions import PlanOutdatedError
from revel_recurring.holiday_rules import HolidayRule, data_version
from revel_recurring.instants import describe_instant
from revel_recurring.management.commands.revel_recurring_holidays import Command
from revel_recurring.models import EventSeries
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import VIENNA, fresh, holiday_class, occurrences
from tests.support.holidays import OLD_RELEASE, TEST_DAY, generated_with, newer_holiday_data

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("revel_recurring_holidays", *args, stdout=out)
    return out.getvalue()


def section(text: str, title: str) -> list[list[str]]:
    """The table under ``title: N`` (the lines indented deeper), each row split in cells."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(f"{title}: "))
    indent = len(lines[start]) - len(lines[start].lstrip())
    rows = []
    for line in lines[start + 1 :]:
        if not line.strip() or len(line) - len(line.lstrip()) <= indent:
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    return rows


def day_of(event: Event) -> dt.date:
    return event.starts_at.astimezone(VIENNA).date()


def display(event: Event) -> str:
    return describe_instant(event.starts_at, "Europe/Vienna")


def test_lists_exactly_the_changed_dates_and_the_line_applying_them() -> None:
    series = holiday_class()
    steady = holiday_class("Evening class", policy="keep")  # holidays change no date
    holiday_class("Lunch class")  # generated with the installed release: not listed
    rows = occurrences(series)
    Seat.objects.create(event=rows[2], label="Row 1", quantity=10, booked=3)
    generated_with(series)
    generated_with(steady)

    with newer_holiday_data([day_of(rows[1]), day_of(rows[2])]):
        text = run()

        assert text.startswith(
            f"2 series were generated with another release of holidays than the installed "
            f"{data_version()}; the dates of 1 change."
        )
        assert f"Monday yoga (series {series.pk}): generated with holidays {OLD_RELEASE}" in text
        assert section(text, "Drift (a holiday now skips or moves them)") == [
            ["date", "holiday", "bookings", "on apply"],
            [display(rows[1]), TEST_DAY, "-", "cancelled"],
            [display(rows[2]), TEST_DAY, "3 bookings", "kept (booked)"],
        ]
        assert section(text, "New (created on apply)") == []
        assert section(text, "No date changes (--apply records the installed release)") == [
            [f"Evening class (series {steady.pk})", OLD_RELEASE]
        ]
        plan_hash = re.search(r"^Plan hash: ([0-9a-f]{64})$", text, re.MULTILINE)
        assert plan_hash is not None
        line = next(line for line in text.splitlines() if "--hash" in line)
        words = shlex.split(line)
        assert words == [
            "python",
            "manage.py",
            "revel_recurring_holidays",
            "--series",
            str(series.pk),
            "--apply",
            "--hash",
            plan_hash.group(1),
        ]
        assert occurrences(series) == rows  # nothing written

        done = run(*words[3:])

        assert f"Applied to Monday yoga (series {series.pk})" in done
        assert section(done, "Cancelled") == [[display(rows[1]), TEST_DAY]]
        assert section(done, "Kept because booked") == [[display(rows[2]), "3 bookings"]]
        assert Event.objects.get(pk=rows[1].pk).state == Event.RECURRING_STATUS_CANCELLED
        assert Event.objects.get(pk=rows[2].pk).state != Event.RECURRING_STATUS_CANCELLED
        assert fresh(series).holidays_version == data_version()
        assert fresh(steady).holidays_version == OLD_RELEASE

        everything = run("--apply")

        assert f"Applied to Evening class (series {steady.pk})" in everything
        assert fresh(steady).holidays_version == data_version()
        assert check_holiday_data(databases=["default"]) == []
        assert run().startswith("Every active series with a holiday calendar was generated")


def test_apply_with_an_outdated_hash_writes_nothing() -> None:
    series = holiday_class()
    rows = occurrences(series)
    generated_with(series)

    with (
        newer_holiday_data([day_of(rows[1])]),
        pytest.raises(CommandError, match="1 of 1 series was not applied"),
    ):
        run("--series", str(series.pk), "--apply", "--hash", "0" * 64)

    assert fresh(series).holidays_version == OLD_RELEASE
    assert occurrences(series) == rows


def test_a_shifted_date_is_listed_with_its_new_day_and_left_on_apply() -> None:
    series = holiday_class(policy="shift")
    austria = HolidayRule("AT")

    def free(day: dt.date) -> bool:
        return day.weekday() < 5 and not austria.is_holiday(day)

    # A date on its own Monday whose Tuesday is a working day: the new holiday moves it there.
    row = next(
        event
        for event in occurrences(series)
        if event.starts_at == event.recurrence_id and free(day_of(event) + dt.timedelta(days=1))
    )
    moves = describe_instant(row.starts_at + dt.timedelta(days=1), "Europe/Vienna")
    generated_with(series)

    with newer_holiday_data([day_of(row)]):
        text = run()
        assert section(text, "Drift (a holiday now skips or moves them)")[1:] == [
            [display(row), TEST_DAY, "-", f"kept: moves to {moves}; move it by hand"]
        ]

        done = run("--apply")

    title = "Left on their day (policy shift: move each by hand to the day shown)"
    assert section(done, title) == [[display(row), f"-> {moves}"]]
    assert Event.objects.get(pk=row.pk).state != Event.RECURRING_STATUS_CANCELLED


def test_plan_command_applies_the_empty_change_of_newer_holiday_data() -> None:
    series = holiday_class()
    rows = occurrences(series)
    generated_with(series)

    with newer_holiday_data([day_of(rows[1])]):
        out = StringIO()
        call_command("revel_recurring_plan", str(series.pk), stdout=out)
        text = out.getvalue()
        assert "Changes: none" in text
        assert (
            f"Generation cursor: resets; the dates were placed with holidays {OLD_RELEASE}, "
            f"{data_version()} is installed"
        ) in text
        plan_hash = re.search(r"^Plan hash: ([0-9a-f]{64})$", text, re.MULTILINE)
        assert plan_hash is not None

        call_command(
            "revel_recurring_plan",
            str(series.pk),
            "--apply",
            plan_hash.group(1),
            "--cancel-drift",
            "unbooked",
            stdout=StringIO(),
        )

    assert Event.objects.get(pk=rows[1].pk).state == Event.RECURRING_STATUS_CANCELLED
    assert fresh(series).holidays_version == data_version()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hash", "abc"], "--hash: give it with --apply and exactly one --series ID."),
        (["--apply", "--hash", "abc"], "--hash: give it with --apply and exactly one --series"),
        (["--series", "999999"], "No series has id 999999"),
    ],
)
def test_bad_arguments_are_one_line_errors(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=re.escape(message)):
        run(*args)


def test_nothing_to_do_when_every_series_has_the_installed_release() -> None:
    holiday_class()

    assert run() == (
        f"Every active series with a holiday calendar was generated with holidays "
        f"{data_version()}, the installed release: nothing to do.\n"
    )
    assert EventSeries.objects.get().holidays_version == data_version()


def test_applying_goes_on_past_a_failed_series_and_counts_it() -> None:
    """The loop both data commands share: a stale plan is named and counted, a series
    with nothing left to apply said so (holidays) or passed over (time zones)."""

    @dataclass
    class Change:
        series: EventSeries

    stale, done, empty = holiday_class("Stale"), holiday_class("Done"), holiday_class("Empty")
    reported: list[str] = []

    def apply(series: EventSeries) -> str | None:
        if series.pk == stale.pk:
            raise PlanOutdatedError("changed", plan=None)
        return None if series.pk == empty.pk else series.name

    for say_nothing in (True, False):
        out = StringIO()
        command = Command(stdout=out)
        with pytest.raises(CommandError, match="1 of 3 series was not applied"):
            command._apply_each(
                [Change(stale), Change(done), Change(empty)],
                apply,
                reported.append,
                say_nothing=say_nothing,
            )
        text = out.getvalue()
        assert f"Stale (series {stale.pk}) changed since that plan was made" in text
        assert (f"Empty (series {empty.pk}): nothing to apply." in text) is say_nothing
    assert reported == ["Done", "Done"]
