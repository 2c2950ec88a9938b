"""RecurringEventQuerySet: the host's own lists without templates, and upcoming occurrences."""

from __future__ import annotations

import pytest

from revel_recurring.querysets import RecurringEventQuerySet
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event
from tests.support.factories import NOW, make_series

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows() -> dict[str, list[int]]:
    series = make_series(window_weeks=2)
    generate_series_events(series, now=NOW)
    one_off = Event.objects.create(title="Open day", starts_at=NOW)
    return {
        "templates": list(
            Event.objects.filter(series=series, is_template=True).values_list("pk", flat=True)
        ),
        "occurrences": list(
            Event.objects.filter(series=series, is_template=False).values_list("pk", flat=True)
        ),
        "one_offs": [one_off.pk],
    }


def pks(queryset: RecurringEventQuerySet[Event]) -> set[int]:
    return set(queryset.values_list("pk", flat=True))


def test_the_host_manager_offers_the_recurring_filters() -> None:
    assert isinstance(Event.objects.all(), RecurringEventQuerySet)


def test_occurrences_templates_and_one_offs_split_the_table(rows: dict[str, list[int]]) -> None:
    assert len(rows["occurrences"]) == 2
    assert pks(Event.objects.occurrences()) == set(rows["occurrences"])
    assert pks(Event.objects.templates()) == set(rows["templates"])
    assert pks(Event.objects.one_offs()) == set(rows["one_offs"])
    assert pks(Event.objects.without_templates()) == set(rows["occurrences"] + rows["one_offs"])


def test_filters_chain_with_the_host_own(rows: dict[str, list[int]]) -> None:
    assert pks(Event.objects.filter(state="planned").without_templates()) == set(
        rows["occurrences"] + rows["one_offs"]
    )
    assert not Event.objects.filter(title="Open day").occurrences().exists()


def test_upcoming_keeps_future_occurrences_that_are_not_cancelled() -> None:
    series = make_series(window_weeks=3)
    first, second, third = generate_series_events(series, now=NOW)
    Event.objects.filter(pk=third.pk).update(state=Event.RECURRING_STATUS_CANCELLED)

    assert pks(Event.objects.upcoming(now=NOW)) == {first.pk, second.pk}
    assert pks(Event.objects.upcoming(now=second.starts_at)) == {second.pk}
    assert pks(Event.objects.filter(series=series).upcoming(now=third.starts_at)) == set()
