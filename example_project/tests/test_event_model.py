from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from example_project.events.models import Event, NotificationPreference, occurrence_slug

from .conftest import VIENNA, MakeTemplate
from .helpers import materialize, weekly_starts

pytestmark = pytest.mark.django_db


def test_prepare_occurrence_copies_template_fields(make_template: MakeTemplate) -> None:
    template = make_template()
    start = template.start + dt.timedelta(weeks=1)

    occurrence = template.prepare_occurrence(
        start=start, occurrence_index=3, status=Event.Status.OPEN
    )

    for name in Event.PROPAGATABLE_FIELDS:
        assert getattr(occurrence, name) == getattr(template, name), name
    assert occurrence.organization_id == template.organization_id
    assert occurrence.series_id == template.series_id
    assert occurrence.status == Event.Status.OPEN
    assert occurrence.start == start
    assert occurrence.recurrence_id == start
    assert occurrence.occurrence_index == 3
    assert not occurrence.is_template
    assert not occurrence.is_modified
    assert occurrence.pk is None
    assert occurrence.created_at is None


def test_prepare_occurrence_shifts_time_relative_fields_by_start_delta(
    make_template: MakeTemplate,
) -> None:
    template = make_template()
    delta = dt.timedelta(days=35)

    occurrence = template.prepare_occurrence(
        start=template.start + delta, occurrence_index=1, status=Event.Status.OPEN
    )

    assert occurrence.end == template.end + delta
    assert occurrence.rsvp_before == template.rsvp_before + delta
    assert occurrence.check_in_starts_at == template.check_in_starts_at + delta


def test_prepare_occurrence_leaves_empty_time_relative_fields_empty(
    make_template: MakeTemplate,
) -> None:
    template = make_template(rsvp_before=None, check_in_starts_at=None)

    occurrence = template.prepare_occurrence(
        start=template.start + dt.timedelta(weeks=1), occurrence_index=1, status="open"
    )

    assert occurrence.rsvp_before is None
    assert occurrence.check_in_starts_at is None


def test_prepare_occurrence_slug_is_template_slug_and_utc_start(
    make_template: MakeTemplate,
) -> None:
    template = make_template()
    start = dt.datetime(2027, 4, 6, 18, 30, tzinfo=VIENNA)  # CEST: 16:30 UTC

    occurrence = template.prepare_occurrence(start=start, occurrence_index=1, status="open")

    assert occurrence.slug == "evening-run-20270406-1630"


def test_prepare_occurrence_runs_no_queries(
    make_template: MakeTemplate, django_assert_num_queries: object
) -> None:
    template = make_template()
    with django_assert_num_queries(0):  # type: ignore[operator]
        template.prepare_occurrence(
            start=template.start + dt.timedelta(weeks=1), occurrence_index=1, status="open"
        )


def test_occurrence_slugs_are_unique_within_the_organization(
    make_template: MakeTemplate,
) -> None:
    template = make_template()

    occurrences = materialize(template, weekly_starts(template, 20))

    slugs = {event.slug for event in occurrences} | {template.slug}
    assert len(slugs) == 21


def test_occurrence_slug_of_a_long_template_slug_fits_the_column() -> None:
    slug = occurrence_slug("x" * 255, dt.datetime(2027, 1, 1, tzinfo=dt.UTC))

    assert len(slug) == Event._meta.get_field("slug").max_length
    assert slug.endswith("-20270101-0000")


def test_clean_rejects_an_end_not_after_the_start(make_template: MakeTemplate) -> None:
    event = make_template()
    event.end = event.start

    with pytest.raises(ValidationError) as info:
        event.clean()

    assert set(info.value.message_dict) == {"end"}


@pytest.mark.parametrize(
    ("latitude", "longitude", "field"),
    [(Decimal("48.2"), None, "longitude"), (None, Decimal("16.4"), "latitude")],
)
def test_clean_requires_both_coordinates_or_neither(
    make_template: MakeTemplate,
    latitude: Decimal | None,
    longitude: Decimal | None,
    field: str,
) -> None:
    event = make_template()
    event.latitude, event.longitude = latitude, longitude

    with pytest.raises(ValidationError) as info:
        event.clean()

    assert set(info.value.message_dict) == {field}


def test_clean_accepts_a_valid_event_with_or_without_location(make_template: MakeTemplate) -> None:
    event = make_template()
    event.clean()
    event.latitude = event.longitude = None
    event.clean()


def test_database_enforces_end_after_start(make_template: MakeTemplate) -> None:
    event = make_template()
    event.end = event.start - dt.timedelta(minutes=1)

    with pytest.raises(IntegrityError), transaction.atomic():
        event.save()


def test_database_enforces_complete_location(make_template: MakeTemplate) -> None:
    event = make_template()
    event.longitude = None

    with pytest.raises(IntegrityError), transaction.atomic():
        event.save()


def test_has_bookings_is_true_only_when_a_tier_sold_tickets(make_template: MakeTemplate) -> None:
    template = make_template(tiers=2)
    (occurrence,) = materialize(template, weekly_starts(template, 1))
    Event.clone_related(template, [occurrence])

    assert template.has_bookings()
    assert not occurrence.has_bookings()

    occurrence.ticket_tiers.filter(name="Tier 2").update(quantity_sold=1)
    assert occurrence.has_bookings()


def test_notification_preference_allows_unless_silenced_or_disabled(
    django_user_model: object,
) -> None:
    user = django_user_model.objects.create_user(username="pref")  # type: ignore[attr-defined]
    preference = NotificationPreference.objects.create(
        user=user, disabled_types=["SERIES_EVENTS_GENERATED"]
    )

    assert not preference.allows("SERIES_EVENTS_GENERATED")
    assert preference.allows("EVENT_CANCELLED")
    preference.silence_all = True
    assert not preference.allows("EVENT_CANCELLED")


def test_notification_preference_rejects_non_string_types(django_user_model: object) -> None:
    user = django_user_model.objects.create_user(username="pref")  # type: ignore[attr-defined]
    preference = NotificationPreference(user=user, disabled_types=["ok", 3])

    with pytest.raises(ValidationError) as info:
        preference.clean()

    assert set(info.value.message_dict) == {"disabled_types"}
