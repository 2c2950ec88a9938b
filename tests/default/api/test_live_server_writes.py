"""Every write action of the API through a real WSGI server answers its documented status.

Django's test client passes any header object through; ``runserver`` and
``LiveServerTestCase`` (wsgiref) refuse one that is not a plain ``str``, after
the view has committed: a split answered 500 for a split that happened.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from revel_recurring.services.generation import generate_series_events
from tests.support.api import next_tuesday, user_with
from tests.support.factories import make_series, occurrences
from tests.support.live_http import InProcessApi, LiveApi, write_every_action
from tests.support.queued import broker_down

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("tests.api_urls")]

__all__ = ["broker_down"]  # the fixture, used by name


def _host(django_user_model: Any) -> tuple[Any, list[dt.datetime], Any, dict[str, Any]]:
    """A weekly series with six weeks generated, its starts, an editor and a create body."""
    series = make_series(dtstart=next_tuesday(), window_weeks=6)
    generate_series_events(series)
    starts = [event.starts_at for event in occurrences(series)]
    user = user_with(
        django_user_model,
        "editor",
        "view_eventseries",
        "add_eventseries",
        "change_eventseries",
        "delete_eventseries",
    )
    start = next_tuesday() + dt.timedelta(days=1)
    create = {
        "name": "Live yoga",
        "recurrence": {
            "frequency": "WEEKLY",
            "dtstart": start.isoformat(),
            "timezone": "Europe/Vienna",
        },
        "template": {"title": "Live yoga", "ends_at": (start + dt.timedelta(hours=1)).isoformat()},
    }
    return series, starts, user, create


def test_every_write_action_through_a_real_wsgi_server_answers_its_documented_status(
    live_server: Any, django_user_model: Any
) -> None:
    series, starts, user, create = _host(django_user_model)

    answered = write_every_action(
        LiveApi(live_server.url, user),
        series.pk,
        starts,
        create=create,
        template={"venue": "Hall B"},
    )

    assert answered == {
        name: (documented, documented) for name, (_, documented) in answered.items()
    }
    assert len(answered) == 17


def test_no_write_action_of_the_api_needs_the_broker(
    django_user_model: Any, broker_down: str
) -> None:
    """With Celery's broker refusing connections, every write action still answers its status.

    No API action queues work (generation, plans and splits run in the request),
    so there is nothing the broker could fail to take; this holds it. In the
    test's own thread: the Celery app ``broker_down`` makes current is that thread's.
    """
    series, starts, user, create = _host(django_user_model)

    answered = write_every_action(
        InProcessApi(user), series.pk, starts, create=create, template={"venue": "Hall B"}
    )

    assert answered == {
        name: (documented, documented) for name, (_, documented) in answered.items()
    }
    assert len(answered) == 17
