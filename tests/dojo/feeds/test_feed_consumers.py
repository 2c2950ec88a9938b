"""The dojo (text keys, integer statuses, no end field) read by the three consumers.

A reduced set of the scenarios in example_project/tests/test_feed_consumers.py,
through the API's feeds and the dojo's own calendar: a cancelled date (integer
status), a renamed and a moved training, a draft series left out, and a rule
change whose earlier dates stay.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from revel_recurring import rules
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import update_series_recurrence
from revel_recurring.services.splits import split_series
from tests.dojo.conftest import API, MakeSeries, trainings
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
def test_feeds_expand_to_the_bookable_trainings(
    consumer: str, api: APIClient, client: Any, make_series: MakeSeries
) -> None:
    karate = make_series()
    cancelled, renamed, moved, twice = trainings(karate)[:4]
    cancel_occurrence(karate, cancelled.begins_at)
    # Cancelled twice, then restored: the date is bookable again and exported.
    cancel_occurrence(karate, twice.begins_at)
    cancel_occurrence(karate, twice.begins_at)
    restore_occurrence(karate, twice.begins_at)
    renamed.title = "Karate (Gasttrainer)"
    renamed.save()
    moved.begins_at += dt.timedelta(hours=1)
    moved.save()
    # Tuesday -> Friday: the Tuesdays already made stay, as trainings of their own.
    judo = make_series(name="Judo")
    update_series_recurrence(judo, rule_changes={"weekdays": [4]})
    generate_series_events(judo)
    # Drafts are never exported.
    make_series(name="Aikido (Entwurf)", auto_publish=False)
    (start, end), (other_start, other_end) = window(karate), window(judo)
    both = (min(start, other_start), min(end, other_end))
    expected = [
        shown_instances(karate),
        shown_instances(judo),
        sorted(shown_instances(karate) + shown_instances(judo)),
    ]
    assert twice.begins_at.astimezone(dt.UTC) in {instant for instant, _ in expected[0]}
    assert cancelled.begins_at.astimezone(dt.UTC) not in {instant for instant, _ in expected[0]}
    assert {instant.weekday() for instant, _ in expected[1]} == {1, 4}
    assert all(both[0] <= instant < both[1] for instant, _ in expected[2])

    read = expand_many(
        consumer,
        [
            (b"".join(api.get(f"{API}{karate.pk}/ical/")), start, end),
            (b"".join(api.get(f"{API}{judo.pk}/ical/")), other_start, other_end),
            (b"".join(client.get("/kalender.ics")), *both),
        ],
    )

    assert read == expected


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_the_dojo_feed_shows_where_a_split_series_continues(
    consumer: str, client: Any, make_series: MakeSeries
) -> None:
    karate = make_series()
    at = rules.to_utc(trainings(karate)[3].begins_at)
    continuation = split_series(karate, at=at, name="Karate Fortgeschrittene").continuation
    feed = "https://dojo.example" + reverse("revel_recurring:series-ical", args=[continuation.pk])
    (start, _), (_, end) = window(karate), window(continuation)

    body = client.get("/kalender.ics").content
    (read,) = expand_notes_many(consumer, [(body, start, end)])

    last = note_at(read, last_start(karate))
    assert last[1] == "Karate Anfänger"
    # In German, the dojo's language: the name and the address are what must be there.
    assert "Karate Fortgeschrittene" in last[2]
    assert last[2].endswith(feed)
    assert last[3] == feed
    others = [note for note in read if note != last]
    assert {note[1] for note in others} == {"Karate Anfänger", "Karate Fortgeschrittene"}
    assert all(note[2:] == ("", "") for note in others)
