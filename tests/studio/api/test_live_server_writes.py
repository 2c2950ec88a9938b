"""Every write action of the API on the studio host (UUID lessons and users) through a real
WSGI server answers its documented status; the split's ``Location`` is a plain string."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from tests.hosts.studio.models import School, User
from tests.studio.conftest import MakeSeries, lessons, next_weekday
from tests.support.live_http import LiveApi, write_every_action

pytestmark = pytest.mark.django_db(transaction=True)


def test_every_write_action_through_a_real_wsgi_server_answers_its_documented_status(
    live_server: Any, teacher: User, school: School, make_series: MakeSeries
) -> None:
    series = make_series(name="Salsa")
    start = next_weekday(1)
    create = {
        "name": "Bachata",
        "recurrence": {
            "frequency": "WEEKLY",
            "dtstart": start.isoformat(),
            "timezone": "Europe/Berlin",
        },
        "template": {
            "school": str(school.pk),
            "title": "Bachata",
            "finishes": (start + dt.timedelta(hours=1)).isoformat(),
        },
    }

    answered = write_every_action(
        LiveApi(live_server.url, teacher),
        series.pk,
        [lesson.begins for lesson in lessons(series)],
        create=create,
        template={"room": "Hall 2"},
    )

    assert answered == {
        name: (documented, documented) for name, (_, documented) in answered.items()
    }
    assert len(answered) == 17
