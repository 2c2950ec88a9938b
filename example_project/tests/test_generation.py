"""The example host under the real generation service."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from example_project.events.models import DigestRecord, Event, TicketTier
from revel_recurring.exceptions import DuplicateUniqueValueError
from revel_recurring.models import RecurringEventMixin
from revel_recurring.services.generation import generate_series_events

from .conftest import VIENNA, MakeTemplate

pytestmark = pytest.mark.django_db


def test_generation_builds_occurrences_through_the_host_hooks(
    make_template: MakeTemplate, now: dt.datetime
) -> None:
    template = make_template(tiers=2)
    assert template.series is not None

    created = generate_series_events(template.series, now=now)

    assert len(created) == 8  # the default eight-week window, one per Tuesday
    for event in Event.objects.filter(pk__in=[e.pk for e in created]):
        local = event.start.astimezone(VIENNA)
        assert (local.weekday(), local.time()) == (1, dt.time(18, 30))
        assert event.status == Event.Status.OPEN
        assert event.slug == f"evening-run-{event.start.astimezone(dt.UTC):%Y%m%d-%H%M}"
        assert event.rsvp_before == event.start - dt.timedelta(hours=2)
        assert event.ticket_tiers.count() == 2
        assert not event.has_bookings()
    assert TicketTier.objects.filter(event__series=template.series).count() == 2 * 9


def test_generation_sends_one_digest_to_the_example_notifier(
    make_template: MakeTemplate, now: dt.datetime, django_capture_on_commit_callbacks: Any
) -> None:
    template = make_template()
    assert template.series is not None

    with django_capture_on_commit_callbacks(execute=True):
        created = generate_series_events(template.series, now=now)

    (record,) = DigestRecord.objects.all()
    assert record.series_id == template.series_id
    assert record.occurrence_count == len(created)
    assert record.url.endswith(f"/series/{template.series.slug}/")


def test_copied_unique_slug_fails_generation_naming_the_field_and_the_hook(
    make_template: MakeTemplate, now: dt.datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A host that forgot both the slug override and RECURRING_UNCOPIED_FIELDS.
    monkeypatch.setattr(Event, "prepare_occurrence", RecurringEventMixin.prepare_occurrence)
    monkeypatch.setattr(Event, "RECURRING_UNCOPIED_FIELDS", ("created_at", "updated_at"))
    template = make_template(slug="tuesday-run")

    with pytest.raises(DuplicateUniqueValueError) as caught:
        generate_series_events(template.series, now=now)

    assert caught.value.field == "slug"
    assert "'slug'" in str(caught.value)
    assert "Event.prepare_occurrence()" in str(caught.value)
    assert caught.value.message_dict == {"slug": [str(caught.value)]}
    assert Event.objects.filter(series=template.series, is_template=False).count() == 0
