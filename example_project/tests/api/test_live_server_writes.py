"""Every write action of the example site's API through a real WSGI server answers its
documented status; the split's ``Location`` is a plain string (wsgiref refused DRF's
``Hyperlink`` after the split had committed)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.live_http import LiveApi, write_every_action

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
