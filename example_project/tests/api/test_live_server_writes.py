"""Every write action of the example site's API through a real WSGI server answers its
documented status; the split's ``Location`` is a plain string (wsgiref refused DRF's
``Hyperlink`` after the split had committed)."""

from __future__ import annotations

from typing import Any

import pytest

from example_project.events.models import CalendarToken, Event
from tests.support.http_dates import after_this_second
from tests.support.live_http import LiveApi, write_every_action

from .conftest import World, create_body, occurrences_of

pytestmark = pytest.mark.django_db(transaction=True)


def test_every_write_action_through_a_real_wsgi_server_answers_its_documented_status(
    live_server: Any, world: World
) -> None:
    series = world.a.series

    answered = write_every_action(
        LiveApi(live_server.url, world.a.owner),
        series.pk,
        [event.start for event in occurrences_of(series)],
        create=create_body(world.a.organization),
        template={"capacity": 25},
    )

    assert answered == {
        name: (documented, documented) for name, (_, documented) in answered.items()
    }
    assert len(answered) == 17


def test_the_feeds_through_a_real_wsgi_server_answer_with_their_validators(
    live_server: Any, world: World
) -> None:
    """Every header a feed sets (ETag, Last-Modified, Cache-Control, Content-Disposition)
    passes wsgiref, on the API's action and on the site's open and private feeds."""
    series = world.a.series
    Event.objects.filter(series=series, is_template=True).update(visibility=Event.Visibility.PUBLIC)
    Event.objects.get(series=series, is_template=True).save()  # stamps the organisation
    key = CalendarToken.for_user(world.a.member).key
    api = LiveApi(live_server.url, world.a.member)
    after_this_second()

    for path in (
        f"/api/recurring/series/{series.pk}/ical/",
        f"/series/{series.slug}/calendar.ics",
        f"/organizations/{world.a.organization.slug}/calendar.ics",
        f"/calendar/{key}/organizations/{world.a.organization.slug}.ics",
    ):
        first = api.get(path)
        assert first.status == 200, path
        assert first.headers["Content-Type"] == "text/calendar; charset=utf-8"
        assert first.headers["Content-Disposition"].startswith('inline; filename="')
        assert first.headers["Cache-Control"] == "no-cache"
        for validator, header in (
            ("ETag", "If-None-Match"),
            ("Last-Modified", "If-Modified-Since"),
        ):
            assert api.get(path, **{header: first.headers[validator]}).status == 304, path
