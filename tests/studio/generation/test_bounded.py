"""Bounded work on the studio host: a lesson's long ``notes`` neither fails a write nor a read.

``Lesson.notes`` is an unbounded text copied onto every lesson. A series whose
copies would be too large to write is a 400 naming ``template.notes`` (never a
5xx), the daily pass parks it with its reason (shown in the API and the admin)
without dragging its chunk down, and reads of dates do not load the copies.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from bench.memory import heap_tracing
from revel_recurring.models import EventSeries
from revel_recurring.services.generation.chunks import generate_series_chunk_events
from revel_recurring.services.generation.dispatch import iter_due_series_ids
from revel_recurring.services.lifecycle import resume_series
from tests.hosts.studio.models import Lesson, School, User
from tests.studio.conftest import API, BERLIN, PASSWORD, MakeSeries, next_weekday

pytestmark = pytest.mark.django_db

MB = 1024 * 1024
EVERY_DAY = (0, 1, 2, 3, 4, 5, 6)


def long_text(size: int) -> str:
    line = "Warm-up, figures, the whole term's syllabus pasted into the notes. "
    return (line * (size // len(line) + 1))[:size]


def daily_body(school: School, *, weeks: int, notes: str) -> dict[str, Any]:
    tomorrow = timezone.now().astimezone(BERLIN) + dt.timedelta(days=1)
    # Tomorrow 18:30, so a one-week window holds six or seven lessons.
    start = next_weekday(tomorrow.weekday())
    return {
        "name": "Daily Drill",
        "recurrence": {
            "frequency": "DAILY",
            "dtstart": start.isoformat(),
            "timezone": "Europe/Berlin",
        },
        "template": {
            "school": school.pk,
            "title": "Daily Drill",
            "notes": notes,
            "finishes": (start + dt.timedelta(hours=1)).isoformat(),
        },
        "generation_window_weeks": weeks,
        "auto_publish": True,
    }


def test_2_mb_notes_on_a_52_week_daily_series_is_a_400_naming_the_field(
    api: APIClient, school: School
) -> None:
    response = api.post(API, daily_body(school, weeks=52, notes=long_text(2 * MB)), format="json")

    assert response.status_code == 400, response.content[:500]
    errors = response.json()
    assert list(errors) == ["template"]
    assert list(errors["template"]) == ["notes"]
    assert "REVEL_RECURRING_MAX_GENERATION_BYTES" in errors["template"]["notes"][0]
    assert not EventSeries.objects.exists()
    assert not Lesson.objects.exists()


def test_2_mb_notes_on_a_short_window_is_stored_and_cannot_be_widened(
    api: APIClient, school: School
) -> None:
    created = api.post(API, daily_body(school, weeks=1, notes=long_text(2 * MB)), format="json")

    assert created.status_code == 201, created.content[:500]
    series = EventSeries.objects.get(pk=created.json()["id"])
    count = series.occurrences().count()
    assert 6 <= count <= 8
    assert Lesson.objects.filter(series=series, notes=long_text(2 * MB)).count() == count + 1

    widened = api.patch(f"{API}{series.pk}/", {"generation_window_weeks": 52}, format="json")
    until = (timezone.now() + dt.timedelta(weeks=50)).isoformat()
    generated = api.post(f"{API}{series.pk}/generate/", {"until": until}, format="json")

    assert widened.status_code == 400, widened.content[:500]
    assert list(widened.json()["template"]) == ["notes"]
    assert generated.status_code == 400, generated.content[:500]
    assert list(generated.json()["template"]) == ["notes"]
    series.refresh_from_db()
    assert series.generation_window_weeks == 1
    assert series.occurrences().count() == count


def test_the_daily_pass_parks_the_oversized_series_and_the_api_and_admin_show_why(
    api: APIClient, school: School, make_series: MakeSeries
) -> None:
    created = api.post(API, daily_body(school, weeks=1, notes=long_text(2 * MB)), format="json")
    assert created.status_code == 201
    big = EventSeries.objects.get(pk=created.json()["id"])
    # Widened behind the API's back (by hand, or before the limit existed).
    EventSeries.objects.filter(pk=big.pk).update(generation_window_weeks=52)
    salsa = make_series(name="Salsa")
    EventSeries.objects.filter(pk=salsa.pk).update(generation_window_weeks=12)
    before = {series.pk: series.occurrences().count() for series in (big, salsa)}
    later = timezone.now() + dt.timedelta(days=1)

    result = generate_series_chunk_events([big.pk, salsa.pk], now=later)

    assert result.parked == [big.pk]
    assert result.failures == {}
    assert salsa.occurrences().count() > before[salsa.pk]
    big.refresh_from_db()
    assert big.occurrences().count() == before[big.pk]
    assert big.parked_at == later
    assert big.parked_reason.startswith("GenerationTooLargeError: ")
    assert "'notes'" in big.parked_reason
    assert big.pk not in list(iter_due_series_ids(now=later + dt.timedelta(days=2), chunk_size=50))

    shown = api.get(f"{API}{big.pk}/").json()
    assert shown["parked_reason"] == big.parked_reason
    assert dt.datetime.fromisoformat(shown["parked_at"]) == later
    assert api.get(f"{API}{salsa.pk}/").json()["parked_at"] is None

    User.objects.create_superuser("owner@studio.example", PASSWORD)
    admin = Client()
    admin.login(username="owner@studio.example", password=PASSWORD)
    listing = admin.get("/admin/revel_recurring/eventseries/", {"parked": "yes"})
    assert [series.pk for series in listing.context["cl"].result_list] == [big.pk]
    assert "GenerationTooLargeError" in listing.content.decode()

    # Resumed with a window it can write, it generates again.
    EventSeries.objects.filter(pk=big.pk).update(generation_window_weeks=2)
    assert resume_series(big) is True
    big.refresh_from_db()
    assert (big.parked_at, big.parked_reason) == (None, "")
    again = generate_series_chunk_events([big.pk], now=later)
    assert (again.parked, again.created > 0) == ([], True)


def test_widening_the_window_in_the_admin_is_an_error_on_the_form_not_a_500(
    api: APIClient, school: School
) -> None:
    created = api.post(API, daily_body(school, weeks=1, notes=long_text(2 * MB)), format="json")
    series = EventSeries.objects.get(pk=created.json()["id"])
    count = series.occurrences().count()
    rule = series.recurrence_rule
    assert rule is not None
    start = rule.dtstart.astimezone(BERLIN)
    User.objects.create_superuser("owner@studio.example", PASSWORD)
    admin = Client()
    admin.login(username="owner@studio.example", password=PASSWORD)
    url = f"/admin/revel_recurring/eventseries/{series.pk}/change/"
    form = {
        "name": "Renamed",
        "slug": series.slug,
        "is_active": "on",
        "auto_publish": "on",
        "generation_window_weeks": 52,
        "frequency": "DAILY",
        "interval": 1,
        "dtstart_0": start.date().isoformat(),
        "dtstart_1": start.strftime("%H:%M"),
        "timezone": "Europe/Berlin",
    }

    response = admin.post(url, form, follow=True)

    # The page comes back with the organiser's input and the refusal above the form.
    assert response.status_code == 200
    assert response.redirect_chain == []
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["__all__"]
    assert "Shorten 'notes'" in errors["__all__"][0]
    assert response.context["adminform"].form["generation_window_weeks"].value() == "52"
    series.refresh_from_db()
    assert (series.name, series.generation_window_weeks) == ("Daily Drill", 1)
    assert series.occurrences().count() == count


@pytest.fixture
def traced() -> Iterator[Callable[[Callable[[], Any]], int]]:
    """The Python heap's peak growth (bytes) while a callable runs (tracemalloc)."""
    with heap_tracing() as measure:
        yield measure


