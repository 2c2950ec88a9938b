"""``manage.py revel_recurring_plan`` on the studio host: UUID lessons, pupils' bookings."""

from __future__ import annotations

import re
import shlex
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.conftest import BERLIN, MakeSeries, lessons

pytestmark = pytest.mark.django_db


def display(lesson: Lesson) -> str:
    local = lesson.begins.astimezone(BERLIN)
    return f"{local:%a} {local.day} {local:%b %Y %H:%M} (Europe/Berlin)"


def run(*args: str) -> str:
    out = StringIO()
    call_command("revel_recurring_plan", *args, stdout=out)
    return out.getvalue()


def test_with_nobody_told_plan_names_uuid_lessons_with_their_pupils_and_apply_keeps_them(
    make_series: MakeSeries, pupil: User, settings: Any
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series = make_series(weekdays=(3,), generation_window_weeks=3)
    first, *others = lessons(series)
    other = User.objects.create_user("second@studio.example", "x")
    Booking.objects.create(lesson=first, pupil=pupil)
    Booking.objects.create(lesson=first, pupil=other)

    text = run(str(series.pk), "--set", "weekdays=4")

    drift = text.split("Drift (no longer fit the rule): ")[1].split("\n\n")[0].splitlines()[2:]
    assert re.split(r"\s{2,}", drift[0].strip())[:4] == [
        display(first),
        "2 bookings",
        "-",
        str(first.pk),
    ]
    assert re.split(r"\s{2,}", drift[0].strip())[4].startswith("moves to Fri ")
    assert [re.split(r"\s{2,}", row.strip())[3] for row in drift[1:]] == [str(o.pk) for o in others]
    line = next(line for line in text.splitlines() if "--apply" in line)

    done = run(*shlex.split(line)[3:], "--cancel-drift", "unbooked")

    assert f"Kept because booked: 1\n  {display(first)}  2 bookings\n" in done
    # The free Thursdays move to their weeks' Fridays (same UUIDs): nothing cancelled.
    assert f"Moved: {len(others)}\n" in done
    assert "Cancelled: 0\n" in done
    first.refresh_from_db()
    assert first.state == Lesson.State.BOOKABLE
    moved = Lesson.objects.filter(pk__in=[o.pk for o in others])
    assert {lesson.state for lesson in moved} == {Lesson.State.BOOKABLE}
    assert {lesson.begins.astimezone(BERLIN).weekday() for lesson in moved} == {4}
    assert Booking.objects.filter(lesson=first).count() == 2
