"""The history on the UUID host: scoped by school, UUID lessons in the rows."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.hosts.studio.models import School, User
from tests.studio.conftest import API, MakeSeries, lessons
from tests.support.history import record_operation

pytestmark = pytest.mark.django_db


def test_another_schools_series_history_is_a_404(api: APIClient, make_series: MakeSeries) -> None:
    series = make_series()
    rows = lessons(series)[:3]
    operation = record_operation(
        series, kind="cancel_stale", rows=3, occurrence_pks=[lesson.pk for lesson in rows]
    )
    ballet = School.objects.create(name="Ballet", slug="ballet")
    stranger = User.objects.create_user("ballet@studio.example", "pw")
    ballet.teachers.add(stranger)
    other = APIClient()
    other.force_authenticate(stranger)

    assert other.get(f"{API}{series.pk}/operations/").status_code == 404
    assert other.get(f"{API}{series.pk}/operations/{operation.pk}/").status_code == 404
    assert other.get(f"{API}{series.pk}/operations/{operation.pk}/rows/").status_code == 404
    assert APIClient().get(f"{API}{series.pk}/operations/").status_code in (401, 403)

    listed = api.get(f"{API}{series.pk}/operations/").json()["results"]
    shown = api.get(f"{API}{series.pk}/operations/{operation.pk}/rows/").json()["results"]
    # Newest first: this operation, then the series' creation.
    assert listed[0]["id"] == str(operation.pk)
    assert [row["kind"] for row in listed] == ["cancel_stale", "create"]
    assert [row["occurrence_id"] for row in shown] == [str(lesson.pk) for lesson in rows]