@pytest.mark.postgres
@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL")
def test_reads_of_a_series_with_1_mb_notes_stay_under_100_mb(
    api: APIClient, make_series: MakeSeries, traced: Callable[[Callable[[], Any]], int]
) -> None:
    series = make_series(name="Daily Drill", weekdays=EVERY_DAY, generation_window_weeks=22)
    # Copy 1 MB onto every lesson, as generation or a propagated edit would: about 150 MB.
    Lesson.objects.filter(series=series).update(notes=long_text(MB))
    count = series.occurrences().count()
    assert count >= 140

    def occurrences() -> Any:
        response = api.get(f"{API}{series.pk}/occurrences/", {"page_size": 500})
        assert response.status_code == 200
        assert len(response.json()["results"]) == count
        return response

    def ical() -> Any:
        response = api.get(f"{API}{series.pk}/ical/", HTTP_ACCEPT="text/calendar")
        assert response.status_code == 200
        assert response.content.count(b"BEGIN:VEVENT") >= 1
        return response

    def school_feed() -> Any:
        response = Client().get("/schools/salsa/calendar.ics")
        assert response.status_code == 200
        return response

    def delete() -> Any:
        response = api.delete(f"{API}{series.pk}/")
        assert response.status_code == 204
        return response

    peaks = {
        name: traced(call)
        for name, call in [
            ("occurrences", occurrences),
            ("ical", ical),
            ("school feed", school_feed),
            ("delete", delete),
        ]
    }

    assert all(peak < 100 * MB for peak in peaks.values()), {
        name: f"{peak / MB:.1f} MB" for name, peak in peaks.items()
    }
    assert not Lesson.objects.filter(series_id=series.pk).exists()
