"""Booked dates in the series admin: marked, unticked, kept and named unless a person
ticks them; one booked date is cancelled only "with its bookings"."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from revel_recurring.admin.selection import LISTED_DATES
from revel_recurring.models import EventSeries
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event, Seat
from tests.support.admin import CHANGELIST, change_url, generated_series, mixed_series, texts
from tests.support.drift import drift_without_partners
from tests.support.factories import VIENNA, make_series, occurrences

pytestmark = pytest.mark.django_db

CANCELLED = Event.RECURRING_STATUS_CANCELLED


def book(event: Event) -> None:
    Seat.objects.create(event=event, label="Paid", quantity=5, booked=1)


def display(event: Event) -> str:
    """The date as a person reads it, spelled out independently of the app's helper."""
    local = event.starts_at.astimezone(VIENNA)
    return f"{local:%a} {local.day} {local:%b %Y %H:%M} (Europe/Vienna)"


def checkboxes(page: str) -> dict[int, bool]:
    """Each listed occurrence's id -> whether its checkbox is ticked."""
    found = re.findall(r'<input type="checkbox" name="occurrence" value="(\d+)"( checked)?>', page)
    return {int(pk): bool(ticked) for pk, ticked in found}


def marked_booked(page: str) -> list[int]:
    found = re.findall(r'<input type="hidden" name="booked" value="(\d+)">', page)
    return [int(pk) for pk in found]


def run_action(client: Any, *series: EventSeries, **extra: Any) -> Any:
    data = {
        "action": "cancel_stale_action",
        "_selected_action": [s.pk for s in series],
        **extra,
    }
    return client.post(CHANGELIST, data, follow=True)


def test_the_confirmation_marks_booked_dates_and_leaves_them_unticked(admin_client: Any) -> None:
    yoga = mixed_series(name="Yoga")
    drifted = detect_cadence_drift(yoga)
    booked = Event.objects.get(pk=drifted[2])
    book(booked)

    page = run_action(admin_client, yoga).content.decode()

    assert checkboxes(page) == {pk: pk != booked.pk for pk in drifted}
    assert marked_booked(page) == [booked.pk]
    assert 'id="revel-booked-note"' in page
    assert re.search(r'<li class="revel-booked">.*?' + re.escape(display(booked)), page)
    # Nothing is wrong: a neutral note, and the plan page's words for a booked date.
    assert '<p class="revel-note" id="revel-booked-note">' in page
    assert "errornote" not in page
    assert re.search(r'<span class="revel-badge-booked">booked \(1 booking\)</span>', page)


def test_confirming_as_shown_keeps_the_booked_date_and_names_it(admin_client: Any) -> None:
    yoga = mixed_series(name="Yoga")
    drifted = detect_cadence_drift(yoga)
    booked = Event.objects.get(pk=drifted[2])
    book(booked)
    page = run_action(admin_client, yoga).content.decode()
    ticked = [pk for pk, on in checkboxes(page).items() if on]

    done = run_action(
        admin_client, yoga, confirm="yes", occurrence=ticked, booked=marked_booked(page)
    )

    assert "5 stale occurrences cancelled for Yoga." in texts(done)
    assert f"Yoga: kept 1 booked date: {display(booked)}." in texts(done)
    assert Event.objects.get(pk=booked.pk).state != CANCELLED
    assert Event.objects.filter(pk__in=ticked, state=CANCELLED).count() == 5


def test_ticking_a_booked_date_cancels_it_with_its_bookings(admin_client: Any) -> None:
    yoga = mixed_series(name="Yoga")
    drifted = detect_cadence_drift(yoga)
    book(Event.objects.get(pk=drifted[2]))

    done = admin_client.post(
        change_url(yoga, "cancel-stale"),
        {"confirm": "yes", "occurrence": drifted, "booked": [drifted[2]]},
        follow=True,
    )

    assert "6 stale occurrences cancelled for Yoga." in texts(done)
    assert not [text for text in texts(done) if "kept" in text]
    assert Event.objects.filter(pk__in=drifted, state=CANCELLED).count() == 6


def test_a_date_booked_after_the_page_was_shown_is_kept_and_named(admin_client: Any) -> None:
    yoga = mixed_series(name="Yoga")
    drifted = detect_cadence_drift(yoga)
    page = admin_client.get(change_url(yoga, "cancel-stale")).content.decode()
    assert all(checkboxes(page).values())
    late = Event.objects.get(pk=drifted[4])
    book(late)  # someone bought a ticket while the organiser read the page

    done = admin_client.post(
        change_url(yoga, "cancel-stale"),
        {"confirm": "yes", "occurrence": drifted, "booked": marked_booked(page)},
        follow=True,
    )

    assert "5 stale occurrences cancelled for Yoga." in texts(done)
    assert f"Yoga: kept 1 booked date: {display(late)}." in texts(done)
    assert Event.objects.get(pk=late.pk).state != CANCELLED


