"""Propagating a lesson template edit: the same queries for 30 lessons as for 364 (UUID pks)."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.hosts.studio.models import Booking, Hall, Lesson, School, User
from tests.studio.conftest import API

pytestmark = pytest.mark.django_db


def daily(school: School, count: int) -> EventSeries:
    """``count`` daily lessons from within the hour, in a hall, with long notes."""
    start = (timezone.now() + dt.timedelta(hours=1)).replace(second=0, microsecond=0)
    series = create_recurring_series(
        name=f"Daily drill {count}",
        rule_data={
            "frequency": "DAILY",
            "dtstart": start,
            "timezone": "Europe/Berlin",
            "count": count,
        },
        template_data={
            "school": school,
            "title": "Drill",
            "room": "Hall 1",
            "hall": Hall.objects.create(name="Main hall"),
            "notes": "The whole term's syllabus. " * 200,
            "finishes": start + dt.timedelta(hours=1),
        },
        generation_window_weeks=52,
        auto_publish=True,
    )
    assert Lesson.objects.filter(series=series, is_template=False).count() == count
    return series


def test_propagation_costs_the_same_queries_for_30_and_364_lessons(
    api: APIClient, school: School, pupil: User
) -> None:
    counts: dict[int, int] = {}
    for size in (30, 364):
        series = daily(school, size)
        rows = Lesson.objects.filter(series=series, is_template=False)
        booked = rows.order_by("begins")[size // 2]
        Booking.objects.create(lesson=booked, pupil=pupil)
        stamps = dict(rows.values_list("pk", "changed_at"))
        with CaptureQueriesContext(connection) as captured:
            response = api.patch(
                f"{API}{series.pk}/template/?propagate=all_future",
                {"title": "Drill, advanced", "room": "Hall 2"},
                format="json",
            )
        assert response.status_code == 200, response.json()
        assert response.json()["updated_occurrences"] == size
        # Not counted: the history record's row INSERTs, a page each, whose size the
        # backend's parameter limit sets (several on SQLite for 364 rows).
        counts[size] = len(
            [q for q in captured.captured_queries if "revel_recurring_operationrow" not in q["sql"]]
        )
        stored: set[Any] = set(rows.values_list("title", "room", "is_modified"))
        assert stored == {("Drill, advanced", "Hall 2", False)}
        assert all(isinstance(pk, uuid.UUID) for pk in stamps)
        after = dict(rows.values_list("pk", "changed_at"))
        assert all(after[pk] > stamp for pk, stamp in stamps.items())
        assert Booking.objects.get(pupil=pupil, lesson__series=series).lesson_id == booked.pk
        # The notes did not propagate: only the template's reads and save carry them.
        template = Lesson.objects.get(series=series, is_template=True)
        # Column names as the backend quotes them (MariaDB: backticks).
        quote = connection.ops.quote_name
        # "is_template" on PostgreSQL and SQLite, `is_template` = 1 on MariaDB.
        template_flag = re.compile(rf"{re.escape(quote('is_template'))}( = 1)? AND")
        notes = [q["sql"] for q in captured.captured_queries if quote("notes") in q["sql"]]
        assert notes
        for sql in notes:
            where = sql.rsplit(" WHERE ", 1)[-1]
            # By the flag, or by its pk (SQLite and MariaDB write a UUID as hex,
            # PostgreSQL with dashes).
            by_flag = template_flag.search(where) is not None
            assert by_flag or template.pk.hex in where.replace("-", "")
    assert counts[364] == counts[30]
    assert counts[364] < 100
