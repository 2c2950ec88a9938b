"""The studio host (UUID keys, its own field names) read by the three consumers.

A reduced set of the scenarios in example_project/tests/test_feed_consumers.py,
through the host's own feed URLs, so that the shared harness
(tests/support/feed_consumers.py) is proven on this host too.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from rest_framework.test import APIClient

from revel_recurring import rules
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import update_series_recurrence
from revel_recurring.services.splits import split_series
from tests.studio.conftest import API, MakeSeries, lessons
from tests.support.feed_consumers import (
    CONSUMERS,
    expand_many,
    expand_notes_many,
    shown_instances,
    window,
)
from tests.support.split_flow import last_start, note_at

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_feeds_expand_to_the_bookable_lessons(
    consumer: str, api: APIClient, client: Any, make_series: MakeSeries
) -> None:
    salsa = make_series()
    cancelled, renamed, moved = lessons(salsa)[:3]
    cancel_occurrence(salsa, cancelled.begins)
    renamed.title = "Salsa (guest teacher)"
    renamed.save()
    moved.begins += dt.timedelta(hours=1)
    moved.finishes += dt.timedelta(hours=1)
    moved.save()
    # Thursday -> Friday: the Thursdays already made stay, as lessons of their own.
    tango = make_series(name="Tango")
    update_series_recurrence(tango, rule_changes={"weekdays": [4]})
    generate_series_events(tango)
    (start, end), (other_start, other_end) = window(salsa), window(tango)
    both = (min(start, other_start), min(end, other_end))
    expected = [
        shown_instances(salsa),
        shown_instances(tango),
        sorted(shown_instances(salsa) + shown_instances(tango)),
    ]
    assert {instant.weekday() for instant, _ in expected[1]} == {3, 4}
    assert all(both[0] <= instant < both[1] for instant, _ in expected[2])

    read = expand_many(
        consumer,
        [
            (b"".join(api.get(f"{API}{salsa.pk}/ical/")), start, end),
            (b"".join(api.get(f"{API}{tango.pk}/ical/")), other_start, other_end),
            (b"".join(client.get("/schools/salsa/calendar.ics")), *both),
        ],
    )

    assert read == expected


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_the_school_feed_shows_where_a_split_series_continues(
    consumer: str, client: Any, make_series: MakeSeries
) -> None:
    salsa = make_series(generation_window_weeks=6)
    at = rules.to_utc(lessons(salsa)[3].begins)
    continuation = split_series(salsa, at=at, name="Salsa (advanced)").continuation
    feed = "https://studio.example/schools/salsa/calendar.ics"
    (start, _), (_, end) = window(salsa), window(continuation)

    body = client.get("/schools/salsa/calendar.ics").content
    (read,) = expand_notes_many(consumer, [(body, start, end)])

    last = note_at(read, last_start(salsa))
    assert last[1] == "Salsa"
    assert last[2].startswith("This series continues as Salsa (advanced) from ")
    assert last[2].endswith(f"Subscribe to its calendar to keep getting its dates: {feed}")
    assert last[3] == feed
    others = [note for note in read if note != last]
    assert {note[1] for note in others} == {"Salsa", "Salsa (advanced)"}
    assert all(note[2:] == ("", "") for note in others)