def test_the_confirmation_reads_bookings_in_one_query(admin_client: Any) -> None:
    counts = []
    for weeks in (2, 12):
        series = make_series(name=f"Yoga {weeks}", window_weeks=weeks)
        generate_series_events(series, now=timezone.now())
        drift_without_partners(series, keep=0)
        rows = occurrences(series)
        book(rows[-1])
        with CaptureQueriesContext(connection) as captured:
            page = admin_client.get(change_url(series, "cancel-stale")).content.decode()
        assert marked_booked(page) == [rows[-1].pk]
        # The first LISTED_DATES stale dates, and the booked one after them.
        assert len(checkboxes(page)) == min(len(rows), LISTED_DATES + 1)
        # The bookings in one question ("testapp_seat"; who would be told is another).
        # The table quoted as each backend quotes it ("..." or `...`), not testapp_seatholder.
        seat_reads = [
            q for q in captured.captured_queries if re.search(r'["`]testapp_seat["`]', q["sql"])
        ]
        assert len(seat_reads) == 1
        counts.append(len(captured))
    assert counts[0] == counts[1]


def test_cancelling_one_booked_date_needs_with_its_bookings(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga")
    booked = occurrences(yoga)[1]
    book(booked)
    page = admin_client.get(change_url(yoga)).content.decode()
    slot = booked.recurrence_id.strftime("%Y-%m-%dT%H:%M:%SZ")
    row = re.search(rf'<tr class="revel-row" data-slot="{slot}">(.*?)</tr>', page, re.S)
    assert row is not None
    assert "revel-badge-booked" in row.group(1)
    assert '<input type="checkbox" form="revel-date-2" name="include_booked" value="yes">' in (
        row.group(1)
    )
    assert page.count('name="include_booked"') == 1

    refused = admin_client.post(change_url(yoga, "cancel-date"), {"instant": slot}, follow=True)

    assert [m for m in texts(refused) if m.startswith("Yoga: ")] == [
        f"Yoga: {display(booked)} has bookings and was not cancelled; tick “with its "
        "bookings” to cancel it with them."
    ]
    assert Event.objects.get(pk=booked.pk).state != CANCELLED

    done = admin_client.post(
        change_url(yoga, "cancel-date"), {"instant": slot, "include_booked": "yes"}, follow=True
    )

    assert f"{display(booked)} cancelled for Yoga." in texts(done)
    assert Event.objects.get(pk=booked.pk).state == CANCELLED


def test_the_delete_page_names_booked_dates_in_the_rules_zone(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga")
    booked = occurrences(yoga)[3]
    book(booked)

    page = admin_client.get(change_url(yoga, "delete")).content.decode()

    assert f"{display(booked)} of Yoga has bookings" in page


def test_the_delete_page_asks_the_host_once_whatever_the_number_of_events(
    admin_client: Any,
) -> None:
    counts = []
    for weeks in (2, 20):
        series = generated_series(name=f"Daily {weeks}", frequency="DAILY", window_weeks=weeks)
        book(occurrences(series)[-1])
        with CaptureQueriesContext(connection) as captured:
            page = admin_client.get(change_url(series, "delete")).content.decode()
        assert page.count("has bookings") == 1
        seat_reads = [q for q in captured.captured_queries if "testapp_seat" in q["sql"]]
        assert len(seat_reads) == 1
        counts.append(len(captured))
    assert counts[0] == counts[1]


def test_delete_selected_confirmation_asks_the_host_once(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga", frequency="DAILY", window_weeks=6)
    pilates = generated_series(name="Pilates", frequency="DAILY", window_weeks=6)
    book(occurrences(pilates)[0])
    with CaptureQueriesContext(connection) as captured:
        page = admin_client.post(
            CHANGELIST, {"action": "delete_selected", "_selected_action": [yoga.pk, pilates.pk]}
        ).content.decode()
    assert f"{display(occurrences(pilates)[0])} of Pilates has bookings" in page
    seat_reads = [q for q in captured.captured_queries if "testapp_seat" in q["sql"]]
    assert len(seat_reads) == 1
