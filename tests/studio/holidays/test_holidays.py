"""Holiday rules on the studio host: UUID lessons, Booking rows, Bavarian holidays.

Salsa on Mondays and Thursdays at 18:30 in Munich from 2 March 2026, sixteen
weeks generated (to 21 June): Easter Monday (6 April), Ascension Day (Thursday
14 May), Whit Monday (25 May) and Corpus Christi (Thursday 4 June) are public
holidays in Bavaria (DE-BY).
"""

from __future__ import annotations

import datetime as dt
import uuid

import pytest

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from tests.hosts.studio.models import Booking, Lesson, School, User
from tests.studio.conftest import BERLIN, lessons

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=BERLIN)
HOLIDAYS = [dt.date(2026, 4, 6), dt.date(2026, 5, 14), dt.date(2026, 5, 25), dt.date(2026, 6, 4)]


def at_1830(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(18, 30), tzinfo=BERLIN)


def is_moved(lesson: Lesson) -> bool:
    return bool(lesson.begins != lesson.recurrence_id)


def salsa(school: School, policy: str) -> EventSeries:
    start = at_1830(dt.date(2026, 3, 2))
    return create_recurring_series(
        name=f"Salsa ({policy})",
        rule_data={
            "frequency": "WEEKLY",
            "weekdays": [0, 3],
            "dtstart": start,
            "timezone": "Europe/Berlin",
        },
        template_data={
            "school": school,
            "title": "Salsa",
            "room": "Hall 1",
            "finishes": start + dt.timedelta(hours=1),
        },
        auto_publish=True,
        generation_window_weeks=16,
        holidays={"country": "DE", "subdivision": "BY", "policy": policy},
        now=NOW,
    )


def test_skip_and_shift_place_the_bavarian_holidays(school: School) -> None:
    skipping, shifting = salsa(school, "skip"), salsa(school, "shift")

    skipped = lessons(skipping)
    assert len(skipped) == 32 - len(HOLIDAYS)
    assert not [lesson for lesson in skipped if lesson.begins.astimezone(BERLIN).date() in HOLIDAYS]
    shifted = lessons(shifting)
    assert len(shifted) == 32
    assert all(isinstance(lesson.pk, uuid.UUID) for lesson in shifted)
    moved = {lesson.recurrence_id: lesson.begins for lesson in shifted if is_moved(lesson)}
    assert moved == {at_1830(day): at_1830(day + dt.timedelta(days=1)) for day in HOLIDAYS}
    days = [lesson.begins.astimezone(BERLIN).date() for lesson in shifted]
    assert len(days) == len(set(days))
    assert {lesson.state for lesson in shifted} == {Lesson.State.BOOKABLE}


def test_switching_to_skip_keeps_the_booked_moved_lesson_and_names_it(
    school: School, pupil: User
) -> None:
    shifting = salsa(school, "shift")
    moved = [lesson for lesson in lessons(shifting) if is_moved(lesson)]
    booked = moved[0]  # Easter Monday's lesson, held on Tuesday 7 April
    Booking.objects.create(lesson=booked, pupil=pupil)
    changes = {"holidays": {"policy": "skip"}}

    plan = plan_recurrence_change(shifting, changes, now=NOW)
    applied = apply_recurrence_plan(shifting, plan.hash, changes, cancel_drift="unbooked", now=NOW)

    assert [row.id for row in plan.drift] == [lesson.pk for lesson in moved]
    assert [row.id for row in plan.booked_drift] == [booked.pk]
    assert [(date.id, date.display) for date in applied.kept_booked] == [
        (booked.pk, "Tue 7 Apr 2026 18:30 (Europe/Berlin)")
    ]
    assert applied.cancelled == [lesson.pk for lesson in moved[1:]]
    states = dict(Lesson.objects.filter(pk__in=[m.pk for m in moved]).values_list("pk", "state"))
    assert states == {
        lesson.pk: Lesson.State.BOOKABLE if lesson == booked else Lesson.State.SCRAPPED
        for lesson in moved
    }
    assert Booking.objects.filter(lesson=booked).count() == 1
