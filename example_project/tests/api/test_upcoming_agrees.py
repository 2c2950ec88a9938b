"""One definition of "upcoming" (``querysets.upcoming_q``) behind every count of it.

A series with past, ongoing, cancelled, draft and future rows: the event queryset's
``upcoming()``, the API's ``occurrence_counts.upcoming`` and ``next_occurrence``,
and the admin's list column and change page agree.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client
from django.utils import timezone

from example_project.events.models import Event
from example_project.tests.api.conftest import ClientFor, World, occurrences_of, url
from revel_recurring.services.cancellation import cancel_occurrence

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"


def test_queryset_api_and_admin_count_the_same_upcoming_occurrences(
    world: World, client_for: ClientFor, admin_client: Client
) -> None:
    series = world.a.series
    rows = occurrences_of(series)
    assert len(rows) >= 5
    now = timezone.now()
    hour = dt.timedelta(hours=1)
    # rows[0] has started and not ended; rows[1] is over; rows[2] is cancelled;
    # rows[3] is a draft that starts later; the rest are open and ahead.
    Event.objects.filter(pk=rows[0].pk).update(start=now - hour, end=now + hour)
    Event.objects.filter(pk=rows[1].pk).update(start=now - 30 * hour, end=now - 29 * hour)
    cancel_occurrence(series, rows[2].start)
    Event.objects.filter(pk=rows[3].pk).update(status=Event.Status.DRAFT)
    expected = len(rows) - 3

    from_queryset = Event.objects.filter(series=series).upcoming().count()
    body = client_for(world.a.owner).get(url(series)).json()
    listed = admin_client.get(CHANGELIST).content.decode()
    column = re.search(
        rf'<a href="{CHANGELIST}{series.pk}/change/[^"]*">[^<]*</a>.*?'
        r'<td class="field-upcoming_count">(\d+)</td>',
        listed,
        re.S,
    )
    assert column is not None
    page = admin_client.get(f"{CHANGELIST}{series.pk}/change/").context["upcoming"]
    on_page = [row for row in page if not row.cancelled]

    assert from_queryset == expected
    assert body["occurrence_counts"]["upcoming"] == expected
    assert int(column.group(1)) == expected
    assert len(on_page) == expected
    # The next occurrence is the first upcoming one: not the ongoing one.
    assert body["next_occurrence"].startswith(
        rows[3].start.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M")
    )
