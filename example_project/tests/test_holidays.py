"""Holiday rules on the example project: Austrian holidays, ticket tiers, sold tickets kept.

A Vienna evening run on Mondays and Thursdays at 18:30 from 1 March 2027, a
sixteen-week window (to 21 June): Easter Monday (29 March), Ascension Day
(Thursday 6 May), Whit Monday (17 May) and Corpus Christi (Thursday 27 May) are
Austrian public holidays on its days.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from example_project.events.models import Event, Organization, TicketTier
from revel_recurring.models import EventSeries
from revel_recurring.services.generation.chunks import generate_series_chunk_events
from revel_recurring.services.lifecycle import create_recurring_series
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")
NOW = dt.datetime(2027, 3, 1, 9, 0, tzinfo=VIENNA)
HOLIDAYS = [dt.date(2027, 3, 29), dt.date(2027, 5, 6), dt.date(2027, 5, 17), dt.date(2027, 5, 27)]


def at_1830(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA)


def evening_run(
    organization: Organization,
    policy: str | None,
    *,
    slug: str,
    weekdays: tuple[int, ...] = (0, 3),
    weeks: int = 16,
    generate: bool = True,
) -> EventSeries:
    start = at_1830(dt.date(2027, 3, 1))

    def tiers(template: Event) -> None:
        TicketTier.objects.create(
            event=template,
            name="Standard",
            price=Decimal("5.00"),
            quantity=30,
            sales_end=template.start - dt.timedelta(hours=1),
        )

    return create_recurring_series(
        name=slug.replace("-", " ").title(),
        rule_data={
            "frequency": "WEEKLY",
            "weekdays": list(weekdays),
            "timezone": "Europe/Vienna",
            "dtstart": start,
        },
        template_data={
            "organization": organization,
            "name": "Evening Run",
            "slug": slug,
            "end": start + dt.timedelta(minutes=90),
            "rsvp_before": start - dt.timedelta(hours=2),
        },
        auto_publish=True,
        generation_window_weeks=weeks,
        holidays=None if policy is None else {"country": "AT", "policy": policy},
        setup_template=tiers,
        generate=generate,
        now=NOW,
    )


def runs(series: EventSeries) -> list[Event]:
    return list(Event.objects.filter(series=series, is_template=False).order_by("start"))


def test_skip_leaves_the_holidays_out_and_shift_moves_them_with_their_tiers(
    organization: Organization,
) -> None:
    skipping = evening_run(organization, "skip", slug="skipping")
    shifting = evening_run(organization, "shift", slug="shifting")

    skipped = runs(skipping)
    assert not [run for run in skipped if run.start.astimezone(VIENNA).date() in HOLIDAYS]
    assert len(skipped) == 32 - len(HOLIDAYS)
    moved = [run for run in runs(shifting) if run.start != run.recurrence_id]
    assert [(run.recurrence_id, run.start) for run in moved] == [
        (at_1830(day), at_1830(day + dt.timedelta(days=1))) for day in HOLIDAYS
    ]
    for run in moved:
        # What the host shifts with the start, and the tiers copied onto the run.
        assert run.rsvp_before == run.start - dt.timedelta(hours=2)
        assert [tier.sales_end for tier in run.ticket_tiers.all()] == [
            run.start - dt.timedelta(hours=1)
        ]
        assert run.status == Event.Status.OPEN
    assert len(runs(shifting)) == 32


def test_switching_to_skip_keeps_the_moved_run_with_sold_tickets(
    organization: Organization,
) -> None:
    shifting = evening_run(organization, "shift", slug="shifting")
    moved = [run for run in runs(shifting) if run.start != run.recurrence_id]
    sold = moved[1]  # Ascension Day's run, held on Friday 7 May
    TicketTier.objects.filter(event=sold).update(quantity_sold=9)
    changes = {"holidays": {"policy": "skip"}}

    plan = plan_recurrence_change(shifting, changes, now=NOW)
    applied = apply_recurrence_plan(shifting, plan.hash, changes, cancel_drift="unbooked", now=NOW)

    assert [row.id for row in plan.drift] == [run.pk for run in moved]
    assert {row.id: row.bookings for row in plan.booked_drift} == {sold.pk: 9}
    assert plan.new == ()
    assert [(date.id, date.display) for date in applied.kept_booked] == [
        (sold.pk, "Fri 7 May 2027 18:30 (Europe/Vienna)")
    ]
    assert applied.cancelled == [run.pk for run in moved if run.pk != sold.pk]
    statuses = dict(Event.objects.filter(pk__in=[r.pk for r in moved]).values_list("pk", "status"))
    assert statuses == {
        run.pk: Event.Status.OPEN if run.pk == sold.pk else Event.Status.CANCELLED for run in moved
    }
    assert TicketTier.objects.get(event=sold).quantity_sold == 9


@pytest.mark.postgres
@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL")
def test_chunk_queries_with_holiday_series_mixed_in_do_not_grow_on_postgresql(
    organization: Organization,
) -> None:
    policies: tuple[Any, ...] = ("shift", "skip", None)

    def chunk(prefix: str, count: int) -> list[EventSeries]:
        return [
            evening_run(
                organization,
                policies[n % 3],
                slug=f"{prefix}-{n}",
                weekdays=(0,),
                weeks=8,
                generate=False,
            )
            for n in range(count)
        ]

    counts = []
    for series in (chunk("few", 3), chunk("many", 30)):
        with CaptureQueriesContext(connection) as queries:
            result = generate_series_chunk_events([s.pk for s in series], now=NOW)
        assert result.chunked == len(series)
        counts.append(len(queries.captured_queries))
        # Eight Mondays to 26 April; Easter Monday moved, left out or kept.
        assert [len(runs(s)) for s in series[:3]] == [8, 7, 8]

    # As test_generation_chunk's budget: SAVEPOINT, the SKIP LOCKED lock, rules,
    # templates with slots and pending exdates, occurrence INSERT, tier SELECT
    # and INSERT, the enrolments of the series, cursor UPDATE, the history's
    # summary (its record and its series, two INSERTs), RELEASE.
    assert counts == [12, 12]


def _moved_note(body: bytes) -> str:
    calendar = icalendar.Calendar.from_ical(body)
    (moved,) = [
        event
        for event in calendar.walk("VEVENT")
        if "RECURRENCE-ID" in event and event["RECURRENCE-ID"].dt == at_1830(HOLIDAYS[0])
    ]
    assert moved["DTSTART"].dt == at_1830(dt.date(2027, 3, 30))
    assert str(moved["SUMMARY"]) == "Evening Run"
    return str(moved["DESCRIPTION"])


def test_the_feed_names_the_holiday_of_a_moved_run_in_the_readers_language(
    organization: Organization, settings: Any
) -> None:
    # The site's LocaleMiddleware picks the language; its feed cache is "default".
    assert settings.REVEL_RECURRING_FEED_CACHE == "default"
    evening_run(organization, "shift", slug="evening-run")
    client = Client()

    german = client.get("/series/evening-run/calendar.ics", HTTP_ACCEPT_LANGUAGE="de")
    english = client.get("/series/evening-run/calendar.ics", HTTP_ACCEPT_LANGUAGE="en")
    # A German client revalidating with the English ETag is not told its copy is current.
    crossed = client.get(
        "/series/evening-run/calendar.ics",
        HTTP_ACCEPT_LANGUAGE="de",
        HTTP_IF_NONE_MATCH=english["ETag"],
    )

    assert (german.status_code, english.status_code, crossed.status_code) == (200, 200, 200)
    assert _moved_note(german.content) == "Wegen Ostermontag vom Mo, 29. Mär 2027 verschoben."
    assert _moved_note(english.content) == "Moved from Mon 29 Mar 2027 because of Easter Monday."
    assert crossed.content == german.content


def _moved_rows(body: bytes) -> list[str]:
    """The text of each row of the series page's table that a holiday moved."""
    rows = re.findall(r'<tr class="moved">(.*?)</tr>', body.decode(), re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", row).split()) for row in rows]


def test_the_series_page_says_which_holiday_moved_a_run_as_the_feed_does(
    organization: Organization,
) -> None:
    evening_run(organization, "shift", slug="evening-run")
    client = Client()

    english = client.get("/series/evening-run/", HTTP_ACCEPT_LANGUAGE="en")
    german = client.get("/series/evening-run/", HTTP_ACCEPT_LANGUAGE="de")

    assert (english.status_code, german.status_code) == (200, 200)
    # Easter Monday, Ascension Day, Whit Monday and Corpus Christi: four runs a day later.
    moved = _moved_rows(english.content)
    assert len(moved) == 4
    assert (
        "Fri 7 May 2027 18:30 (Europe/Vienna) Moved from Thu 6 May 2027 because of Ascension Day."
        in moved[1]
    )
    assert "Moved from Thu 27 May 2027 because of Corpus Christi." in moved[3]
    assert "Moved from Mon 29 Mar 2027 because of Easter Monday." in moved[0]
    assert (
        "Wegen Christi Himmelfahrt vom Do, 6. Mai 2027 verschoben."
        in _moved_rows(german.content)[1]
    )
    # The feed says the same of the same run.
    assert (
        _moved_note(
            client.get("/series/evening-run/calendar.ics", HTTP_ACCEPT_LANGUAGE="en").content
        )
        in moved[0]
    )
    # The rule sentence is the admin's: the holiday policy is part of it.
    page = english.content.decode()
    assert (
        "Every week on Monday and Thursday at 18:30 (Europe/Vienna); "
        "on holidays (Austria) the next free day instead" in page
    )


def test_a_series_page_without_holidays_moved_shows_no_note(organization: Organization) -> None:
    evening_run(organization, "skip", slug="evening-run")

    response = Client().get("/series/evening-run/", HTTP_ACCEPT_LANGUAGE="en")

    assert _moved_rows(response.content) == []
    assert "Moved from" not in response.content.decode()
    assert "except on holidays (Austria)" in response.content.decode()
