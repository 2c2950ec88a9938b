"""Generation on the studio host: the daily pass, one series, and the digest, with UUID lessons."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from revel_recurring import tasks
from revel_recurring.models import EventSeries
from revel_recurring.notifications import Audience
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.generation.chunks import generate_series_chunk_events
from revel_recurring.services.lifecycle import create_recurring_series
from tests.hosts.studio import notifier
from tests.hosts.studio.models import Lesson, School, User
from tests.studio.conftest import BERLIN, lessons

pytestmark = pytest.mark.django_db

# A Sunday in March: the 8-week window crosses Berlin's switch to summer time (29 March).
NOW = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)
FIRST = dt.datetime(2026, 3, 5, 18, 30, tzinfo=BERLIN)  # a Thursday


def lesson_series(school: School, name: str, *, weekday: int = 3) -> EventSeries:
    start = FIRST + dt.timedelta(days=weekday - 3)
    return create_recurring_series(
        name=name,
        rule_data={
            "frequency": "WEEKLY",
            "weekdays": [weekday],
            "dtstart": start,
            "timezone": "Europe/Berlin",
        },
        template_data={
            "school": school,
            "title": name,
            "room": "Hall 2",
            "finishes": start + dt.timedelta(minutes=75),
        },
        auto_publish=True,
        generate=False,
        now=NOW,
    )


def test_one_series_generates_uuid_lessons_on_the_wall_clock(
    school: School, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    series = lesson_series(school, "Salsa")

    with django_capture_on_commit_callbacks(execute=True):
        created = generate_series_events(series, now=NOW)

    rows = lessons(series)
    assert [lesson.pk for lesson in created] == [lesson.pk for lesson in rows]
    assert len(rows) == 8
    assert all(isinstance(lesson.pk, uuid.UUID) for lesson in rows)
    template = Lesson.objects.get(series=series, is_template=True)
    assert template.pk not in {lesson.pk for lesson in rows}
    assert {lesson.begins.astimezone(BERLIN).strftime("%a %H:%M") for lesson in rows} == {
        "Thu 18:30"
    }
    assert {lesson.finishes - lesson.begins for lesson in rows} == {dt.timedelta(minutes=75)}
    assert {(lesson.room, lesson.state, lesson.school_id) for lesson in rows} == {
        ("Hall 2", Lesson.State.BOOKABLE, school.pk)
    }
    assert [lesson.occurrence_index for lesson in rows] == list(range(1, 9))


def test_the_daily_pass_generates_each_due_series_once_with_one_digest_each(
    school: School,
    teacher: User,
    settings: Any,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    settings.REVEL_RECURRING_GENERATION_CHUNK_SIZE = 2
    series = [lesson_series(school, name, weekday=n) for n, name in enumerate("ABC")]
    EventSeries.objects.update(next_due_at=NOW - dt.timedelta(hours=1))

    with django_capture_on_commit_callbacks(execute=True):
        result = tasks.generate_all_series.apply(kwargs={"now": NOW.isoformat()}).get()
    with django_capture_on_commit_callbacks(execute=True):
        again = tasks.generate_all_series.apply(kwargs={"now": NOW.isoformat()}).get()

    assert result == {"due": 3, "dispatched": 3, "failed": 0, "skipped": 0}
    assert again["due"] == 0
    assert [len(lessons(s)) for s in series] == [8, 8, 8]
    assert sorted(d.series.pk for d in notifier.digests) == [s.pk for s in series]
    for digest in notifier.digests:
        own = lessons(digest.series)
        assert [o.pk for o in digest.occurrences] == [lesson.pk for lesson in own]
        assert all(isinstance(o.pk, uuid.UUID) for o in digest.occurrences)
        assert [r.pk for r in digest.recipients] == [teacher.pk]
        assert isinstance(digest.recipients[0].pk, uuid.UUID)
        assert digest.audience is Audience.STAFF
        assert digest.timezone == "Europe/Berlin"


def test_a_chunk_generates_only_what_is_missing(
    school: School, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    early = lesson_series(school, "Early")
    late = lesson_series(school, "Late", weekday=4)
    with django_capture_on_commit_callbacks(execute=True):
        generate_series_events(early, now=NOW)
    notifier.digests.clear()
    before = {lesson.pk for lesson in lessons(early)}

    with django_capture_on_commit_callbacks(execute=True):
        result = generate_series_chunk_events([early.pk, late.pk], now=NOW + dt.timedelta(weeks=1))

    assert result.failures == {}
    assert before <= {lesson.pk for lesson in lessons(early)}
    assert len(lessons(early)) == 9
    # Friday 6 March is in the past by then: never materialized.
    assert len(lessons(late)) == 8
    by_series = {d.series.pk: d for d in notifier.digests}
    assert len(notifier.digests) == 2
    assert len(by_series[early.pk].occurrences) == 1
    assert [o.pk for o in by_series[late.pk].occurrences] == [x.pk for x in lessons(late)]
