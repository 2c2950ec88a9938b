"""The template of a series: protected from deletion, replaceable, related rows supplied."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction

from revel_recurring.exceptions import TemplateProtectedError
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import create_recurring_series, delete_series
from revel_recurring.services.templates import copy_template_related, replace_template
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import (
    DURATION,
    FIRST_MONDAY,
    NOW,
    fresh,
    monday,
    occurrences,
    template_of,
    weekly_series,
)

pytestmark = pytest.mark.django_db


def _add_seats(template: Event) -> None:
    Seat.objects.create(event=template, label="Stalls", quantity=40)
    Seat.objects.create(event=template, label="Balcony", quantity=12)


def _labels(event: Any) -> list[str]:
    return sorted(event.seats.values_list("label", flat=True))


# Deleting the template


def test_deleting_the_template_of_a_series_is_refused() -> None:
    series = weekly_series()
    template = template_of(series)

    # Refused from pre_delete, inside Django's delete transaction: a savepoint
    # keeps the test's own transaction usable, as it would a host's.
    with pytest.raises(TemplateProtectedError) as caught, transaction.atomic():
        template.delete()

    assert "delete_series" in str(caught.value)
    assert "replace_template" in str(caught.value)
    assert Event.objects.filter(pk=template.pk).exists()


def test_bulk_deleting_events_that_include_a_template_is_refused_whole() -> None:
    series = weekly_series()

    with pytest.raises(TemplateProtectedError), transaction.atomic():
        Event.objects.filter(series=series).delete()

    assert len(occurrences(series)) == 8
    assert fresh(series).exdates == []


def test_delete_series_still_deletes_the_template() -> None:
    series = weekly_series()

    deleted = delete_series(series)

    assert deleted == 9
    assert not EventSeries.objects.filter(pk=series.pk).exists()


def test_one_off_events_and_occurrences_delete_as_before() -> None:
    series = weekly_series()
    one_off = Event.objects.create(title="Open day", starts_at=NOW)

    one_off.delete()
    occurrences(series)[0].delete()

    assert len(occurrences(series)) == 7


# Replacing it


def test_replace_template_swaps_it_and_new_occurrences_copy_the_new_one() -> None:
    series = weekly_series(window_weeks=2)
    old = template_of(series)
    Seat.objects.create(event=old, label="Old row", quantity=5)

    new = replace_template(
        series,
        {
            "title": "Monday yoga (new room)",
            "venue": "Studio 5",
            "ends_at": FIRST_MONDAY + DURATION,
        },
        setup_template=_add_seats,
        now=NOW,
    )

    assert template_of(series).pk == new.pk
    assert not Event.objects.filter(pk=old.pk).exists()
    assert not Seat.objects.filter(label="Old row").exists()
    assert [e.title for e in occurrences(series)] == ["Monday yoga"] * 2  # untouched
    created = generate_series_events(series, now=NOW + dt.timedelta(weeks=1))
    assert [(e.title, e.venue) for e in created] == [("Monday yoga (new room)", "Studio 5")]
    assert _labels(created[0]) == ["Balcony", "Stalls"]


def test_replace_template_validates_before_writing() -> None:
    series = weekly_series()
    old = template_of(series)

    with pytest.raises(ValidationError) as caught:
        replace_template(series, {"title": "x", "ends_at": FIRST_MONDAY - dt.timedelta(hours=1)})

    assert list(caught.value.message_dict) == ["ends_at"]
    assert template_of(series).pk == old.pk


def test_replace_template_rearms_a_parked_series() -> None:
    series = weekly_series(generate=False)
    # A template lost before deletion was refused (raw SQL, an old version).
    Event.objects.filter(series=series, is_template=True)._raw_delete("default")
    generate_series_events(series, now=NOW)
    assert fresh(series).next_due_at is None  # parked

    replace_template(series, {"title": "Monday yoga"}, now=NOW)

    assert fresh(series).next_due_at is not None
    assert len(generate_series_events(series, now=NOW)) == 8


# Related rows for the first window


def test_setup_template_supplies_related_rows_before_the_first_generation() -> None:
    calls: list[Any] = []

    def setup(template: Event) -> None:
        calls.append((template.pk, template.is_template, occurrences_now(template)))
        _add_seats(template)

    def occurrences_now(template: Event) -> int:
        return Event.objects.filter(series_id=template.series_id, is_template=False).count()

    series = create_recurring_series(
        rule_data={"frequency": "WEEKLY", "dtstart": FIRST_MONDAY, "timezone": "Europe/Vienna"},
        template_data={"title": "Monday yoga", "ends_at": FIRST_MONDAY + DURATION},
        name="Monday yoga",
        setup_template=setup,
        now=NOW,
    )

    assert calls == [(template_of(series).pk, True, 0)]
    assert len(occurrences(series)) == 8
    assert all(_labels(event) == ["Balcony", "Stalls"] for event in occurrences(series))


def test_a_failing_setup_template_creates_nothing() -> None:
    def setup(template: Event) -> None:
        raise RuntimeError("seat plan service down")

    with pytest.raises(RuntimeError):
        create_recurring_series(
            rule_data={"frequency": "WEEKLY", "dtstart": FIRST_MONDAY, "timezone": "Europe/Vienna"},
            template_data={"title": "Monday yoga"},
            name="Monday yoga",
            setup_template=setup,
            now=NOW,
        )

    assert not EventSeries.objects.exists()
    assert not Event.objects.exists()


def test_generate_false_then_related_rows_then_generate() -> None:
    series = weekly_series(generate=False)
    _add_seats(template_of(series))

    created = generate_series_events(series, now=NOW)

    assert len(created) == 8
    assert all(_labels(event) == ["Balcony", "Stalls"] for event in created)


def test_copy_template_related_reaches_future_unmodified_occurrences_only() -> None:
    series = weekly_series(window_weeks=4)
    Seat.objects.filter(event__series=series).delete()
    events = occurrences(series)
    events[2].title = "Yoga with a guest teacher"
    events[2].save()  # an organiser's edit: is_modified
    cancel_occurrence(series, monday(3), now=NOW)
    _add_seats(template_of(series))

    passed = copy_template_related(series, now=monday(1))

    assert passed == 1
    assert [_labels(event) for event in occurrences(series)] == [
        [],  # past
        ["Balcony", "Stalls"],
        [],  # modified
        [],  # cancelled
    ]


def test_end_before_start_in_template_data_is_refused_on_the_end_field() -> None:
    with pytest.raises(ValidationError) as caught:
        create_recurring_series(
            rule_data={"frequency": "WEEKLY", "dtstart": FIRST_MONDAY, "timezone": "Europe/Vienna"},
            template_data={"title": "Backwards", "ends_at": FIRST_MONDAY - dt.timedelta(hours=2)},
            name="Backwards",
            now=NOW,
        )

    assert list(caught.value.message_dict) == ["ends_at"]
    assert "before the start" in caught.value.message_dict["ends_at"][0]
    assert not EventSeries.objects.exists()
