"""The commands that move or cancel dates take ``--notify all|none`` to the service."""

from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from revel_recurring.models import EventSeries, PersonNotice
from revel_recurring.services.plans import plan_recurrence_change
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import VIENNA, holiday_class, occurrences
from tests.support.holidays import generated_with, newer_holiday_data
from tests.support.told import People, patch_people

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(monkeypatch: pytest.MonkeyPatch) -> People:
    return patch_people(monkeypatch, Event)


def published(series: EventSeries) -> list[Event]:
    """The series' dates, on sale (a draft is held by nobody: nobody is told of it)."""
    Event.objects.filter(series=series, is_template=False).update(state=Event.RECURRING_STATUS_OPEN)
    return occurrences(series)


def day_of(event: Event) -> dt.date:
    return event.starts_at.astimezone(VIENNA).date()


def run(command: str, *args: str) -> str:
    out = StringIO()
    call_command(command, *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("notify", ["all", "none"])
def test_the_holidays_command_applies_newer_data_telling_as_asked(
    people: People, notify: str
) -> None:
    series = holiday_class()
    rows = published(series)
    people.book(rows[1], "ada@example.com")
    generated_with(series)
    with newer_holiday_data([day_of(rows[1])]):
        run("revel_recurring_holidays", "--apply", "--notify", notify)
    assert Event.objects.get(pk=rows[1].pk).state == Event.RECURRING_STATUS_CANCELLED
    told = list(PersonNotice.objects.values_list("address", flat=True))
    assert told == (["ada@example.com"] if notify == "all" else [])


@pytest.mark.parametrize("notify", ["all", "none"])
def test_the_plan_command_applies_telling_as_asked(people: People, notify: str) -> None:
    series = holiday_class()
    rows = published(series)
    Seat.objects.create(event=rows[1], label="Row 1", quantity=10, booked=1)
    people.book(rows[1], "ada@example.com")
    change = {"weekdays": [1]}
    plan = plan_recurrence_change(series, change)
    assert plan.people_told == 1
    run(
        "revel_recurring_plan",
        str(series.pk),
        "--set",
        "weekdays=1",
        "--apply",
        plan.hash,
        "--cancel-drift",
        "all",
        "--notify",
        notify,
    )
    assert Event.objects.get(pk=rows[1].pk).starts_at.astimezone(VIENNA).weekday() == 1
    told = list(PersonNotice.objects.values_list("address", flat=True))
    assert told == (["ada@example.com"] if notify == "all" else [])


def test_an_unknown_notify_is_refused_naming_it() -> None:
    with pytest.raises(CommandError, match="--notify"):
        call_command("revel_recurring_holidays", "--apply", "--notify", "some")
