"""A "this and following" split on the example project: ticket tiers, sold tickets, the feed."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.test import override_settings

from example_project.events.models import Event, Organization, TicketTier
from revel_recurring import rules
from revel_recurring.ical import calendar_feed
from revel_recurring.models import EventSeries
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.splits import plan_split, split_series
from tests.support.feed_consumers import (
    CONSUMERS,
    expand,
    expand_notes_many,
    shown_instances,
    window,
)
from tests.support.split_flow import last_start, note_at, page_links, titles

from .helpers import tuesday_run

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")
# The first Tuesday after Vienna's switch to summer time (28 March 2027).
AFTER_SWITCH = dt.datetime(2027, 3, 30, 18, 30, tzinfo=VIENNA)


def runs(series: EventSeries) -> list[Event]:
    return list(Event.objects.filter(series=series, is_template=False).order_by("start"))


@pytest.fixture
def run_series(organization: Organization, now: dt.datetime) -> EventSeries:
    series = tuesday_run(organization, "evening-run", Event.Visibility.PUBLIC, now=now)
    # Twelve weeks of runs, past Vienna's switch to summer time.
    generate_series_events(series, until=now + dt.timedelta(weeks=12), now=now)
    template = Event.objects.get(series=series, is_template=True)
    TicketTier.objects.create(event=template, name="Standard", quantity=30)
    Event.clone_related(template, runs(series))
    return series


# Nobody told: a sold run moves only when ticked (with its people told it moves too).
@override_settings(REVEL_RECURRING_NOTIFY_PEOPLE="none")
def test_sold_tickets_move_with_their_run_and_the_new_template_has_the_tiers(
    run_series: EventSeries, now: dt.datetime
) -> None:
    sold = next(run for run in runs(run_series) if run.start > AFTER_SWITCH)
    TicketTier.objects.filter(event=sold).update(quantity_sold=12)
    change = {
        "recurrence": {"weekdays": [3]},
        "template": {"capacity": 40},
        "name": "Evening Run (Thursdays)",
    }
    plan = plan_split(run_series, at=AFTER_SWITCH, now=now, **change)
    assert {row.id: row.bookings for row in plan.drift if row.booked} == {sold.pk: 12}
    # Each free Tuesday moves on to its week's Thursday; new is only the Thursday beside
    # the sold run, while it stays.
    its_thursday = sold.start.astimezone(VIENNA).date() + dt.timedelta(days=2)
    assert [(date.local.date(), date.beside) for date in plan.new] == [(its_thursday, sold.pk)]
    assert all(row.moves_to for row in plan.drift)

    result = split_series(run_series, at=AFTER_SWITCH, plan_hash=plan.hash, now=now, **change)

    moved = Event.objects.get(pk=sold.pk)
    assert moved.series_id == result.continuation.pk
    assert moved.status == Event.Status.OPEN
    assert TicketTier.objects.get(event=moved).quantity_sold == 12
    # A Tuesday on the Thursday rule is drift: it keeps the old details.
    assert moved.capacity is None
    assert {run.capacity for run in result.created} == {40}
    template = Event.objects.get(series=result.continuation, is_template=True)
    assert list(TicketTier.objects.filter(event=template).values_list("name", "quantity_sold")) == [
        ("Standard", 0)
    ]
    assert template.slug != Event.objects.get(series=run_series, is_template=True).slug
    assert [run.start for run in result.created] == [date.start for date in plan.new]
    assert {run.start.astimezone(VIENNA).time() for run in result.created} == {dt.time(18, 30)}
    assert fresh_until(run_series) == rules.to_utc(AFTER_SWITCH - dt.timedelta(weeks=1))


def fresh_until(series: EventSeries) -> dt.datetime | None:
    return EventSeries.objects.get(pk=series.pk).recurrence_rule.until


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_the_organisation_feed_shows_both_halves_once(
    run_series: EventSeries, now: dt.datetime, consumer: str
) -> None:
    continuation = split_series(run_series, at=AFTER_SWITCH, now=now).continuation
    halves = [run_series, continuation]
    spans = [window(half) for half in halves]
    start, end = min(s[0] for s in spans), min(s[1] for s in spans)
    expected = sorted(shown_instances(run_series) + shown_instances(continuation))
    instants = [instant for instant, _ in expected]
    assert len(set(instants)) == len(instants)
    assert rules.to_utc(AFTER_SWITCH) in instants

    read = expand(consumer, calendar_feed(halves, name="Runners").body, start, end)

    assert read == [item for item in expected if start <= item[0] < end]


def test_a_new_name_alone_renames_the_runs_and_the_halves_link_each_other(
    run_series: EventSeries, now: dt.datetime, client: Any
) -> None:
    continuation = split_series(
        run_series, at=AFTER_SWITCH, name="Evening Run (summer)", now=now
    ).continuation

    assert set(titles(continuation)) == {"Evening Run (summer)"}
    site = "http://127.0.0.1:8000"  # EXAMPLE_SITE_URL: the adapter's addresses are absolute
    assert page_links(client, run_series)["continued-by"] == (
        f"{site}/series/{continuation.slug}/",
        "Evening Run (summer)",
    )
    assert page_links(client, continuation) == {
        "continues": (f"{site}/series/{run_series.slug}/", run_series.name)
    }
    page = client.get(f"/series/{run_series.slug}/").content.decode()
    assert f'href="{site}/series/{continuation.slug}/calendar.ics"' in page


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_the_originals_open_feed_says_where_the_runs_continue(
    run_series: EventSeries, now: dt.datetime, client: Any, consumer: str
) -> None:
    continuation = split_series(
        run_series, at=AFTER_SWITCH, name="Evening Run (summer)", now=now
    ).continuation
    site = "http://127.0.0.1:8000"
    (start, end) = window(run_series)

    body = client.get(f"/series/{run_series.slug}/calendar.ics").content
    (read,) = expand_notes_many(consumer, [(body, start, end)])

    last = note_at(read, last_start(run_series))
    assert last[2].startswith(
        "This series continues as Evening Run (summer) from Tue 30 Mar 2027 18:30 (Europe/Vienna)."
        f" {site}/series/{continuation.slug}/\n"
    )
    assert last[2].endswith(f"{site}/series/{continuation.slug}/calendar.ics")
    assert last[3] == f"{site}/series/{continuation.slug}/"
    assert all("continues" not in note[2] for note in read if note != last)
