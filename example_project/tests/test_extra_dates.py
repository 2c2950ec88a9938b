"""Extra dates on the example project: ticket tiers copied, sold tickets kept, the feed."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from example_project.events.models import Event, Organization, TicketTier
from revel_recurring.exceptions import OccurrenceHasBookingsError
from revel_recurring.ical import rule_from_ical, series_feed
from revel_recurring.services.extra_dates import add_extra_date, remove_extra_date
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import update_series_recurrence
from tests.support.feed_consumers import CONSUMERS, expand_many, shown_instances, window

from .helpers import tuesday_run

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")
# A Saturday race after Vienna's switch to summer time (28 March 2027).
RACE = dt.datetime(2027, 4, 3, 10, 0, tzinfo=VIENNA)


def test_an_extra_date_gets_the_tiers_keeps_its_sold_tickets_and_reimports(
    organization: Organization, now: dt.datetime
) -> None:
    series = tuesday_run(organization, "evening-run", Event.Visibility.PUBLIC, now=now)
    generate_series_events(series, until=now + dt.timedelta(weeks=12), now=now)
    template = Event.objects.get(series=series, is_template=True)
    TicketTier.objects.create(event=template, name="Standard", quantity=30)
    race = add_extra_date(series, RACE, now=now)
    assert race is not None
    assert race.slug == "evening-run-20270403-0800"  # the host's slugs read UTC
    tier = TicketTier.objects.get(event=race)
    assert tier.quantity == 30
    TicketTier.objects.filter(pk=tier.pk).update(quantity_sold=5)

    with pytest.raises(OccurrenceHasBookingsError) as caught:
        remove_extra_date(series, RACE, now=now)
    assert "Sat 3 Apr 2027 10:00" in str(caught.value)
    # Tuesdays -> Thursdays: the race is no drift, and keeps its tickets.
    update_series_recurrence(series, rule_changes={"weekdays": [3]}, now=now)
    generate_series_events(series, until=now + dt.timedelta(weeks=12), now=now)
    assert [run.start for run in Event.objects.occurrences().filter(series=series)].count(RACE) == 1
    race.refresh_from_db()
    assert race.status != Event.Status.CANCELLED
    assert TicketTier.objects.get(event=race).quantity_sold == 5

    body = series_feed(series, now=now).body
    assert b"RDATE;TZID=Europe/Vienna:20270403T100000" in body
    start, end = window(series)
    shown = shown_instances(series)
    assert (RACE, "Evening Run") in shown
    read = {consumer: expand_many(consumer, [(body, start, end)])[0] for consumer in CONSUMERS}
    assert read == {consumer: shown for consumer in CONSUMERS}
    assert rule_from_ical(body.decode())["extra_dates"] == [RACE]
