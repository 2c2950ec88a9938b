"""``manage.py revel_recurring_plan`` on the example project: tickets sold count as bookings."""

from __future__ import annotations

import datetime as dt
import re
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from example_project.events.models import Event, Organization, TicketTier
from example_project.tests.helpers import weekly_run
from revel_recurring.models import EventSeries

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")


def evening_run(organization: Organization) -> EventSeries:
    # The command runs on the real clock: Tuesdays 18:30 Vienna from the coming one.
    today = timezone.now().astimezone(VIENNA).date()
    day = today + dt.timedelta(days=(1 - today.weekday()) % 7 or 7)
    start = dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA)
    return weekly_run(organization, "Evening Run", start=start, window_weeks=3)


# Nobody told: a sold run moves only when ticked (with its people told it moves too).
@override_settings(REVEL_RECURRING_NOTIFY_PEOPLE="none")
def test_tickets_sold_show_as_bookings_and_keep_their_date(organization: Organization) -> None:
    series = evening_run(organization)
    runs = list(Event.objects.filter(series=series, is_template=False).order_by("start"))
    TicketTier.objects.create(event=runs[0], name="Standard", quantity=30, quantity_sold=4)
    TicketTier.objects.create(event=runs[0], name="Reduced", quantity=10, quantity_sold=3)
    out = StringIO()
    call_command("revel_recurring_plan", series.slug, "--set", "weekdays=3", stdout=out)
    text = out.getvalue()
    first = re.search(
        rf"^  Tue .*  7 bookings  -  +{runs[0].pk}  +moves to Thu .*$", text, re.MULTILINE
    )
    assert first is not None, text
    plan_hash = re.search(r"^Plan hash: (\w+)$", text, re.MULTILINE).group(1)  # type: ignore[union-attr]

    done = StringIO()
    call_command(
        "revel_recurring_plan",
        series.slug,
        "--set",
        "weekdays=3",
        "--apply",
        plan_hash,
        "--cancel-drift",
        "unbooked",
        stdout=done,
    )

    assert "Kept because booked: 1\n" in done.getvalue()
    # The other runs move to their weeks' Thursdays (same rows): nothing cancelled.
    assert f"Moved: {len(runs) - 1}\n" in done.getvalue()
    assert "Cancelled: 0\n" in done.getvalue()
    after = {r.pk: r for r in Event.objects.filter(pk__in=[r.pk for r in runs])}
    assert after[runs[0].pk].status == Event.Status.OPEN
    assert after[runs[0].pk].start == runs[0].start
    assert {after[r.pk].status for r in runs[1:]} == {Event.Status.OPEN}
    assert {after[r.pk].start.weekday() for r in runs[1:]} == {3}
