"""The History on the studio host: UUID lessons in an operation's dates, a teacher's scope."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.hosts.studio.models import School, User
from tests.studio.admin.test_admin import admin
from tests.studio.conftest import PASSWORD, MakeSeries, lessons
from tests.support.history import record_operation

__all__ = ["admin"]  # the fixture, used by name

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"
OPERATIONS = "/admin/revel_recurring/seriesoperation/"


def test_the_history_names_the_uuid_lessons(admin: Client, make_series: MakeSeries) -> None:
    series = make_series()
    rows = lessons(series)[:2]
    operation = record_operation(
        series, kind="cancel_stale", rows=2, occurrence_pks=[lesson.pk for lesson in rows]
    )

    history = admin.get(f"{CHANGELIST}{series.pk}/history/")
    page = admin.get(f"{CHANGELIST}{series.pk}/history/{operation.pk}/")
    listed = admin.get(f"{OPERATIONS}{operation.pk}/change/")

    assert history.status_code == page.status_code == listed.status_code == 200
    assert [v.row.occurrence_pk for v in page.context["rows"]] == [str(x.pk) for x in rows]
    assert f'data-occurrence="{rows[0].pk}"' in history.content.decode()
    assert listed.context["series_history_url"] == f"{CHANGELIST}{series.pk}/history/"


def test_a_teacher_of_another_school_sees_neither_history_nor_operation(
    make_series: MakeSeries, db: Any
) -> None:
    series = make_series()
    operation = record_operation(series, kind="cancel", rows=1)
    ballet = School.objects.create(name="Ballet", slug="ballet")
    stranger = User.objects.create_user("ballet@studio.example", PASSWORD, is_staff=True)
    ballet.teachers.add(stranger)
    client = Client()
    client.force_login(stranger)  # type: ignore[arg-type]

    assert client.get(f"{CHANGELIST}{series.pk}/history/{operation.pk}/").status_code in (
        403,
        404,
    )
    listed = client.get(OPERATIONS)
    assert listed.status_code in (200, 403)
    if listed.status_code == 200:
        assert list(listed.context["cl"].result_list) == []
