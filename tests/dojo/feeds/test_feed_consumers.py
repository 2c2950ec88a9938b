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
from rest_framework.test import APIClient

from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import update_series_recurrence
from tests.dojo.conftest import API, MakeSeries, trainings
from tests.support.feed_consumers import CONSUMERS, expand_many, shown_instances, window

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
    # Tuesday -> Friday from the third week: the two Tuesdays before it stay, as trainings
    # of their own; the later ones move to their weeks' Fridays.
    judo = make_series(name="Judo")
    third_friday = trainings(judo)[0].begins_at + dt.timedelta(weeks=2, days=3)
    update_series_recurrence(judo, rule_changes={"weekdays": [4], "dtstart": third_friday})
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
